/**
 * Replay recorded χ-Bench trials through the guard: `deno task replay <path>... [--arm A[,B]] [--rules ID,…]
 * [--out DIR] [--ledgers] [--json] [--by-packet] [--workers N]`. Writes summary.json (with per-packet
 * summaries) and the Parquet summary (verdicts.parquet among it), and with `--ledgers` one ledger per trial
 * and arm (≈ 240 MB for the ten leaderboard packets, so not by default), prints a table per arm
 * (fires in failed trials split in time / too late, the time-aware rescue estimate) and, when the trials span
 * several packets (or with --by-packet), one column per packet; with --json, the summary of the first arm. When the critic arm is
 * replayed, the critic judges' figures follow, overall and per packet. An unreadable trial is named as
 * aggregate names it (lib/results/trials.ts unreadableLine) and exits 1, the other trials' figures written
 * all the same.
 */
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { type Arm, ARMS } from "./lib/guard/engine/record.ts";
import type { FireCounts } from "./lib/trajectories/verdict.ts";
import {
  addCounts,
  completeShares,
  type NextCallCounts,
  nextCallCounts,
} from "./lib/trajectories/next_call.ts";
import {
  DEFAULT_ARMS,
  type PacketSummary,
  type ReplayReport,
  type ReplaySummary,
  replayTrees,
} from "./lib/trajectories/replay.ts";
import { columnarLine } from "./lib/results/columnar.ts";
import {
  type CommandSpec,
  idRanges,
  knownItems,
  parse,
  type Parsed,
  runCli,
  wholeNumber,
} from "./lib/cli.ts";
import { RULES } from "./rules/mod.ts";
import { formatJudgeReport, judgeReport, judgeReportByPacket } from "./lib/results/judge_figures.ts";
import { unreadableLine } from "./lib/results/trials.ts";
import { terminalProgress } from "./lib/progress.ts";
import { ensurePackages } from "./lib/packages.ts";

export { replayTrees };

/** The command line. */
export const CLI: CommandSpec = {
  name: "replay",
  summary:
    "Runs the guard over recorded trials (any harness, ATIF v1.2/1.5/1.7): what each rule would have " +
    "caught; `--by-packet` per packet, `--json`.",
  usage: [
    "deno task replay PATH... [--arm A[,B]] [--rules ID,…] [--out DIR] [--ledgers] [--json] [--by-packet]",
  ],
  options: {
    arm: {
      type: "string",
      value: "A[,B]",
      multiple: true,
      default: DEFAULT_ARMS.join(","),
      description: `arms to replay: ${ARMS.join(", ")}`,
    },
    rules: { type: "string", value: "ID,…", defaultNote: "all", description: "run only these rule IDs" },
    out: {
      type: "string",
      value: "DIR",
      defaultNote: "results/replay/<name>/",
      description: "summary.json and the Parquet summary (the ledgers too, with --ledgers)",
    },
    name: {
      type: "string",
      value: "NAME",
      defaultNote: "the path's base name",
      description: "the <name> in the default --out",
    },
    ledgers: {
      type: "boolean",
      description: "also keep each trial's ledger per arm in --out (the dashboard's replay overlay and\n" +
        "aggregate --ledgers read them; ≈ 170 KB a trial and arm on the leaderboard packets)",
    },
    "no-out": { type: "boolean", description: "write nothing" },
    "no-ledgers": { type: "boolean", description: "the former name of --no-out", hidden: true },
    json: {
      type: "boolean",
      description: "print the first arm's summary as JSON (other arms: summary.json)",
    },
    "by-packet": {
      type: "boolean",
      description: "report every packet (the folder holding results.csv/submission.json) on its own even\n" +
        'when there is one (it is shown for several anyway); with --json, adds "by_packet"',
    },
    workers: { type: "string", value: "N", defaultNote: "the core count", description: "worker threads" },
  },
  args: [{
    name: "PATH",
    description: "trial dirs, job dirs, submission packets or any tree holding them",
  }],
  notes: [
    "Exit codes: 0 every trial replayed, 1 a trial unreadable (the others are replayed and written all the " +
    "same) or none found, 2 bad usage.",
  ],
  example: "deno task replay runs/2026-06-01__stock --arm checklist,critic --by-packet",
};

const RULE_IDS = RULES.map((r) => r.meta.id);

/** Parsed command line. */
export interface ReplayArgs {
  paths: string[];
  arms: Arm[];
  rules?: string[];
  out: string | null;
  /** Keep the ledgers in `out` (--ledgers). */
  ledgers: boolean;
  json: boolean;
  byPacket: boolean;
  workers?: number;
}

/** Parses argv; throws a CliError whose message says what was wrong and what to do. */
export function parseArgs(args: string[]): ReplayArgs {
  return replayArgs(parse(CLI, args));
}

