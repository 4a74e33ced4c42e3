/**
 * Run integrity over trial trees (verify.ts): every trial's integrity (lib/results/integrity.ts) from its dir
 * (lib/results/trial_facts.ts), grouped into arms by the arm each trial ran, plus bad input (lib/results/trials.ts) and
 * packets that contradict themselves (lib/results/packet.ts). Renders one line per problem and a summary table.
 */
import { basename, relative, resolve, sep } from "node:path";
import {
  type ArmIntegrity,
  armIntegrity,
  tamperLine,
  trialArmLabel,
  type TrialIntegrity,
  trialIntegrity,
} from "./integrity.ts";
import type { Prices } from "./cost.ts";
import { packetProblemsUnder } from "./packet.ts";
import { readFacts } from "./trial_facts.ts";
import { findTrials, readTrial, type TrialSummary } from "./trials.ts";
import { exitCode, isWarning, type ProblemKind } from "./severity.ts";

/** One arm as verify found it. */
export interface VerifiedArm {
  name: string;
  kind: "guarded" | "stock" | "unguarded" | "mixed";
  integrity: ArmIntegrity;
  trials: TrialIntegrity[];
  verdict: "ok" | "fail" | "n/a";
}

/** Everything verify found: arms, and every problem with its group and path. */
export interface VerifyReport {
  roots: string[];
  arms: VerifiedArm[];
  /** Failures and warnings alike; `kind` tells them apart (lib/results/severity.ts). */
  problems: { arm: string; path: string; message: string; kind: ProblemKind }[];
}

/** The group of an unguarded trial: the packet folder it sits in (the root itself, or its first folder). */
function packetGroup(root: string, dir: string): string {
  const rel = relative(resolve(root), resolve(dir));
  const first = rel.split(sep)[0];
  return !first || first === "trials" || first === basename(dir) ? basename(resolve(root)) : first;
}

