/**
 * The Claude Code hook settings the guard is installed with. One function makes the bytes for the trial
 * container (install.ts), the end-to-end tests and `guard.ts settings`, so all three are identical.
 */
import type { Arm } from "../engine/record.ts";
import { WRITING_TOOLS } from "../../../rules/guard_untouched.ts";
import { SNAPSHOT_FLAG } from "../runtime/snapshot.ts";

/** How hooks reach the guard: a resident http server, or one process per event. */
export type HookMode = "http" | "command";

/** Options for the settings file. */
export interface HookSettingsOptions {
  mode: HookMode;
  arm: Arm;
  /** Ledger directory (in a trial: /logs/agent/fiable). */
  ledgerDir: string;
  /** Command mode: the guard bundle run by `node` (in a trial: /installed-agent/fiable-guard.cjs). */
  guard: string;
  /** Http mode: the resident guard's port on 127.0.0.1. */
  port?: number;
  /**
   * Http mode: the trial's hook secret (lib/guard/resident/key.ts `hookToken`), which every http hook sends as
   * `Authorization: Bearer <secret>` and the SessionStart command hands a guard it starts
   * (`FIABLE_GUARD_TOKEN`), so the resident guard takes no request without it (issue 40). A secret of the
   * guard's own, worth nothing outside the trial; never a credential of the user's.
   */
  token?: string;
  /** Per-hook timeout in seconds (Claude Code fails open when it passes). */
  timeoutS?: number;
  /** The node executable for command mode. */
  node?: string;
  /**
   * A start-up snapshot of the guard for this node (lib/guard/runtime/snapshot.ts): command hooks start from it
   * when it is a regular file, and run the guard file plainly after `||` otherwise or when node cannot load it
   * (node then fails before reading stdin).
   */
  snapshot?: string;
  /**
   * The MCP server names the trial declares (Harbor's `self.mcp_servers`); the tool hooks match exactly
   * these. Default: `healthverse`, the name of most leaderboard tasks.
   */
  servers?: readonly string[];
}

/** The server name most leaderboard tasks declare, used when a trial declares none. */
export const DEFAULT_SERVERS: readonly string[] = ["healthverse"];

/**
 * A server name as Claude Code spells it in tool names (its own function, the same in every pinned CLI): each
 * character outside `[A-Za-z0-9_-]` becomes `_`, nothing is trimmed (` hv` → `_hv`); a `claude.ai ` connector's
 * runs of `_` collapse and lose their ends. tests/e2e/server_names.ts checks it against the real CLI.
 */
export function serverToolPrefix(server: string): string {
  const spelled = server.replace(/[^A-Za-z0-9_-]/g, "_");
  return server.startsWith("claude.ai ") ? spelled.replace(/_+/g, "_").replace(/^_|_$/g, "") : spelled;
}

/** Why no tool of a server name can be matched, or null when one can: an empty name has no spelling. */
export function unusableServer(server: string): string | null {
  return server ? null : "it is empty";
}

/**
 * The tool-event matcher for the declared servers: `^mcp__a__` or `^mcp__(?:a|b)__`, a JavaScript RegExp to
 * Claude Code (it holds `^`), anchored, so a name alone (`mcp__healthverse`) or another server's tools never
 * match. Each name is spelled as Claude Code spells it (`serverToolPrefix`), which needs no escaping. Throws
 * one `Cannot …` line for an unusable name (`unusableServer`) or none at all.
 */
export function toolMatcher(servers: readonly string[] = DEFAULT_SERVERS): string {
  for (const server of servers) {
    const why = unusableServer(server);
    if (why) {
      throw new Error(
        `Cannot write hook settings for MCP server ${JSON.stringify(server)}: ${why}. ` +
          "Pass the server names the trial declares (e.g. healthverse).",
      );
    }
  }
  const names = [...new Set(servers.map(serverToolPrefix))];
  if (!names.length) {
    throw new Error(
      "Cannot write hook settings: no MCP server name. Pass the names the trial declares (e.g. healthverse).",
    );
  }
  return names.length === 1 ? `^mcp__${names[0]}__` : `^mcp__(?:${names.join("|")})__`;
}

/** Hook events, the guard event word each is sent to, and whether it is a tool event (takes the matcher). */
const WIRING: [string, string, boolean][] = [
  ["SessionStart", "session-start", false],
  ["UserPromptSubmit", "prompt", false],
  ["PreToolUse", "pre", true],
  ["PostToolUse", "post", true],
  ["PostToolUseFailure", "post-fail", true],
  ["Stop", "stop", false],
  ["SubagentStop", "stop", false],
  ["StopFailure", "stop-fail", false],
];

