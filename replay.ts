/**
 * Replay recorded χ-Bench trials through the guard: `deno task replay <path>... [--arm A[,B]] [--rules ID,…]
 * [--out DIR] [--json] [--by-packet] [--workers N]`. Writes one ledger per trial and arm plus summary.json
 * (with per-packet summaries), prints a table per arm and, when the trials span several packets (or with
 * --by-packet), one column per packet; with --json, the summary of the first arm. When the critic arm is
 * replayed, the critic judges' figures follow, overall and per packet. Exits 1 only when nothing could be
 * read.
 */
import { basename, join, resolve } from "node:path";
import { type Arm, ARMS } from "./lib/guard/ledger.ts";
import {
  DEFAULT_ARMS,
  type PacketSummary,
  type ReplayReport,
  type ReplaySummary,
  replayTrees,
} from "./lib/trajectories/replay.ts";
import { columnarLine } from "./lib/results/columnar.ts";
import { formatJudgeReport, judgeReport, judgeReportByPacket } from "./lib/results/judge_figures.ts";

export { replayTrees };

const USAGE = `Usage: deno task replay <path>... [options]
  <path>           trial dirs, job dirs, submission packets or any tree holding them
  --arm A[,B]      arms to replay (repeatable): ${ARMS.join(", ")}; default ${DEFAULT_ARMS.join(",")}
  --rules ID,…     run only these rule IDs (default: all)
  --out DIR        ledgers and summary.json; default results/replay/<name>/
  --name NAME      the <name> in the default --out (default: the path's base name)
  --no-ledgers     write nothing
  --json           print the first arm's summary as JSON (other arms: summary.json)
  --by-packet      report every packet (the folder holding results.csv/submission.json) on its own even
                   when there is one (it is shown for several anyway); with --json, adds "by_packet"
  --workers N      worker threads (default: the core count)`;

/** Parsed command line. */
export interface ReplayArgs {
  paths: string[];
  arms: Arm[];
  rules?: string[];
  out: string | null;
  json: boolean;
  byPacket: boolean;
  workers?: number;
}

/** Parses argv; throws an Error whose message says what was wrong and what to do. */
export function parseArgs(args: string[]): ReplayArgs {
  const paths: string[] = [];
  const arms: Arm[] = [];
  let rules: string[] | undefined;
  let out: string | null | undefined;
  let name: string | undefined;
  let json = false;
  let byPacket = false;
  let workers: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => {
      const v = args[++i];
      if (v === undefined || v.startsWith("--")) {
        throw new Error(`Cannot replay: ${a} needs a value.\n${USAGE}`);
      }
      return v;
    };
    if (a === "--arm") {
      for (const arm of value().split(",").filter(Boolean)) {
        if (!(ARMS as readonly string[]).includes(arm)) {
          throw new Error(`Cannot replay: --arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`);
        }
        if (!arms.includes(arm as Arm)) arms.push(arm as Arm);
      }
    } else if (a === "--rules") rules = value().split(",").filter(Boolean);
    else if (a === "--out") out = value();
    else if (a === "--name") name = value();
    else if (a === "--no-ledgers") out = null;
    else if (a === "--json") json = true;
    else if (a === "--by-packet") byPacket = true;
    else if (a === "--workers") {
      workers = Number(value());
      if (!Number.isInteger(workers) || workers < 0) {
        throw new Error(`Cannot replay: --workers "${args[i]}" is not a whole number. Use e.g. --workers 2.`);
      }
    } else if (a === "--help" || a === "-h") throw new Error(USAGE);
    else if (a.startsWith("--")) throw new Error(`Cannot replay: option ${a} is unknown.\n${USAGE}`);
    else paths.push(a);
  }
  if (!paths.length) throw new Error(`Cannot replay: no path given.\n${USAGE}`);
  const label = name ?? (paths.length === 1 ? basename(resolve(paths[0])) : "replay");
  return {
    paths,
    arms: arms.length ? arms : [...DEFAULT_ARMS],
    rules,
    out: out === undefined ? join("results", "replay", label) : out,
    json,
    byPacket,
    workers,
  };
}

function pad(value: string | number, width: number): string {
  return String(value).padStart(width);
}

function counts(s: ReplaySummary): string {
  return `${s.trials} trials, ${s.passed} passed, ${s.failed} failed, ${s.unreadable} unreadable, ` +
    `${s.not_observable} not observable`;
}

/** The human table for one arm. */
export function formatSummary(arm: Arm, s: ReplaySummary): string {
  const lines = [
    `arm ${arm}: ${counts(s)}`,
    "",
    "| rule | fires in failed | … protected check failed | fires in passed |",
    "|---|---:|---:|---:|",
  ];
  for (const [id, r] of Object.entries(s.by_rule)) {
    lines.push(
      `| ${id} | ${pad(r.fires_failed, 3)} | ${pad(r.fires_failed_protected, 3)} | ${
        pad(r.fires_passed, 3)
      } |`,
    );
  }
  const c = s.closure_gate;
  lines.push(`| closure gate | ${pad(c.fires_failed, 3)} | | ${pad(c.fires_passed, 3)} |`);
  lines.push("");
  lines.push(`trials blocked: ${s.trials_blocked.failed} failed, ${s.trials_blocked.passed} passed`);
  lines.push(
    `rescue estimate: upper ${s.rescue_estimate.upper}, strict ${s.rescue_estimate.strict} of ${s.failed} failed`,
  );
  return lines.join("\n");
}

