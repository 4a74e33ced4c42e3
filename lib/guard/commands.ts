/**
 * The guard's subcommands (`serve`, `up`, `settings`), its `--help` and its refusals, loaded by guard.ts only
 * when the first argument is not a hook event: a hook never pays for the parser or the servers.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import process from "node:process";
import { type CommandSpec, type OptionSpec, type Parsed, portNumber, runCli } from "../cli.ts";
import { type Arm, ARMS } from "./engine/record.ts";
import { DEFAULT_SERVERS, settingsJson, unusableServer } from "./config/claude_settings.ts";
import { EVENTS } from "./engine/hook.ts";

const EVENT_LIST = Object.keys(EVENTS).join("|");
const GUARDED = ARMS.filter((a) => a !== "stock");

/** `--server NAME`, repeatable: the MCP servers whose tools the hooks match (up and settings). */
const SERVER_OPTION: OptionSpec = {
  type: "string",
  value: "NAME",
  multiple: true,
  default: DEFAULT_SERVERS.join(","),
  description: "an MCP server whose tools the hooks match (--server=NAME for a name that starts with -)",
};

/** `guard.ts` without a subcommand: the hook events and the subcommands. */
export const GUARD_CLI: CommandSpec = {
  name: "guard",
  summary: "The hook: one hook JSON object on stdin, exactly one JSON object on stdout, exit 0.",
  usage: [
    `deno run -A guard.ts pre (${Object.keys(EVENTS).filter((e) => e !== "pre").join(", ")})`,
    "deno run -A guard.ts serve|up|settings|facts [options]   (guard.ts <command> --help)",
  ],
  options: {},
  commands: [
    { name: EVENT_LIST, description: "answer one hook event: JSON on stdin, one JSON reply on stdout" },
    { name: "serve", description: "the resident guard for http hooks" },
    { name: "up", description: "bring the resident guard up in a trial and write the hook settings" },
    { name: "settings", description: "print the settings.json the guard is installed with" },
    { name: "facts", description: "print the guard's facts about a finished trial (for its result.json)" },
    {
      name: "ensure",
      description: "start this trial's resident guard again when none answers (the http hooks' own check)",
    },
  ],
  notes: [
    "A hook never fails a run: any internal error, bad input or time overrun answers allow (exit 0) and is",
    "recorded in the ledger. An unknown event word answers {} (no decision) and says so on stderr.",
    "Environment: FIABLE_CC_ARM (stock|shadow|plan|checklist|critic), FIABLE_LEDGER_DIR, FIABLE_PROFILE.",
  ],
  example: `echo '{"hook_event_name":"PreToolUse"}' | FIABLE_CC_ARM=checklist deno run -A guard.ts pre`,
};

/** `guard.ts serve`. */
export const SERVE_CLI: CommandSpec = {
  name: "guard serve",
  summary: 'Resident guard for `"type":"http"` hooks (`POST /hook/<event>`, `GET /health`); same ' +
    "decisions, session state in memory; restarted by its supervisor when it dies.",
  usage: ["deno run -A guard.ts serve --port N [--host H] [--token T]"],
  options: {
    port: { type: "string", value: "N", defaultNote: "env FIABLE_PORT, else 8787", description: "the port" },
    host: { type: "string", value: "H", default: "127.0.0.1", description: "the host name to bind" },
    token: {
      type: "string",
      value: "T",
      defaultNote: "env FIABLE_GUARD_TOKEN",
      description: "bearer token hooks must send; required when --host is not loopback",
    },
    // Internal: the supervisor starts its child with these; a restarted guard records why.
    child: { type: "boolean", description: "run unsupervised (the supervisor's child)", hidden: true },
    "restart-note": { type: "string", description: "why this guard was restarted", hidden: true },
    "down-since": { type: "string", description: "when the previous guard went down", hidden: true },
    session: { type: "string", description: "the session the restart is recorded in", hidden: true },
    adopt: { type: "string", description: "a live server whose supervisor died, to watch", hidden: true },
  },
  args: "none",
  notes: [
    "A non-loopback --host without a token is refused (exit 2); hooks send `Authorization: Bearer <token>`",
    "and a foreign Host or Origin gets 403.",
    "Environment: FIABLE_CC_ARM, FIABLE_LEDGER_DIR, FIABLE_GUARD_TOKEN, FIABLE_SUPERVISE=0 (no supervisor).",
  ],
  example:
    "FIABLE_CC_ARM=checklist FIABLE_LEDGER_DIR=/logs/agent/fiable deno run -A guard.ts serve --port 8787",
};

