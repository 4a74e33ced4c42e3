/**
 * Rule regression on real packets: replays every trial through the guard (lib/trajectories/replay.ts, checklist arm)
 * and compares what it catches with a committed baseline. A catch is a rule, or the closure gate, that fired
 * in a failed trial where a check it protects failed, at or before that check's doom (lib/trajectories/doom.ts:
 * in time, lib/trajectories/verdict.ts); a fire after the doom is recorded as too late, not as a catch. A
 * rule change that loses one of the baseline's catches is a regression. Fires in passing trials are listed
 * per packet.
 *
 *   deno run -A scripts/rule_regression.ts [roots…] [--baseline FILE] [--write] [--headers] [--json]
 *
 * Roots default to ../shared/leaderboard (the 300 trials the rules were tuned on) and, when present and not
 * writing, ../shared/leaderboard-extra; the baseline to tests/support/rule_baseline.json. `--write` records the
 * current catches as the new baseline (do it only on a commit whose rules you want to hold later ones to).
 * `--headers` rewrites each rule file's "Fires in passing trials" sentence from the replay. Exits 1 when a
 * baseline catch is lost.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Arm } from "../lib/guard/engine/record.ts";
import { packetName, type ReplayReport, replayTrees } from "../lib/trajectories/replay.ts";
import { armVerdict } from "../lib/trajectories/verdict.ts";
import { RULES } from "../rules/mod.ts";
import { type CommandSpec, type Parsed, runCli } from "../lib/cli.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
/** The tuning packets beside the repository. */
export const TUNING = join(ROOT, "..", "shared", "leaderboard");
/** The packets the rules were not tuned on, beside the repository. */
export const EXTRA = join(ROOT, "..", "shared", "leaderboard-extra");
/** The committed baseline. */
export const BASELINE = join(ROOT, "tests", "support", "rule_baseline.json");
const ARM: Arm = "checklist";

/** One trial in a snapshot: its verdict, the rules that fired, the catches and the fires too late (see the header). */
export interface TrialFires {
  passed: boolean;
  fires: string[];
  caught: string[];
  late: string[];
}

/** Per-trial fires keyed `<packet>/<domain>/<trial>`, with the arm they were replayed on. */
export interface Snapshot {
  arm: Arm;
  trials: Record<string, TrialFires>;
}

/** The closure gate's row name in a snapshot. */
export const CLOSURE = "closure";

/** The snapshot of a replay report: every observable trial's fires, catches and late fires on the arm. */
export function snapshot(report: ReplayReport, arm: Arm = ARM): Snapshot {
  const trials: Record<string, TrialFires> = {};
  for (const t of report.trials) {
    const v = armVerdict(t, arm);
    if (!v) continue;
    const fires = Object.entries(v.rules).sort(([a], [b]) => a.localeCompare(b));
    if (v.gate) fires.push([CLOSURE, v.gate]);
    trials[`${packetName(t.packet ?? "")}/${t.domain}/${t.name}`] = {
      passed: t.passed,
      fires: fires.map(([id]) => id),
      caught: fires.filter(([, f]) => f.timing === "in time").map(([id]) => id),
      late: fires.filter(([, f]) => f.timing === "too late").map(([id]) => id),
    };
  }
  return { arm, trials: Object.fromEntries(Object.entries(trials).sort(([a], [b]) => a.localeCompare(b))) };
}

/** Catches in the baseline that the current snapshot no longer has (a trial missing from it loses all). */
export function lostCatches(baseline: Snapshot, current: Snapshot): { trial: string; rule: string }[] {
  const lost: { trial: string; rule: string }[] = [];
  for (const [trial, base] of Object.entries(baseline.trials)) {
    const now = new Set(current.trials[trial]?.caught ?? []);
    for (const rule of base.caught) if (!now.has(rule)) lost.push({ trial, rule });
  }
  return lost;
}

/** Fires in passing trials, per rule: the trials. */
export function passingFires(snap: Snapshot): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [trial, t] of Object.entries(snap.trials)) {
    if (!t.passed) continue;
    for (const rule of t.fires) (out[rule] ??= []).push(trial);
  }
  return out;
}