/** A POSIX shell word for a value (single-quoted unless it is plainly safe). */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function handler(opts: HookSettingsOptions, word: string): Record<string, unknown> {
  const timeout = opts.timeoutS ?? 10;
  if (opts.mode === "http" && word !== "session-start") {
    const url = `http://127.0.0.1:${residentPort(opts)}/hook/${word}`;
    if (!opts.token) return { type: "http", url, timeout };
    return { type: "http", url, timeout, headers: { Authorization: `Bearer ${opts.token}` } };
  }
  // Claude Code runs only command handlers on SessionStart, so that event is always a command. In http mode
  // it also carries the resident guard's port: it checks the guard and starts it when it is down.
  const command = guardCommand(opts, word);
  if (word !== "stop-fail") return { type: "command", command, timeout };
  // Claude Code runs StopFailure as it exits, without waiting, and a hook process in its process group ends
  // with it before it records anything: the guard runs in a session of its own (`setsid -f`), reading the
  // event from the stdin it inherits; where there is no setsid it runs as any hook does.
  return {
    type: "command",
    command: `setsid -f sh -c ${shellQuote(command)} 2>/dev/null || ${command}`,
    timeout,
  };
}

/**
 * The shell command that runs the guard with `word`, its environment first (and the port in http mode): from
 * its start-up snapshot when there is one, with the guard file itself after `||`.
 */
function guardCommand(opts: HookSettingsOptions, word: string): string {
  const port = opts.mode === "http"
    ? ` FIABLE_GUARD_PORT=${residentPort(opts)}${
      opts.token ? ` FIABLE_GUARD_TOKEN=${shellQuote(opts.token)}` : ""
    }`
    : "";
  const env = `FIABLE_CC_ARM=${shellQuote(opts.arm)} FIABLE_LEDGER_DIR=${shellQuote(opts.ledgerDir)}${port}`;
  const node = shellQuote(opts.node ?? "node");
  const plain = `${env} ${node} ${shellQuote(opts.guard)} ${word}`;
  const blob = opts.snapshot && shellQuote(opts.snapshot);
  return blob
    ? `[ -f ${blob} ] && ${env} ${node} ${SNAPSHOT_FLAG} --snapshot-blob ${blob} ${
      shellQuote(opts.guard)
    } ${word} || ${plain}`
    : plain;
}

/**
 * Http mode's own check, beside the tool and prompt hooks: a command Claude Code runs without waiting for it
 * (`async`), so the hook path is no slower while the guard is up. It looks in the kernel's table of listening
 * TCP sockets for the guard's port (`/proc/net/tcp`, one grep); when nothing listens there — a supervisor and
 * server killed together — it runs `guard ensure`, which starts the guard again (lib/guard/resident/ensure.ts).
 * The call that found it down was not guarded; the calls after it are (issue 40).
 */
function checkHandler(opts: HookSettingsOptions): Record<string, unknown> {
  const hex = residentPort(opts).toString(16).toUpperCase().padStart(4, "0");
  return {
    type: "command",
    command: `grep -qs ':${hex} 00000000:0000 0A' /proc/net/tcp /proc/net/tcp6 || ${
      guardCommand({ ...opts, snapshot: undefined }, "ensure")
    }`,
    async: true,
    timeout: opts.timeoutS ?? 10,
  };
}

function residentPort(opts: HookSettingsOptions): number {
  if (!opts.port) {
    throw new Error("Cannot write http hook settings: no port. Pass the resident guard's port.");
  }
  return opts.port;
}

/**
 * Claude Code's own tools that can write a file, matched exactly: their PreToolUse goes to the guard too, so
 * GUARD-01 can refuse a call that writes the guard's state (`rules/guard_untouched.ts`); the guard passes
 * every other call of theirs silently, and records none.
 */
export const OWN_TOOLS_MATCHER = `^(?:${WRITING_TOOLS.join("|")})$`;

/**
 * The settings object: every guard hook, or none at all for the stock arm; in http mode, the guard's own check
 * beside each tool and prompt hook (`checkHandler`).
 */
export function hookSettings(opts: HookSettingsOptions): { hooks?: Record<string, unknown[]> } {
  if (opts.arm === "stock") return {};
  const matcher = toolMatcher(opts.servers);
  const hooks: Record<string, unknown[]> = {};
  for (const [event, word, tool] of WIRING) {
    hooks[event] = [{ ...(tool ? { matcher } : {}), hooks: [handler(opts, word)] }];
  }
  hooks.PreToolUse.push({ matcher: OWN_TOOLS_MATCHER, hooks: [handler(opts, "pre")] });
  if (opts.mode === "http") {
    for (const group of [...hooks.PreToolUse, ...hooks.UserPromptSubmit]) {
      (group as { hooks: unknown[] }).hooks.push(checkHandler(opts));
    }
  }
  return { hooks };
}

/** The exact bytes of `settings.json` for the options. */
export function settingsJson(opts: HookSettingsOptions): string {
  return JSON.stringify(hookSettings(opts), null, 2) + "\n";
}