/** `guard.ts up`. */
export const UP_CLI: CommandSpec = {
  name: "guard up",
  summary: "In a trial: reuses the live resident guard or starts one, then writes `settings.json` (http " +
    "hooks, or command hooks when none answers) and `harness.json`.",
  usage: ["deno run -A guard.ts up --port N --arm A …"],
  options: {
    port: { type: "string", value: "N", description: "the resident guard's port (required)" },
    arm: { type: "string", value: "ARM", description: `a guarded arm: ${GUARDED.join(", ")} (required)` },
    ledger: { type: "string", value: "DIR", description: "the ledger dir (required)" },
    guard: { type: "string", value: "PATH", description: "the guard bundle the hooks run (required)" },
    settings: { type: "string", value: "FILE", description: "where settings.json goes (required)" },
    harness: { type: "string", value: "FILE", description: "where harness.json goes (required)" },
    server: SERVER_OPTION,
    "claude-version": {
      type: "string",
      value: "X.Y.Z",
      description: "the Claude Code version, for harness.json",
    },
    wait: {
      type: "string",
      value: "S",
      default: "10",
      description: "seconds to wait for the guard to answer",
    },
  },
  args: "none",
  example: "node fiable-guard.cjs up --port 8787 --arm checklist --ledger /logs/agent/fiable " +
    "--guard /installed-agent/fiable-guard.cjs --settings ~/.claude/settings.json --harness /logs/agent/fiable/harness.json",
};

/** `guard.ts settings`. */
export const SETTINGS_CLI: CommandSpec = {
  name: "guard settings",
  summary: "Prints the `settings.json` the guard is installed with (the same bytes `up` and the end-to-end " +
    "tests use); `--server NAME` per MCP server.",
  usage: ["deno run -A guard.ts settings --mode http|command --arm A"],
  options: {
    mode: { type: "string", value: "http|command", default: "command", description: "the hook type" },
    arm: { type: "string", value: "ARM", default: "checklist", description: ARMS.join(", ") },
    ledger: { type: "string", value: "DIR", default: "/logs/agent/fiable", description: "the ledger dir" },
    guard: {
      type: "string",
      value: "PATH",
      default: "/installed-agent/fiable-guard.cjs",
      description: "the guard bundle the hooks run",
    },
    port: {
      type: "string",
      value: "N",
      description: "the resident guard's port (required with --mode http)",
    },
    server: SERVER_OPTION,
  },
  args: "none",
  example: "deno run -A guard.ts settings --mode http --arm checklist --port 8787",
};

/** `guard.ts facts`. */
export const FACTS_CLI: CommandSpec = {
  name: "guard facts",
  summary: "Prints the guard's facts about one finished trial as one JSON object (the fiable-cc harness " +
    "stores it in result.json): arm, hook mode, guard and rule-set versions, coverage, blocks, endings.",
  usage: ["node fiable-guard.cjs facts --trial DIR [--arm A]"],
  options: {
    trial: {
      type: "string",
      value: "DIR",
      description: "the trial dir as Harbor leaves it on the host (config.json, agent/) (required)",
    },
    arm: {
      type: "string",
      value: "ARM",
      description: "the arm the harness ran, for a trial that names none itself",
    },
  },
  args: "none",
  notes: ["Exit codes: 0 printed, 1 the trial cannot be summarised (one line on stderr), 2 bad usage."],
  example: "node fiable_guard.cjs facts --trial jobs/2026-12-01__critic/pa_um_t001__Ab3dE9f --arm critic",
};

/** The declared servers; an unusable name is refused with one line, before anything starts or is written. */
function servers(p: Parsed): string[] {
  const names = p.given("server") ? p.strings("server") : [...DEFAULT_SERVERS];
  for (const name of names) {
    const why = unusableServer(name);
    if (why) {
      throw p.error(
        `--server ${
          JSON.stringify(name)
        } is unusable: ${why}. Pass the MCP server names the trial declares ` +
          "(--server=NAME for a name that starts with -).",
      );
    }
  }
  return names;
}

function printSettings(p: Parsed): number {
  const mode = p.string("mode");
  if (mode !== "http" && mode !== "command") {
    throw p.error(`--mode "${mode}" is unknown. Use http or command.`);
  }
  const arm = p.string("arm")!;
  if (!(ARMS as readonly string[]).includes(arm)) {
    throw p.error(`--arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`);
  }
  const port = portNumber(p);
  if (mode === "http" && !port) {
    throw p.error("--mode http needs the resident guard's port. Use --port N (e.g. --port 8787).");
  }
  process.stdout.write(settingsJson({
    mode,
    arm: arm as Arm,
    ledgerDir: p.string("ledger")!,
    guard: p.string("guard")!,
    port,
    servers: servers(p),
  }));
  return 0;
}

