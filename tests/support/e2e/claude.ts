/**
 * Installs a pinned Claude Code into `.cache/claude-code/<version>/` with npm (reused when present) and runs
 * it the way a χ-Bench trial does: `--print` against a local Messages API, `CLAUDE_CONFIG_DIR` holding
 * `.claude.json` with the task's MCP servers and `settings.json` with the guard hooks.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLAUDE_CODE_VERSION, claudeSpec } from "./claude_version.ts";

/** The repository root. */
export const ROOT = join(import.meta.dirname ?? ".", "..", "..", "..");

/** Where a Claude Code version is installed. */
export function cacheDir(version: string): string {
  return join(ROOT, ".cache", "claude-code", version);
}

/** The `claude` executable of an install. */
export function claudeBin(version: string): string {
  return join(cacheDir(version), "node_modules", ".bin", "claude");
}

function installedVersion(version: string): string | null {
  try {
    const pkg = JSON.parse(
      readFileSync(
        join(cacheDir(version), "node_modules", "@anthropic-ai", "claude-code", "package.json"),
        "utf8",
      ),
    );
    return existsSync(claudeBin(version)) ? pkg.version : null;
  } catch {
    return null;
  }
}

const installing = new Map<string, Promise<string>>();

/** The path of `claude` at a version (default: the bed's), installing it with npm first when it is missing. */
export function ensureClaude(version = CLAUDE_CODE_VERSION): Promise<string> {
  let pending = installing.get(version);
  if (!pending) {
    pending = (async () => {
      if (installedVersion(version) === version) return claudeBin(version);
      const dir = cacheDir(version);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }) + "\n");
      // One line, on stderr so the suites' output on stdout stays as uvu prints it; npm's own only on failure.
      console.error(
        `Installing Claude Code ${version} for the end-to-end tests (npm, into .cache/claude-code/${version}) …`,
      );
      const out = await new Deno.Command("npm", {
        args: ["install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error", claudeSpec(version)],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success || installedVersion(version) !== version) {
        throw new Error(
          `Cannot install ${claudeSpec(version)} into ${dir}: npm failed.\n` +
            new TextDecoder().decode(out.stderr) + "Check that the npm registry is reachable, then rerun.",
        );
      }
      return claudeBin(version);
    })();
    installing.set(version, pending);
  }
  return pending;
}

/** What one Claude Code run needs. */
export interface ClaudeOptions {
  prompt: string;
  /** The scripted Messages API (ANTHROPIC_BASE_URL). */
  modelUrl: string;
  /** The task's MCP servers: name → streamable-http endpoint (`.claude.json`, as Harbor writes it). */
  mcp: Record<string, string>;
  /** The bytes of `$CLAUDE_CONFIG_DIR/settings.json` (lib/guard/config/claude_settings.ts `settingsJson`). */
  settings: string;
  /** Extra environment (hook commands inherit it). */
  env?: Record<string, string>;
  /** Kill the run after this long (ms). */
  timeoutMs?: number;
  /** The Claude Code version (default: the bed's, `CLAUDE_CODE_VERSION`). */
  version?: string;
}

/** The outcome of a run: exit code, output, the stream-json events and the config dir it used. */
export interface ClaudeResult {
  code: number;
  stdout: string;
  stderr: string;
  events: Record<string, unknown>[];
  timedOut: boolean;
}

/** The `.claude.json` a Harbor 0.20 trial writes: the task's servers, each `{type:"http", url}`. */
export function claudeJson(mcp: Record<string, string>): string {
  const servers = Object.fromEntries(Object.entries(mcp).map(([name, url]) => [name, { type: "http", url }]));
  return JSON.stringify({ mcpServers: servers });
}

/** Environment for an offline run: dummy key, local base URL, no telemetry, updates or side traffic. */
export function claudeEnv(options: ClaudeOptions, configDir: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: configDir,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-e2e-dummy",
    ANTHROPIC_MODEL: "claude-scripted",
    IS_SANDBOX: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    DISABLE_COST_WARNINGS: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    ENABLE_TOOL_SEARCH: "false",
    MCP_TIMEOUT: "20000",
    ...options.env,
  };
}

/** Runs `claude -p` once with a fresh config dir (removed afterwards); kills it on timeout. */
export async function runClaude(options: ClaudeOptions): Promise<ClaudeResult> {
  const bin = await ensureClaude(options.version);
  const configDir = mkdtempSync(join(tmpdir(), "fiable-e2e-cc-"));
  const workDir = mkdtempSync(join(tmpdir(), "fiable-e2e-ws-"));
  try {
    writeFileSync(join(configDir, ".claude.json"), claudeJson(options.mcp));
    writeFileSync(join(configDir, "settings.json"), options.settings);
    const child = new Deno.Command(bin, {
      args: ["--print", "--verbose", "--output-format=stream-json", "--dangerously-skip-permissions"],
      cwd: workDir,
      env: claudeEnv(options, configDir),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, options.timeoutMs ?? 60_000);
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.prompt));
    await writer.close();
    const out = await child.output();
    clearTimeout(timer);
    const stdout = new TextDecoder().decode(out.stdout);
    const events = stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { unparsed: l };
      }
    });
    return { code: out.code, stdout, stderr: new TextDecoder().decode(out.stderr), events, timedOut };
  } finally {
    rmSync(configDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}