/**
 * A snapshot as JSON text, one trial per line: `"<trial>": "failed PP-05* UM-09 PP-03~"` (a `*` marks a
 * catch, a `~` a fire too late to catch). Strings keep `deno fmt` from spreading each trial over five lines.
 */
export function snapshotJson(snap: Snapshot): string {
  const rows = Object.entries(snap.trials).map(([k, t]) => {
    const fires = t.fires.map((f) => t.caught.includes(f) ? `${f}*` : t.late.includes(f) ? `${f}~` : f);
    return `    ${JSON.stringify(k)}: ${
      JSON.stringify([t.passed ? "passed" : "failed", ...fires].join(" "))
    }`;
  });
  return `{\n  "arm": ${JSON.stringify(snap.arm)},\n  "trials": {\n${rows.join(",\n")}\n  }\n}\n`;
}

/** Fires too late, per rule: the failed trials. */
export function lateFires(snap: Snapshot): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [trial, t] of Object.entries(snap.trials)) {
    for (const rule of t.late) (out[rule] ??= []).push(trial);
  }
  return out;
}

/** Per rule, the passing trials it fired in, counted per packet (the first part of a snapshot key). */
export function passingByPacket(snap: Snapshot): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [rule, trials] of Object.entries(passingFires(snap))) {
    const row = out[rule] = {} as Record<string, number>;
    for (const trial of trials) row[trial.split("/")[0]] = (row[trial.split("/")[0]] ?? 0) + 1;
  }
  return out;
}

/** The sentence a rule's header states its measured passing-trial fires in (one per rule, kept current). */
export function passingSentence(counts: Record<string, number> | undefined, report: ReplayReport): string {
  const list = Object.entries(counts ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([p, n]) =>
    `${p} ${n}`
  );
  const trials = report.trials.length + report.unreadable.length;
  return `Fires in passing trials (replay, checklist arm, ${report.packets.length} packets, ${trials} trials): ` +
    `${list.length ? list.join(", ") : "none"}.`;
}

/** A rule file's header (its first JSDoc block) as one line of text. */
export function headerText(source: string): string {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  return (m?.[1] ?? "").split("\n").map((l) => l.replace(/^\s*\* ?/, "").trim()).filter(Boolean).join(" ");
}

const SENTENCE = /\n \* Fires in passing trials \([^)]*\):[\s\S]*?\.(?=\n)/;

/** The source with its header's passing-fires sentence replaced (or added last), wrapped at 110 columns. */
export function withSentence(source: string, sentence: string): string {
  const lines: string[] = [];
  for (const word of sentence.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && (last + " " + word).length <= 110) lines[lines.length - 1] = last + " " + word;
    else lines.push((lines.length ? " *   " : " * ") + word);
  }
  const block = "\n" + lines.join("\n");
  if (SENTENCE.test(source)) return source.replace(SENTENCE, block);
  const end = source.indexOf("\n */");
  return source.slice(0, end) + block + source.slice(end);
}

/** The file of a rule, by its kebab-case name. */
export function ruleFile(name: string): string {
  return join(ROOT, "rules", `${name.replaceAll("-", "_")}.ts`);
}