/** `guard.ts serve`: the server under its supervisor, or alone with `--child` or `FIABLE_SUPERVISE=0`. */
async function runServe(p: Parsed): Promise<number> {
  const port = p.given("port") ? portNumber(p)! : Number(process.env.FIABLE_PORT ?? "8787");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw p.error(`FIABLE_PORT "${process.env.FIABLE_PORT}" is not a port number. Use 0-65535.`);
  }
  const host = p.string("host")!;
  const { bindRefusal, TOKEN_ENV } = await import("./resident/access.ts");
  const token = p.string("token") ?? process.env[TOKEN_ENV];
  const refused = bindRefusal(host, token);
  if (refused) {
    process.stderr.write(refused + "\n");
    return 2;
  }
  // The supervised server gets the token through its environment, never on a command line.
  if (token) process.env[TOKEN_ENV] = token;
  const note = p.string("restart-note");
  const session = p.string("session");
  if (p.flag("child") || process.env.FIABLE_SUPERVISE === "0") {
    // A supervised server's stderr is a pipe to its supervisor: if that dies, keep serving, unlogged.
    if (process.env.FIABLE_SUPERVISOR_PID) process.stderr.on("error", () => {});
    // Loaded only here: a hook process never pays for the http server.
    const { serve } = await import("./resident/serve.ts");
    const restart = note ? { note, downSince: p.string("down-since"), session } : undefined;
    // A supervised server replaces its supervisor if that dies first (lib/guard/resident/supervise.ts).
    const onListen = async (bound: number, settings: { arm: Arm; ledgerDir: string }) => {
      if (!process.env.FIABLE_SUPERVISOR_PID) return;
      const { watchSupervisor } = await import("./resident/supervise.ts");
      watchSupervisor({ script: process.argv[1], port: bound, host, ...settings, env: process.env });
    };
    try {
      await serve({
        port,
        host,
        env: process.env,
        restart,
        onListen: (bound, settings) => void onListen(bound, settings),
      });
    } catch (err) {
      process.stderr.write(
        `Cannot serve on ${host}:${port}: ${(err as Error).message}. Use a free --port.\n`,
      );
      return 2;
    }
    return 0;
  }
  const { supervise } = await import("./resident/supervise.ts");
  const firstArgs = note ? ["--restart-note", note, ...(session ? ["--session", session] : [])] : [];
  const adopt = Number(p.string("adopt")) || undefined;
  return await supervise({ script: process.argv[1], port, host, env: process.env, firstArgs, adopt });
}

/** `guard.ts up …`: brings the resident guard up (or reuses it) and writes settings.json and harness.json. */
async function runUp(p: Parsed): Promise<number> {
  const port = portNumber(p);
  if (port === undefined) throw p.error("--port is missing. Use --port N, the resident guard's port.");
  const arm = p.string("arm") ?? "";
  if (!(GUARDED as readonly string[]).includes(arm)) {
    throw p.error(
      `--arm "${arm}" is not a guarded arm. Use one of ${GUARDED.join(", ")} (stock runs without hooks).`,
    );
  }
  const required = ["ledger", "guard", "settings", "harness"].filter((f) => !p.string(f));
  if (required.length) {
    throw p.error(`${required.map((f) => `--${f}`).join(", ")} missing. Use guard.ts up --help.`);
  }
  const wait = Number(p.string("wait"));
  const { bringUp } = await import("./resident/up.ts");
  const result = await bringUp({
    port,
    arm: arm as Exclude<Arm, "stock">,
    ledgerDir: p.string("ledger")!,
    guard: p.string("guard")!,
    settingsFile: p.string("settings")!,
    harnessFile: p.string("harness")!,
    servers: servers(p),
    claudeVersion: p.string("claude-version"),
    waitMs: Number.isFinite(wait) && wait > 0 ? wait * 1000 : 10_000,
    env: process.env,
  });
  process.stdout.write(
    `fiable-cc: arm=${arm} hooks=${result.hooks}${result.note ? ` (${result.note})` : ""}\n`,
  );
  return 0;
}