/**
 * One arm, one column per packet: each rule's fires as `failed/protected/passed` (trials), then the gate,
 * blocked trials and the rescue bound, so a rule that holds only on the packets it was tuned on shows.
 */
export function formatByPacket(arm: Arm, packets: PacketSummary[]): string {
  const rows = packets.map((p) => ({ name: p.name, s: p.summary[arm]! })).filter((p) => p.s);
  const lines = [
    `arm ${arm} by packet (cells: fires in failed / … protected check failed / fires in passed):`,
  ];
  rows.forEach((p, i) => lines.push(`  P${i + 1} ${p.name}: ${counts(p.s)}`));
  lines.push("", `| rule | ${rows.map((_, i) => `P${i + 1}`).join(" | ")} |`);
  lines.push(`|---|${rows.map(() => "---:").join("|")}|`);
  const ids = [...new Set(rows.flatMap((p) => Object.keys(p.s.by_rule)))].sort();
  for (const id of ids) {
    const cells = rows.map((p) => {
      const r = p.s.by_rule[id];
      return r ? `${r.fires_failed}/${r.fires_failed_protected}/${r.fires_passed}` : "·";
    });
    lines.push(`| ${id} | ${cells.join(" | ")} |`);
  }
  const row = (label: string, cell: (s: ReplaySummary) => string) =>
    lines.push(`| ${label} | ${rows.map((p) => cell(p.s)).join(" | ")} |`);
  row("closure gate", (s) => `${s.closure_gate.fires_failed}/–/${s.closure_gate.fires_passed}`);
  row("trials blocked", (s) => `${s.trials_blocked.failed}/–/${s.trials_blocked.passed}`);
  row("rescue upper, strict", (s) => `${s.rescue_estimate.upper}, ${s.rescue_estimate.strict}`);
  return lines.join("\n");
}

/**
 * The full human report: a table per arm, then per packet (for several packets, or with `byPacket`), then
 * the trials that were not observable or not readable, and unresolved codex arguments.
 */
export function formatReport(report: ReplayReport, opts: { byPacket?: boolean } = {}): string {
  const parts = report.arms.map((arm) => formatSummary(arm, report.summary[arm]!));
  if (opts.byPacket || report.packets.length > 1) {
    parts.push(...report.arms.map((arm) => formatByPacket(arm, report.packets)));
  }
  const hidden = report.trials.filter((t) => t.observable === false);
  if (hidden.length) {
    parts.push(
      `not observable (${hidden.length}; counted in no fire, block or rescue figure):\n` +
        hidden.map((t) => `  ${t.name}: ${t.unobservable}`).join("\n"),
    );
  }
  if (report.unreadable.length) {
    parts.push(
      `unreadable (${report.unreadable.length}):\n` +
        report.unreadable.map((u) => `  ${u.path}: ${u.reason}`).join("\n"),
    );
  }
  const unresolved = report.trials.flatMap((t) => t.unresolved.map((u) => ({ trial: t.name, ...u })));
  if (unresolved.length) {
    parts.push(
      `codex calls with unresolved arguments (${unresolved.length}; rules see {__unresolved__: expr}):\n` +
        unresolved.map((u) => `  ${u.trial} step ${u.step} ${u.tool}: ${u.values.join("; ")}`).join("\n"),
    );
  }
  return parts.join("\n\n");
}

/** Entry: returns the exit status (1 only when nothing could be read, or on bad arguments). */
export async function main(args: string[]): Promise<number> {
  let parsed: ReplayArgs;
  try {
    parsed = parseArgs(args);
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  const report = await replayTrees(parsed.paths, parsed);
  if (!report.trials.length && !report.unreadable.length) {
    console.error(
      `Cannot replay ${parsed.paths.join(", ")}: no trial found below them. ` +
        "Pass trial dirs, job dirs or packets (a trial has result.json, verifier/ or agent/trajectory.*).",
    );
    return 1;
  }
  if (parsed.json) {
    const arm = parsed.arms[0];
    const byPacket = Object.fromEntries(report.packets.map((p) => [p.name, p.summary[arm]]));
    console.log(
      JSON.stringify({ ...report.summary[arm], ...(parsed.byPacket ? { by_packet: byPacket } : {}) }),
    );
    if (parsed.arms.length > 1) {
      console.error(
        `replay: --json shows arm ${parsed.arms[0]}; ` +
          (parsed.out
            ? `every arm is in ${join(parsed.out, "summary.json")}`
            : "pass --arm to choose another"),
      );
    }
  } else {
    console.log(formatReport(report, { byPacket: parsed.byPacket }));
    if (parsed.arms.includes("critic")) {
      console.log(`\n${formatJudgeReport(judgeReport(report.trials), judgeReportByPacket(report.trials))}`);
    }
    if (parsed.out) console.log(`\nledgers and summary.json: ${parsed.out}`);
  }
  if (report.columnar) (parsed.json ? console.error : console.log)(columnarLine(report.columnar));
  for (const u of report.unreadable) if (parsed.json) console.error(`unreadable: ${u.path}: ${u.reason}`);
  return report.trials.length ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