/** Verifies every trial below the roots. */
export function verifyTrees(roots: string[], opts: { prices?: Prices } = {}): VerifyReport {
  const problems: VerifyReport["problems"] = [];
  const groups = new Map<string, TrialIntegrity[]>();
  const summaries: TrialSummary[] = [];
  for (const root of roots) {
    const refs = findTrials([root]);
    if (!refs.length) {
      problems.push({
        arm: "-",
        path: root,
        message: `Cannot find trials below ${root}: no result.json, verifier/, config.json or trajectory.`,
        kind: "input",
      });
    }
    for (const ref of refs) {
      const summary = readTrial(ref);
      summaries.push(summary);
      const t = trialIntegrity(readFacts(ref));
      t.problems.unshift(...summary.problems);
      if (t.problems.length) t.verdict = "fail";
      const name = t.kind === "unguarded" ? packetGroup(root, ref.dir) : trialArmLabel(t);
      groups.set(name, [...(groups.get(name) ?? []), t]);
    }
  }
  const arms: VerifiedArm[] = [...groups].sort(([a], [b]) => a < b ? -1 : 1).map(([name, trials]) => {
    const integrity = armIntegrity(trials);
    const kinds = new Set(trials.map((t) => t.kind));
    const kind = kinds.size > 1 ? "mixed" : [...kinds][0];
    for (const message of integrity.problems) {
      const owner = trials.find((t) => t.problems.includes(message));
      problems.push({ arm: name, path: owner?.dir ?? name, message, kind: "integrity" });
    }
    for (const message of integrity.warnings) problems.push({ arm: name, path: name, message, kind: "mix" });
    const failed = integrity.marked || integrity.problems.length > 0;
    return { name, kind, integrity, trials, verdict: failed ? "fail" : kind === "unguarded" ? "n/a" : "ok" };
  });
  for (const p of packetProblemsUnder(roots, summaries, opts.prices ?? {})) {
    problems.push({ arm: "packet", ...p, kind: "packet" });
  }
  return { roots, arms, problems };
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

function kv(record: Record<string, number>): string {
  return Object.entries(record).sort().map(([k, v]) => `${k}:${v}`).join(" ") || "-";
}

/**
 * The report as text: one line per problem, one per trial where the guard met tampering (refused or found:
 * `NOTE [arm] dir: tampering attempted: 2 (GUARD-01 refused 2)`), then one row per arm (and per trial with
 * `trials`).
 */
export function renderVerify(report: VerifyReport, opts: { trials?: boolean } = {}): string[] {
  const out = report.problems.map((p) => `${isWarning(p) ? "WARN" : "FAIL"} [${p.arm}] ${p.message}`);
  for (const a of report.arms) {
    for (const t of a.trials) {
      const line = tamperLine(t.tamper);
      if (line) out.push(`NOTE [${a.name}] ${t.dir}: ${line}`);
    }
  }
  if (out.length) out.push("");
  const cov = (x: number | null) => x === null ? "-" : `${(100 * x).toFixed(1)}%`;
  const rows = report.arms.map((a) => {
    const i = a.integrity;
    const guarded = a.kind === "guarded" || a.kind === "mixed";
    return [
      a.name,
      a.kind,
      String(i.trials),
      String(i.with_ledger),
      guarded ? `${i.full_coverage}/${i.full_coverage + i.below_coverage}` : "-",
      cov(i.coverage_min),
      kv(i.hook_modes),
      guarded ? String(i.plan_injected) : "-",
      i.errors_per_100_calls === null
        ? "-"
        : i.errors_per_100_calls.toFixed(2) + (i.errors_flag ? " FLAG" : ""),
      `${i.gaps}/${i.restarts}`,
      String(i.stop_blocks),
      guarded ? `${i.tampered}/${i.tamper_attempts}` : "-",
      guarded ? kv(i.endings) : "-",
      a.verdict === "fail" ? "FAIL" : a.verdict,
    ];
  });
  out.push(
    ...table([
      "arm",
      "kind",
      "trials",
      "ledger",
      "full coverage",
      "min coverage",
      "hooks",
      "plan",
      "errors/100 calls",
      "gaps/restarts",
      "stop blocks",
      "tampered/attempts",
      "endings",
      "verdict",
    ], rows),
  );
  if (opts.trials) {
    out.push("");
    const trialRows = report.arms.flatMap((a) =>
      a.trials.map((t) => [
        a.name,
        t.dir,
        t.kind,
        t.hooks,
        t.tool_calls === null ? "-" : String(t.tool_calls),
        cov(t.coverage),
        t.match ?? "-",
        t.plan_injected === null ? "-" : t.plan_injected ? "yes" : "no",
        String(t.fail_open_errors),
        t.ending ?? "-",
        t.source ?? "-",
        t.tamper.tampered ? "TAMPERED" : String(t.tamper.refused + t.tamper.reported),
        t.verdict === "fail" ? "FAIL" : t.verdict,
      ])
    );
    out.push(
      ...table(
        [
          "arm",
          "trial",
          "kind",
          "hooks",
          "χ calls",
          "coverage",
          "matched by",
          "plan",
          "errors",
          "ending",
          "evidence",
          "tamper",
          "verdict",
        ],
        trialRows,
      ),
    );
  }
  const proof = provenLine(report.arms.map((a) => a.integrity));
  if (proof) out.push("", proof);
  const failures = report.problems.filter((p) => !isWarning(p)).length;
  const warnings = report.problems.length - failures;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const warned = warnings
    ? ` ${plural(warnings, "warning")} (WARN: not the guard's; they fail verify only with --strict).`
    : "";
  const trials = report.arms.flatMap((a) => a.trials);
  const guarded = trials.filter((t) => t.kind === "guarded").length;
  const stock = trials.filter((t) => t.kind === "stock").length;
  out.push(
    "",
    failures || report.arms.some((a) => a.verdict === "fail")
      ? `verify: ${plural(failures, "problem")}. Do not compare these arms until each is fixed.${warned}`
      : guarded === 0
      ? `verify: 0 guarded trials: nothing to prove; ${
        stock
          ? `${plural(stock, "stock trial")} ran without hooks`
          : `${plural(trials.length, "trial")} read, none run with the guard`
      }.${warned}`
      : `verify: ${plural(report.arms.length, "arm")}, no guard-integrity problem.${warned}`,
  );
  return out;
}

/**
 * How many guarded trials proved the guard, and from where: `guarded: 12 of 12 trials proven (from
 * result.json)`; null when no trial was guarded.
 */
export function provenLine(arms: readonly ArmIntegrity[]): string | null {
  const guarded = arms.reduce((n, a) => n + a.guarded, 0);
  if (!guarded) return null;
  const by = { ledger: 0, "result.json": 0 };
  for (const a of arms) for (const [k, n] of Object.entries(a.proven)) by[k as keyof typeof by] += n ?? 0;
  const proven = by.ledger + by["result.json"];
  const from = by.ledger && by["result.json"]
    ? `${by.ledger} from ledgers, ${by["result.json"]} from result.json`
    : by.ledger
    ? "from ledgers"
    : by["result.json"]
    ? "from result.json"
    : "";
  return `guarded: ${proven} of ${guarded} trial${guarded === 1 ? "" : "s"} proven${
    from ? ` (${from})` : ""
  }`;
}

/** True when the report has no failure and no marked arm (and, with `strict`, no warning either). */
export function verified(report: VerifyReport, opts: { strict?: boolean } = {}): boolean {
  return exitCode(report.problems, opts.strict) === 0 && report.arms.every((a) => a.verdict !== "fail");
}