/** `guard.ts facts --trial DIR`: the trial dir read as run integrity reads it, summarised (guard_summary.ts). */
async function runFacts(p: Parsed): Promise<number> {
  const dir = p.string("trial");
  if (!dir) throw p.error("--trial is missing. Use --trial DIR, the trial dir Harbor wrote.");
  const arm = p.string("arm");
  if (arm !== undefined && !(ARMS as readonly string[]).includes(arm)) {
    throw p.error(`--arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`);
  }
  if (!existsSync(dir)) throw p.error(`--trial ${dir} does not exist. Pass the trial dir Harbor wrote.`);
  const { trialRef } = await import("../results/trials.ts");
  const { readFacts } = await import("../results/trial_facts.ts");
  const { loadFactsReader } = await import("../results/guard_facts_reader.ts");
  await loadFactsReader();
  const { ledgerDigest, summariseGuard } = await import("../results/guard_summary.ts");
  const { sha256 } = await import("../results/calls_digest.ts");
  const { buildCommit, isGuardFile } = await import("./build_line.ts");
  const ref = trialRef(dir);
  const guardFile = process.argv[1] ?? "";
  const guardText = existsSync(guardFile) ? readFileSync(guardFile) : null;
  const bundled = guardText !== null && isGuardFile(guardText.subarray(0, 200).toString());
  try {
    const facts = summariseGuard(readFacts(ref), {
      build: {
        commit: bundled ? buildCommit(guardText!.subarray(0, 200).toString()) : null,
        bundle_sha256: bundled ? sha256(guardText!) : null,
      },
      ledgerDigest: ledgerDigest(
        ref.ledgers.map((path) => ({ name: basename(path), bytes: readFileSync(path) })),
      ),
      arm: arm as Arm | undefined,
    });
    process.stdout.write(JSON.stringify(facts) + "\n");
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
}

/**
 * `guard.ts ensure`: what the http hook settings run, without waiting for it, beside the tool and prompt hooks
 * when nothing listens on the guard's port (lib/guard/config/claude_settings.ts): starts the resident guard
 * again, as the SessionStart check does (lib/guard/resident/ensure.ts). Reads FIABLE_GUARD_PORT,
 * FIABLE_CC_ARM, FIABLE_LEDGER_DIR and FIABLE_GUARD_TOKEN; says what it did on stderr; exit 0 always.
 */
async function runEnsure(): Promise<number> {
  const env = process.env;
  const port = Number(env.FIABLE_GUARD_PORT);
  const arm = env.FIABLE_CC_ARM as Arm;
  const ledgerDir = env.FIABLE_LEDGER_DIR;
  if (
    !Number.isInteger(port) || port <= 0 || !GUARDED.includes(arm as typeof GUARDED[number]) || !ledgerDir
  ) {
    process.stderr.write(
      "fiable-guard ensure: FIABLE_GUARD_PORT, FIABLE_CC_ARM (a guarded arm) and FIABLE_LEDGER_DIR must be set; " +
        "nothing started.\n",
    );
    return 0;
  }
  const { ensureResident } = await import("./resident/ensure.ts");
  const note = await ensureResident({
    script: process.argv[1],
    port,
    arm,
    ledgerDir,
    env,
    who: "hook check",
  });
  if (note) process.stderr.write(`fiable-guard: ${note}\n`);
  return 0;
}

const IO = {
  out: (text: string) => void process.stdout.write(`${text}\n`),
  err: (text: string) => void process.stderr.write(`${text}\n`),
};

/**
 * Everything but a hook event: `serve`, `up`, `settings`, `--help`. A leading unknown flag is bad usage
 * (exit 2); an unknown word is taken for a misconfigured hook and answered `{}` (exit 0), so no run breaks.
 */
export async function guardCommand(args: string[]): Promise<number> {
  const [word, ...rest] = args;
  if (word === "serve") return await runCli(SERVE_CLI, rest, runServe, IO);
  if (word === "up") return await runCli(UP_CLI, rest, runUp, IO);
  if (word === "settings") return runCli(SETTINGS_CLI, rest, printSettings, IO);
  if (word === "facts") return await runCli(FACTS_CLI, rest, runFacts, IO);
  if (word === "ensure") return await runEnsure();
  if (word?.startsWith("-")) {
    return runCli(GUARD_CLI, args, () => {
      throw new Error("unreachable: an option with no subcommand is refused by the parser");
    }, IO);
  }
  // Even a misconfigured hook must not break the run: answer with no decision and say why on stderr.
  process.stderr.write(
    `fiable-guard: unknown event "${word ?? ""}"; answered {} (no decision). Use one of ${
      Object.keys(EVENTS).join(", ")
    }, or serve, up, settings, facts, ensure (see --help).\n`,
  );
  process.stdout.write("{}\n");
  return 0;
}