/** Reads a snapshot file (the snapshotJson form); throws with what is wrong and how to make one. */
export function readSnapshot(path: string): Snapshot {
  let data: { arm?: Arm; trials?: Record<string, string> };
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(
      `Cannot read the baseline ${path}: ${(err as Error).message}. ` +
        "Write one with deno run -A scripts/rule_regression.ts --write.",
    );
  }
  if (!data || !data.trials || typeof data.trials !== "object") {
    throw new Error(`Cannot read the baseline ${path}: it has no "trials" object. Rewrite it with --write.`);
  }
  const trials: Record<string, TrialFires> = {};
  for (const [key, row] of Object.entries(data.trials)) {
    const [verdict, ...fires] = String(row).split(" ").filter(Boolean);
    trials[key] = {
      passed: verdict === "passed",
      fires: fires.map((f) => f.replace(/[*~]$/, "")),
      caught: fires.filter((f) => f.endsWith("*")).map((f) => f.slice(0, -1)),
      late: fires.filter((f) => f.endsWith("~")).map((f) => f.slice(0, -1)),
    };
  }
  return { arm: data.arm ?? ARM, trials };
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "rule_regression",
  summary: "Replays the real packets: the tuning trials keep every baseline catch; passing-trial fires per " +
    "rule (`--headers` writes them).",
  usage: ["deno run -A scripts/rule_regression.ts [roots…] [--baseline FILE] [--write] [--headers] [--json]"],
  options: {
    baseline: {
      type: "string",
      value: "FILE",
      default: "tests/support/rule_baseline.json",
      description: "the committed catches to hold the replay to",
    },
    write: { type: "boolean", description: "record the current catches as the new baseline" },
    headers: { type: "boolean", description: "rewrite each rule file's passing-trial fires sentence" },
    json: { type: "boolean", description: "lost catches and passing fires as JSON" },
  },
  args: [{
    name: "roots",
    description:
      "packets or trial roots (default: the tuning packets in ../shared/leaderboard and, unless\n" +
      "writing, ../shared/leaderboard-extra when present)",
  }],
  notes: ["Exit codes: 0 every baseline catch kept, 1 a catch lost or a root missing, 2 bad usage."],
  example: "deno run -A scripts/rule_regression.ts --json",
};

/** Entry: replay the roots, compare with the baseline (or write it); exit 1 on a lost catch. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, regress);
}

async function regress(p: Parsed): Promise<number> {
  const json = p.flag("json");
  const write = p.flag("write");
  const baselinePath = p.given("baseline") ? p.string("baseline")! : BASELINE;
  const roots = [...p.positionals];
  if (!roots.length) roots.push(TUNING, ...(existsSync(EXTRA) && !write ? [EXTRA] : []));
  for (const r of roots) {
    if (!existsSync(r)) {
      console.error(`Cannot replay ${r}: no such directory. Pass a packet or trials root.`);
      return 1;
    }
  }
  const report = await replayTrees(roots, { arms: [ARM], out: null });
  const current = snapshot(report);
  if (p.flag("headers")) {
    const passing = passingByPacket(current);
    for (const rule of RULES) {
      const file = ruleFile(rule.meta.name);
      const source = readFileSync(file, "utf8");
      const next = withSentence(source, passingSentence(passing[rule.meta.id], report));
      if (next !== source) writeFileSync(file, next);
    }
    console.log(`rule headers: passing-trial fires written from ${report.trials.length} trials`);
  }
  if (write) {
    writeFileSync(baselinePath, snapshotJson(current));
    const caught = Object.values(current.trials).reduce((n, t) => n + t.caught.length, 0);
    console.log(`wrote ${baselinePath}: ${Object.keys(current.trials).length} trials, ${caught} catches`);
    return 0;
  }
  const baseline = readSnapshot(baselinePath);
  const lost = lostCatches(baseline, current);
  const passing = passingFires(current);
  const late = lateFires(current);
  if (json) {
    console.log(JSON.stringify({ lost, passing, late }, null, 1));
  } else {
    const count = (s: Snapshot) => Object.values(s.trials).reduce((n, t) => n + t.caught.length, 0);
    console.log(
      `catches in failed trials (blocks in time): baseline ${count(baseline)}, now ${count(current)}`,
    );
    console.log(lost.length ? `LOST (${lost.length}):` : "lost: none");
    for (const l of lost) console.log(`  ${l.rule}  ${l.trial}`);
    console.log("fires too late (after the doom of a check they protect; not catches):");
    for (const [rule, trials] of Object.entries(late).sort()) {
      console.log(`  ${rule} ×${trials.length}: ${trials.join(", ")}`);
    }
    console.log("fires in passing trials:");
    for (const [rule, trials] of Object.entries(passing).sort()) {
      console.log(`  ${rule} ×${trials.length}: ${trials.join(", ")}`);
    }
  }
  return lost.length ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
