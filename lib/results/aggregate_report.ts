/**
 * Renders an AggregateResult: a CSV whose first columns are exactly the leaderboard's results.csv columns,
 * and a Markdown summary that lists every figure's basis, comparison, guard count and input problem.
 */
import type { AggregateResult, Comparison, Problem, Row } from "./aggregate.ts";
import { isWarning } from "./severity.ts";
import type { ArmIntegrity } from "./integrity.ts";
import type { Estimate } from "./stats.ts";
import { RECIPE_NOTES } from "./cost.ts";
import { pointsInterval } from "./points.ts";

/** The leaderboard's results.csv columns, in order (harness.md §5.2), without `submitted_at`. */
export const LEADERBOARD_COLUMNS = [
  "benchmark",
  "dataset_version",
  "submission_id",
  "team",
  "agent",
  "model",
  "domain",
  "pass_at_1",
  "n_trials",
  "n_tasks",
  "mean_cost_usd",
  "mean_walltime_s",
] as const;

/** A number as Python's repr writes it for a float column (`0.0`, `0.2`), or empty for unknown. */
export function pyFloat(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "";
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function cell(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function maxK(result: AggregateResult): number {
  return result.rows.reduce((m, r) => Math.max(m, r.pass_hat_k.length), 0);
}

function comparisonOf(result: AggregateResult, row: Row): Comparison | undefined {
  return result.comparisons.find((c) => c.arm === row.arm && c.domain === row.domain);
}

function kv(record: Record<string, number>): string {
  return Object.entries(record).sort().map(([k, v]) => `${k}:${v}`).join(";");
}

/** The run-integrity columns at the end of each CSV row (empty when trajectories were not read). */
export const INTEGRITY_COLUMNS = [
  "integrity_trials",
  "integrity_with_ledger",
  "integrity_without_ledger",
  "integrity_full_coverage",
  "integrity_below_coverage",
  "integrity_coverage_min",
  "integrity_hook_modes",
  "integrity_fail_open_errors",
  "integrity_tool_calls",
  "integrity_errors_per_100_calls",
  "integrity_errors_flag",
  "integrity_gaps",
  "integrity_restarts",
  "integrity_plan_injected",
  "integrity_stop_blocks",
  "integrity_tampered",
  "integrity_tamper_attempts",
  "integrity_marked",
  "integrity_problems",
] as const;

function integrityCells(i: ArmIntegrity | null): string[] {
  if (!i) return INTEGRITY_COLUMNS.map(() => "");
  return [
    String(i.trials),
    String(i.with_ledger),
    String(i.without_ledger),
    String(i.full_coverage),
    String(i.below_coverage),
    pyFloat(i.coverage_min),
    kv(i.hook_modes),
    String(i.fail_open_errors),
    String(i.tool_calls),
    pyFloat(i.errors_per_100_calls),
    String(i.errors_flag),
    String(i.gaps),
    String(i.restarts),
    String(i.plan_injected),
    String(i.stop_blocks),
    String(i.tampered ?? 0),
    String(i.tamper_attempts ?? 0),
    String(i.marked),
    String(i.problems.length),
  ];
}

/** The CSV header and rows: leaderboard columns first, then the extra figures. */
export function csvTable(result: AggregateResult): string[][] {
  const K = maxK(result);
  const ks = Array.from({ length: Math.max(0, K - 1) }, (_, i) => i + 2);
  const header: string[] = [
    ...LEADERBOARD_COLUMNS,
    "arm",
    "recipe",
    "n_passed",
    "pass_at_1_lo",
    "pass_at_1_hi",
    "n_unscored",
    "n_unreadable",
    "n_problems",
    "n_cost_known",
    "unpriced_models",
    "mean_reported_cost_usd",
    "mean_agent_s",
    "mean_tool_calls",
    "mean_mcp_calls",
    "n_trajectories",
    "exceptions",
    "guard_ledgers",
    "guard_denies",
    "guard_stop_blocks",
    "guard_releases",
    "guard_errors",
    "guard_shadows",
    ...ks.flatMap((k) => [`pass_hat_${k}`, `pass_hat_${k}_lo`, `pass_hat_${k}_hi`, `pass_hat_${k}_n_tasks`]),
    ...ks.flatMap((k) => [`pass_at_${k}`, `pass_at_${k}_lo`, `pass_at_${k}_hi`, `pass_at_${k}_n_tasks`]),
    "control",
    "diff_vs_control",
    "diff_lo",
    "diff_hi",
    "n_shared_tasks",
    "p_mcnemar",
    "gained",
    "lost",
    ...INTEGRITY_COLUMNS,
  ];
  const rows = result.rows.map((r) => {
    const c = comparisonOf(result, r);
    const g = r.guard;
    const est = (list: (Estimate & { k: number })[], k: number) => list.find((e) => e.k === k);
    return [
      r.benchmark,
      r.dataset_version,
      r.submission_id,
      r.team,
      r.agent,
      r.model,
      r.domain,
      pyFloat(r.pass_at_1),
      String(r.n_trials),
      String(r.n_tasks),
      pyFloat(r.mean_cost_usd),
      pyFloat(r.mean_walltime_s),
      r.arm,
      r.recipe,
      String(r.n_passed),
      pyFloat(r.pass_at_1_ci.lo),
      pyFloat(r.pass_at_1_ci.hi),
      String(r.n_unscored),
      String(r.n_unreadable),
      String(r.n_problems),
      String(r.n_cost_known),
      r.unpriced_models.join("+"),
      pyFloat(r.mean_reported_cost_usd),
      pyFloat(r.mean_agent_s),
      pyFloat(r.mean_tool_calls),
      pyFloat(r.mean_mcp_calls),
      String(r.n_trajectories),
      kv(r.exceptions),
      g ? String(g.ledgers) : "",
      g ? String(g.denies) : "",
      g ? String(g.stop_blocks) : "",
      g ? String(g.releases) : "",
      g ? String(g.errors) : "",
      g ? String(g.shadows) : "",
      ...ks.flatMap((k) => {
        const e = est(r.pass_hat_k, k);
        return [pyFloat(e?.value), pyFloat(e?.lo), pyFloat(e?.hi), e ? String(e.n_tasks) : ""];
      }),
      ...ks.flatMap((k) => {
        const e = est(r.pass_at_k, k);
        return [pyFloat(e?.value), pyFloat(e?.lo), pyFloat(e?.hi), e ? String(e.n_tasks) : ""];
      }),
      c?.control ?? "",
      pyFloat(c?.diff),
      pyFloat(c?.lo),
      pyFloat(c?.hi),
      c ? String(c.n_shared) : "",
      pyFloat(c?.p_mcnemar),
      c ? c.gained.join(" ") : "",
      c ? c.lost.join(" ") : "",
      ...integrityCells(r.integrity),
    ];
  });
  return [header, ...rows];
}

/** The CSV text. */
export function toCsv(result: AggregateResult): string {
  return csvTable(result).map((r) => r.map(cell).join(",")).join("\n") + "\n";
}

function pct(value: number | null | undefined, digits = 1): string {
  // A difference that rounds to zero prints 0.0%, never -0.0%.
  return value === null || value === undefined
    ? "–"
    : `${(100 * value).toFixed(digits).replace(/^-(0\.0*)$/, "$1")}%`;
}

function ci(e: Estimate): string {
  return e.value === null ? "–" : `${pct(e.value)} [${pct(e.lo)}, ${pct(e.hi)}]`;
}

/**
 * A pass^k or pass@k cell: the estimate and the tasks it covers (those with at least k attempts), or "n/a"
 * where no task of the row has k attempts (an arm run with fewer attempts, a domain it never ran).
 */
function atK(e: (Estimate & { k: number }) | undefined): string {
  return !e || !e.n_tasks ? "n/a" : `${ci(e)} · ${e.n_tasks} task${e.n_tasks === 1 ? "" : "s"}`;
}

function fixed(value: number | null, digits: number, unit = ""): string {
  return value === null ? "unknown" : `${value.toFixed(digits)}${unit}`;
}

function md(text: string): string {
  return text.replaceAll("|", "\\|");
}

function integritySection(result: AggregateResult): string[] {
  const rows = result.rows.filter((r) => r.domain === "overall");
  if (!rows.some((r) => r.integrity)) {
    return ["## Run integrity", "", "Not checked: trajectories were not read (--no-tool-calls).", ""];
  }
  const out = [
    "## Run integrity",
    "",
    "Guard coverage = share of a trial's χ-World tool calls with a `pre` record (and a `post` when the call " +
    "went through). A guarded arm with a trial below full coverage, without a ledger or with a ledger tampered " +
    "with (its chain broken, or the guard found it changed; attempts: GUARD-01's refusals and the guard's " +
    "reports), or a stock arm with any hook, is **marked**: its comparisons are not results until it is fixed " +
    "(`deno task verify`).",
    "",
    "| arm | trials | how they ran | with ledger | full coverage | min coverage | hooks | plan injected | " +
    "fail-open errors / 100 calls | gaps | restarts | stop blocks | tampered (attempts) | guard proven (from) | " +
    "endings | verdict |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const i = r.integrity;
    if (!i) continue;
    const errors = i.errors_per_100_calls === null
      ? "–"
      : `${i.errors_per_100_calls.toFixed(2)} (${i.fail_open_errors} in ${i.tool_calls})` +
        (i.errors_flag ? " **flagged**" : "");
    const verdict = i.marked ? "**marked**" : i.problems.length ? "problems" : "ok";
    out.push(
      `| ${md(r.arm)} | ${i.trials} | ${md(kv(i.trial_arms))} | ${i.with_ledger} | ${i.full_coverage} | ` +
        `${i.coverage_min === null ? "–" : pct(i.coverage_min)} | ${
          md(kv(i.hook_modes))
        } | ${i.plan_injected} | ` +
        `${errors} | ${i.gaps} | ${i.restarts} | ${i.stop_blocks} | ${i.tampered ?? 0} (${
          i.tamper_attempts ?? 0
        }) | ` +
        `${
          i.guarded
            ? `${Object.values(i.proven).reduce((a, b) => a + (b ?? 0), 0)} of ${i.guarded} (${
              md(kv(i.proven as Record<string, number>))
            })`
            : "–"
        } | ` +
        `${i.guarded ? md(kv(i.endings as Record<string, number>)) : "–"} | ${verdict} |`,
    );
  }
  out.push("");
  return out;
}

function pValue(p: number | null): string {
  return p === null ? "–" : p.toPrecision(3);
}

/** "checklist − stock", or "H1 checklist − stock" when it tests a hypothesis. */
function pairName(c: Comparison): string {
  return `${c.id ? `${c.id} ` : ""}${c.arm} − ${c.control}`;
}

const BASIS = {
  single: "one attempt per task",
  half: "a task passes when at least half its attempts passed",
} as const;

function comparisonSection(result: AggregateResult): string[] {
  if (!result.comparisons.length) return [];
  const c0 = result.correction;
  const out = [
    "## Comparisons (paired on shared tasks)",
    "",
    "Decision (overall rows; per-domain rows are descriptive): **improves** when the 95% paired bootstrap " +
    "interval of the pass@1 difference lies above 0, **harms** below 0, else inconclusive. McNemar's exact " +
    "test on the tasks that flipped" +
    (c0
      ? `; ${c0.method === "holm" ? "Holm" : c0.method}-adjusted across ${
        c0.family.join(", ")
      } (CIs unadjusted).`
      : "."),
    "",
    "| comparison | domain | shared tasks | Δ pass@1, pts [95% CI] | decision | McNemar p | adjusted p | basis | " +
    "gained | lost | integrity, comparability |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const c of result.comparisons) {
    const diff = pointsInterval(c);
    const decision = c.domain === "overall" ? c.decision ?? "–" : `(${c.decision ?? "–"})`;
    const marked = c.marked.length
      ? `**marked** (${md(c.marked.join(", "))}): not a result`
      : c.not_comparable.length
      ? "**not comparable** (below): not the guard's effect"
      : "ok";
    out.push(
      `| ${md(pairName(c))} | ${c.domain} | ${c.n_shared} | ${diff} | ${decision} | ${
        pValue(c.p_mcnemar)
      } | ` +
        `${pValue(c.p_mcnemar_adjusted)} | ${c.p_mcnemar_basis} | ${c.gained.length} | ${c.lost.length} | ` +
        `${marked} |`,
    );
  }
  out.push(
    "",
    `Basis of McNemar's outcome per task: single = ${BASIS.single}; half = ${BASIS.half} (the protocol's ` +
      "reduction for several attempts), which is also how the gained/lost lists below are made.",
    "",
  );
  for (const c of result.comparisons.filter((c) => c.domain === "overall")) {
    out.push(`- ${md(pairName(c))} gained: ${c.gained.join(", ") || "none"}`);
    out.push(`- ${md(pairName(c))} lost: ${c.lost.join(", ") || "none"}`);
  }
  const apart = result.comparisons.filter((c) => c.domain === "overall" && c.not_comparable.length);
  if (apart.length) {
    out.push(
      "",
      "Not comparable: these arms differ by more than the guard, so their difference is not its effect " +
        "(What each arm ran, below).",
      "",
    );
    for (const c of apart) out.push(`- ${md(pairName(c))}: ${md(c.not_comparable.join("; "))}.`);
  }
  out.push("");
  return out;
}

function tallyText(values: Record<string, number> | null): string {
  if (!values) return "not checked";
  const entries = Object.entries(values);
  return entries.length === 1 ? entries[0][0] : entries.map(([v, n]) => `${v} (${n})`).join(", ");
}

/** What each arm's readable trials ran: the facts a comparison rests on (lib/results/comparable.ts). */
function factsSection(result: AggregateResult): string[] {
  if (!result.arm_facts.length) return [];
  return [
    "## What each arm ran",
    "",
    "Two arms compare as the guard's effect only when they ran one model, harness, Claude Code version and " +
    "environment alike, and an arm named after a registered arm ran as it.",
    "",
    "| arm | trials | model | harness | Claude Code | environment | ran as |",
    "|---|---|---|---|---|---|---|",
    ...result.arm_facts.map((f) =>
      `| ${md(f.arm)} | ${f.trials} | ${md(tallyText(f.model))} | ${md(tallyText(f.harness))} | ` +
      `${md(tallyText(f.claude_version))} | ${md(tallyText(f.environment))} | ${md(tallyText(f.ran_as))} |`
    ),
    "",
  ];
}

/**
 * What aggregate prints on the terminal: the overall row of each arm, then each comparison asked for (its
 * overall row; for the pilot, its domain's), with the decision and what makes it no result.
 */
export function terminalLines(result: AggregateResult): string[] {
  const rows = result.rows.filter((r) => r.domain === "overall");
  const head = ["arm", "tasks", "trials", "pass@1 [95% CI]", "cost/trial", "unscored", "unreadable"];
  const cells = rows.map((r) => [
    r.arm,
    String(r.n_tasks),
    String(r.n_trials),
    ci(r.pass_at_1_ci),
    r.mean_cost_usd === null ? "unknown" : `$${r.mean_cost_usd.toFixed(2)}`,
    String(r.n_unscored),
    String(r.n_unreadable),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => i ? x.padStart(widths[i]) : x.padEnd(widths[i])).join("  ");
  const out = [
    `Overall (recipe ${result.recipe}; unreadable trials count as failures until fixed):`,
    line(head),
  ];
  out.push(...cells.map(line));
  const shown = result.comparisons.filter((c) => c.domain === "overall" || (result.pilot?.comparison === c));
  if (shown.length) out.push("", "Comparisons (paired on shared tasks):");
  for (const c of shown) {
    const adjusted = c.p_mcnemar_adjusted === null ? "" : `, adjusted ${pValue(c.p_mcnemar_adjusted)}`;
    const status = c.marked.length
      ? `; marked (${c.marked.join(", ")} failed run integrity): not a result`
      : c.not_comparable.length
      ? `; not comparable: ${c.not_comparable.join("; ")}`
      : "";
    out.push(
      `  ${pairName(c)} on ${c.domain}: ${pointsInterval(c)} over ${c.n_shared} tasks, ${
        c.decision ?? "–"
      }; ` +
        `McNemar p ${
          pValue(c.p_mcnemar)
        }${adjusted} (${c.gained.length} gained, ${c.lost.length} lost)${status}`,
    );
  }
  return out;
}

/** comparisons.csv: one row per comparison and domain, every figure of the Comparisons section. */
export function comparisonsCsv(result: AggregateResult): string {
  const head = [
    "id",
    "arm",
    "control",
    "domain",
    "n_shared_tasks",
    "diff",
    "diff_lo",
    "diff_hi",
    "decision",
    "p_mcnemar",
    "p_mcnemar_adjusted",
    "correction",
    "p_mcnemar_basis",
    "gained",
    "lost",
    "both",
    "neither",
    "marked",
  ];
  const rows = result.comparisons.map((c) => [
    c.id ?? "",
    c.arm,
    c.control,
    c.domain,
    String(c.n_shared),
    pyFloat(c.diff),
    pyFloat(c.lo),
    pyFloat(c.hi),
    c.decision ?? "",
    pyFloat(c.p_mcnemar),
    pyFloat(c.p_mcnemar_adjusted),
    c.p_mcnemar_adjusted === null ? "" : result.correction!.method,
    c.p_mcnemar_basis,
    c.gained.join(" "),
    c.lost.join(" "),
    String(c.both),
    String(c.neither),
    c.marked.join(" "),
  ]);
  return [head, ...rows].map((r) => r.map(cell).join(",")).join("\n") + "\n";
}

/** The Markdown summary. */
export function toMarkdown(result: AggregateResult): string {
  const K = maxK(result);
  const ks = Array.from({ length: Math.max(0, K - 1) }, (_, i) => i + 2);
  const out: string[] = [];
  out.push("# Aggregate", "");
  out.push(
    `Recipe ${result.recipe} (${
      RECIPE_NOTES[result.recipe]
    }); 95% CIs are task-level percentile bootstraps, ` +
      `${result.iters} iterations, seed ${result.seed}. pass@1 = mean over tasks of passes/attempts. pass^k ` +
      "and pass@k are defined only where a task has k scored attempts: each gives the tasks it covers, and " +
      "n/a where no task has k.",
    "",
  );
  for (const a of result.arms) {
    out.push(`- **${md(a.name)}**: ${a.n_found} trial dirs below ${md(a.roots.join(", "))}`);
  }
  out.push("");
  const head = ["arm", "domain", "tasks", "trials", "pass@1 [95% CI]"];
  for (const k of ks) head.push(`pass^${k}`, `pass@${k}`);
  head.push("cost/trial", "agent s", "tool calls (MCP)", "unscored", "unreadable", "exceptions");
  out.push(`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`);
  for (const r of result.rows) {
    const cells = [md(r.arm), r.domain, String(r.n_tasks), String(r.n_trials), ci(r.pass_at_1_ci)];
    for (const k of ks) {
      cells.push(atK(r.pass_hat_k.find((e) => e.k === k)), atK(r.pass_at_k.find((e) => e.k === k)));
    }
    const cost = r.mean_cost_usd === null
      ? `unknown (${md(r.unpriced_models.join(", "))})`
      : `$${r.mean_cost_usd.toFixed(4)}` +
        (r.unpriced_models.length ? ` (unpriced: ${md(r.unpriced_models.join(", "))})` : "");
    const basis = (n: number) => n < r.n_trials ? ` from ${n} of ${r.n_trials}` : "";
    cells.push(
      cost + (r.mean_cost_usd === null ? "" : basis(r.n_cost_known)),
      fixed(r.mean_agent_s, 1),
      r.mean_tool_calls === null
        ? "–"
        : `${r.mean_tool_calls.toFixed(1)} (${r.mean_mcp_calls!.toFixed(1)})${basis(r.n_trajectories)}`,
      String(r.n_unscored),
      String(r.n_unreadable),
      md(kv(r.exceptions)) || "–",
    );
    out.push(`| ${cells.join(" | ")} |`);
  }
  out.push("");
  if (result.pilot) {
    out.push(
      "## Pilot verdict (docs/EVALUATION_PROTOCOL.md, protocol v3)",
      "",
      `**${result.pilot.verdict}**: ${md(result.pilot.reason)}`,
      "",
    );
  }
  out.push(...comparisonSection(result));
  out.push(...factsSection(result));
  const guarded = result.rows.filter((r) => r.domain === "overall" && r.guard);
  if (guarded.length) {
    out.push("## Guard ledgers", "");
    out.push(
      "| arm | ledgers | records | denies | stop blocks | releases | fail-open errors | shadows |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const r of guarded) {
      const g = r.guard!;
      out.push(
        `| ${
          md(r.arm)
        } | ${g.ledgers} | ${g.records} | ${g.denies} | ${g.stop_blocks} | ${g.releases} | ${g.errors} | ${g.shadows} |`,
      );
    }
    out.push("", "| arm | rule | deny | block | release | shadow |", "|---|---|---|---|---|---|");
    for (const r of guarded) {
      for (const [id, p] of Object.entries(r.guard!.per_rule).sort()) {
        out.push(`| ${md(r.arm)} | ${md(id)} | ${p.deny} | ${p.block} | ${p.release} | ${p.shadow} |`);
      }
    }
    out.push("");
  }
  out.push(...integritySection(result));
  if (result.unpriced_models.length) {
    out.push(
      `Unpriced models: ${md(result.unpriced_models.join(", "))}. ` +
        (result.recipe === "A"
          ? "Recipe A reproduces chi-bench, which counts them at $0."
          : "Their cost is unknown and left out of the mean; add them to the prices file."),
      "",
    );
  }
  const failures = result.problems.filter((p) => !isWarning(p));
  const warnings = result.problems.filter(isWarning);
  const item = (p: Problem) =>
    `- [${md(p.arm)}]${p.kind && p.kind !== "input" ? ` (${p.kind})` : ""} ${md(p.message)}`;
  out.push(`## Input problems (${failures.length})`, "");
  if (!failures.length) {
    out.push(
      "None: every trial dir had a readable, verified result and every guarded trial full guard coverage.",
    );
  }
  out.push(...failures.map(item), "");
  out.push(`## Warnings (${warnings.length})`, "");
  out.push(
    warnings.length
      ? "Not the guard's: a packet's results.csv that contradicts its own trial folders (the folders are the " +
        "data), or trials of several other harnesses read as one arm. They fail the command only with --strict."
      : "None: no packet contradicts its trial folders.",
    "",
    ...warnings.map(item),
  );
  if (warnings.length) out.push("");
  return out.join("\n");
}