function replayArgs(p: Parsed): ReplayArgs {
  const paths = p.positionals;
  const arms: Arm[] = [];
  for (const arm of p.strings("arm").flatMap((a) => a.split(",")).filter(Boolean)) {
    if (!(ARMS as readonly string[]).includes(arm)) {
      throw p.error(`--arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`);
    }
    if (!arms.includes(arm as Arm)) arms.push(arm as Arm);
  }
  const workers = wholeNumber(p, "workers");
  if (!paths.length) throw p.error("no path given. Use deno task replay PATH... (see --help).");
  const missing = paths.find((path) => !existsSync(path));
  if (missing) throw p.error(`${missing} does not exist. Pass trial dirs, job dirs or packets.`);
  const label = p.string("name") ?? (paths.length === 1 ? basename(resolve(paths[0])) : "replay");
  const none = p.flag("no-out") || p.flag("no-ledgers");
  if (none && (p.given("out") || p.flag("ledgers"))) {
    throw p.error(`--no-out writes nothing, so --out and --ledgers mean nothing with it. Drop one of them.`);
  }
  const out = none ? null : p.string("out") ?? join("results", "replay", label);
  return {
    paths,
    arms,
    rules: knownItems(p, "rules", RULE_IDS, `${idRanges(RULE_IDS)} (rules/mod.ts)`),
    out,
    ledgers: p.flag("ledgers"),
    json: p.flag("json"),
    byPacket: p.flag("by-packet"),
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

/** A protector's by-packet cell: fires in failed / … in time / … too late / fires in passed. */
function cell(r: FireCounts): string {
  return `${r.fires_failed}/${r.in_time}/${r.too_late}/${r.fires_passed}`;
}

function rescueLine(s: ReplaySummary): string {
  const e = s.rescue_estimate;
  const any = s.rescue_ignoring_time;
  return `rescue estimate (blocks in time): upper ${e.upper}, strict ${e.strict} of ${s.failed} failed ` +
    `(counting blocks after the doom too: upper ${any.upper}, strict ${any.strict})`;
}

/** The human table for one arm. */
export function formatSummary(arm: Arm, s: ReplaySummary): string {
  const lines = [
    `arm ${arm}: ${counts(s)}`,
    "",
    "| rule | fires in failed | … protected check failed | … in time | … too late | fires in passed |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  const row = (label: string, r: FireCounts) =>
    lines.push(
      `| ${label} | ${pad(r.fires_failed, 3)} | ${pad(r.fires_failed_protected, 3)} | ${
        pad(r.in_time, 3)
      } | ` +
        `${pad(r.too_late, 3)} | ${pad(r.fires_passed, 3)} |`,
    );
  for (const [id, r] of Object.entries(s.by_rule)) row(id, r);
  row("closure gate", s.closure_gate);
  lines.push("");
  lines.push(`trials blocked: ${s.trials_blocked.failed} failed, ${s.trials_blocked.passed} passed`);
  lines.push(rescueLine(s));
  const next = nextCallTotal(s);
  if (next.complete + next.partial + next.none) lines.push(nextCallLine(next));
  const unseen = Object.entries(s.not_observable_fires ?? {});
  if (unseen.length) {
    lines.push(
      "not observable (would block on an id a saved oversized result may hold; the live guard reads the " +
        `file whole, replay only what the agent read; in no figure above): ${
          unseen.map(([id, n]) => `${id} in ${n.failed} failed / ${n.passed} passed`).join(", ")
        }`,
    );
  }
  return lines.join("\n");
}

/** Every protector's graded deny reasons summed. */
function nextCallTotal(s: ReplaySummary): NextCallCounts {
  const total = nextCallCounts();
  for (const n of Object.values(s.next_call ?? {})) addCounts(total, n);
  return total;
}

function percent(share: number | null): string {
  return share === null ? "·" : `${Math.round(100 * share)}%`;
}

function nextCallLine(n: NextCallCounts): string {
  const share = completeShares(n);
  return `next call named in deny reasons (and stop-gate obligations): ${n.complete} complete, ${n.partial} ` +
    `partial (${n.unheld} where the evidence held no id of the kind yet), ${n.none} none: ` +
    `${percent(share.all)} complete, ${percent(share.held)} where the evidence held the ids`;
}

/**
 * One arm, per protector and packet: its deny reasons (each stop block for an obligation) by how complete
 * the next call they name is, `complete/partial/none` (lib/trajectories/next_call.ts), then the share
 * complete, over all and where the evidence held the ids (partial reasons whose missing id the evidence
 * held no id of the kind of are left out of the second), per packet and over all.
 */
export function formatNextCalls(arm: Arm, packets: PacketSummary[]): string {
  const rows = packets.map((p) => ({ name: p.name, s: p.summary[arm]! })).filter((p) => p.s);
  const ids = [...new Set(rows.flatMap((p) => Object.keys(p.s.next_call ?? {})))].sort();
  const lines = [
    `arm ${arm}: next call in deny reasons by packet (cells: complete/partial/none; complete = the tool and ` +
    "every id it needs, each in the evidence)",
    "",
    `| protector | ${rows.map((_, i) => `P${i + 1}`).join(" | ")} | all | complete | … where held |`,
    `|---|${rows.map(() => "---:").join("|")}|---:|---:|---:|`,
  ];
  const cellOf = (n?: NextCallCounts) => n ? `${n.complete}/${n.partial}/${n.none}` : "·";
  for (const id of ids) {
    const all = nextCallCounts();
    for (const p of rows) if (p.s.next_call?.[id]) addCounts(all, p.s.next_call[id]);
    const share = completeShares(all);
    lines.push(
      `| ${id} | ${rows.map((p) => cellOf(p.s.next_call?.[id])).join(" | ")} | ${cellOf(all)} | ` +
        `${percent(share.all)} | ${percent(share.held)} |`,
    );
  }
  const totals = rows.map((p) => nextCallTotal(p.s));
  const all = nextCallCounts();
  for (const t of totals) addCounts(all, t);
  const share = completeShares(all);
  lines.push(
    `| all | ${totals.map(cellOf).join(" | ")} | ${cellOf(all)} | ${percent(share.all)} | ${
      percent(share.held)
    } |`,
  );
  lines.push(`| complete | ${totals.map((t) => percent(completeShares(t).all)).join(" | ")} | | | |`);
  lines.push(`| … where held | ${totals.map((t) => percent(completeShares(t).held)).join(" | ")} | | | |`);
  return lines.join("\n");
}

/**
 * One arm, one column per packet: each rule's fires as `failed/in time/too late/passed` (trials; in time +
 * too late = fires in failed trials with a protected check failed), then the gate, blocked trials and the
 * rescue estimate, so a rule that holds only on the packets it was tuned on, or whose blocks all come too
 * late, shows.
 */
export function formatByPacket(arm: Arm, packets: PacketSummary[]): string {
  const rows = packets.map((p) => ({ name: p.name, s: p.summary[arm]! })).filter((p) => p.s);
  const lines = [
    `arm ${arm} by packet (cells: fires in failed / … protected check failed, block in time / … too late / ` +
    "fires in passed):",
  ];
  rows.forEach((p, i) => lines.push(`  P${i + 1} ${p.name}: ${counts(p.s)}`));
  lines.push("", `| rule | ${rows.map((_, i) => `P${i + 1}`).join(" | ")} |`);
  lines.push(`|---|${rows.map(() => "---:").join("|")}|`);
  const ids = [...new Set(rows.flatMap((p) => Object.keys(p.s.by_rule)))].sort();
  for (const id of ids) {
    lines.push(`| ${id} | ${rows.map((p) => p.s.by_rule[id] ? cell(p.s.by_rule[id]) : "·").join(" | ")} |`);
  }
  const row = (label: string, value: (s: ReplaySummary) => string) =>
    lines.push(`| ${label} | ${rows.map((p) => value(p.s)).join(" | ")} |`);
  row("closure gate", (s) => cell(s.closure_gate));
  row("trials blocked (failed/passed)", (s) => `${s.trials_blocked.failed}/${s.trials_blocked.passed}`);
  row("rescue in time (upper, strict)", (s) => `${s.rescue_estimate.upper}, ${s.rescue_estimate.strict}`);
  row(
    "… counting late blocks too",
    (s) => `${s.rescue_ignoring_time.upper}, ${s.rescue_ignoring_time.strict}`,
  );
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
  parts.push(...report.arms.map((arm) => formatNextCalls(arm, report.packets)));
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
        report.unreadable.map((u) => `  ${unreadableLine(u)}`).join("\n"),
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

/** Entry: returns the exit status (1 when a trial is unreadable or none is found, 2 on bad arguments). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(replayArgs(p)));
}

async function run(parsed: ReplayArgs): Promise<number> {
  const report = await replayTrees(parsed.paths, {
    ...parsed,
    onProgress: terminalProgress("replay", "trials"),
  });
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
    if (parsed.out) {
      console.log(
        parsed.ledgers
          ? `\nledgers, summary.json and the Parquet summary: ${parsed.out}`
          : `\nsummary.json and the Parquet summary: ${parsed.out} (no ledgers: --ledgers keeps them for the ` +
            "dashboard's replay overlay and aggregate --ledgers)",
      );
    }
  }
  if (report.columnar) (parsed.json ? console.error : console.log)(columnarLine(report.columnar));
  for (const u of report.unreadable) if (parsed.json) console.error(unreadableLine(u));
  return report.trials.length && !report.unreadable.length ? 0 : 1;
}

if (import.meta.main) {
  await ensurePackages(import.meta.url);
  Deno.exit(await main(Deno.args));
}
