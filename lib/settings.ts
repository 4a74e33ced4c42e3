/**
 * The Claude Code hook settings the guard is installed with. One function makes the bytes for the trial
 * container (install.ts), the end-to-end tests and `guard.ts settings`, so all three are identical.
 */
import type { Arm } from "./ledger.ts";

/** How hooks reach the guard: a resident http server, or one process per event. */
export type HookMode = "http" | "command";

/** Options for the settings file. */
export interface HookSettingsOptions {
  mode: HookMode;
  arm: Arm;
  /** Ledger directory (in a trial: /logs/agent/fiable). */
  ledgerDir: string;
  /** Command mode: the guard bundle run by `node` (in a trial: /installed-agent/fiable-guard.mjs). */
  guard: string;
  /** Http mode: the resident guard's port on 127.0.0.1. */
  port?: number;
  /** Per-hook timeout in seconds (Claude Code fails open when it passes). */
  timeoutS?: number;
  /** The node executable for command mode. */
  node?: string;
}

/** Hook events and the guard event word each is sent to, with the matcher for tool events. */
const WIRING: [string, string, string | undefined][] = [
  ["SessionStart", "session-start", undefined],
  ["UserPromptSubmit", "prompt", undefined],
  ["PreToolUse", "pre", "^mcp__healthverse__"],
  ["PostToolUse", "post", "^mcp__healthverse__"],
  ["PostToolUseFailure", "post-fail", "^mcp__healthverse__"],
  ["Stop", "stop", undefined],
  ["SubagentStop", "stop", undefined],
];

/** A POSIX shell word for a value (single-quoted unless it is plainly safe). */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function handler(opts: HookSettingsOptions, word: string): Record<string, unknown> {
  const timeout = opts.timeoutS ?? 10;
  if (opts.mode === "http") {
    if (!opts.port) {
      throw new Error("Cannot write http hook settings: no port. Pass the resident guard's port.");
    }
    return { type: "http", url: `http://127.0.0.1:${opts.port}/hook/${word}`, timeout };
  }
  const env = `FIABLE_CC_ARM=${shellQuote(opts.arm)} FIABLE_LEDGER_DIR=${shellQuote(opts.ledgerDir)}`;
  return {
    type: "command",
    command: `${env} ${shellQuote(opts.node ?? "node")} ${shellQuote(opts.guard)} ${word}`,
    timeout,
  };
}

/** The settings object: every guard hook, or none at all for the stock arm. */
export function hookSettings(opts: HookSettingsOptions): { hooks?: Record<string, unknown[]> } {
  if (opts.arm === "stock") return {};
  const hooks: Record<string, unknown[]> = {};
  for (const [event, word, matcher] of WIRING) {
    // Claude Code runs only command handlers on SessionStart, so that one event is always a command.
    const mode = event === "SessionStart" ? { ...opts, mode: "command" as const } : opts;
    hooks[event] = [{ ...(matcher ? { matcher } : {}), hooks: [handler(mode, word)] }];
  }
  return { hooks };
}

/** The exact bytes of `settings.json` for the options. */
export function settingsJson(opts: HookSettingsOptions): string {
  return JSON.stringify(hookSettings(opts), null, 2) + "\n";
}
