/**
 * Generates docs/plans.md from the principles table (rules/principles.ts): one table per seat, then the plan
 * each seat receives, laid out by `deno fmt`. `deno run -A scripts/plans_doc.ts` writes it; `--check` exits 1 when
 * it is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { PLAN_BUDGET, rolePlan } from "../lib/guard/engine/plan.ts";
import { type Principle, PRINCIPLES } from "../rules/principles.ts";
import type { Seat } from "../lib/guard/engine/seat.ts";

const OUT = join(import.meta.dirname ?? ".", "..", "docs", "plans.md");

const SEATS: [Seat | "all", string][] = [
  ["all", "All seats"],
  ["provider", "Provider prior authorization"],
  ["payer", "Payer utilization management"],
  ["cm", "Care management"],
];

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function row(p: Principle): string {
  const phases = p.phases === "all" ? "all" : p.phases.join(", ");
  const checks = p.protects.map((c) => `\`${c}\``).join("<br>");
  return `| ${p.id} | ${phases} | ${cell(p.text)} | ${checks} | ${p.rule ?? "—"} | ${cell(p.provenance)} |`;
}

/** The whole document, deterministic (no dates), so a test can compare it with the file. */
export function plansDoc(): string {
  const out = [
    "# Role plans (plan arm)",
    "",
    "Generated from `rules/principles.ts` by `deno run -A scripts/plans_doc.ts`; do not edit by hand.",
    "",
    "The plan arm injects a role plan as `additionalContext` on the task prompt and again after compaction " +
    "(SessionStart). A plan is the table's principles for the seat and entry phase, in workflow order, " +
    `followed by the handbook pages found for the case, within ${
      PLAN_BUDGET.toLocaleString("en")
    } characters. ` +
    "Principles are answer-blind: they use only what the agent sees (prompt, chart or case, handbook, tool " +
    "results) and the public tool semantics; a test fails if a plan names a case or patient id, a task, a code " +
    "or a procedure-specific site or service. `rule` names the guard rule that enforces a principle.",
    "",
  ];
  for (const [seat, title] of SEATS) {
    out.push(`## ${title}`, "", "| id | entry phases | principle | protects | rule | provenance |");
    out.push("|---|---|---|---|---|---|");
    for (const p of PRINCIPLES.filter((x) => x.seat === seat)) out.push(row(p));
    out.push("");
  }
  out.push("## Assembled plans", "");
  out.push(
    "Each seat's plan for an unknown entry phase (every stage); an entry phase keeps only the stages ahead.",
  );
  for (const [seat, title] of SEATS) {
    if (seat === "all") continue;
    const plan = rolePlan(seat, null);
    out.push("", `### ${title} (${plan.length} characters)`, "", "```text", plan, "```");
  }
  return out.join("\n") + "\n";
}

/** The document as `deno fmt` lays it out (the repository's fmt check covers docs/), so checks compare bytes. */
export async function formattedPlansDoc(): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: join(import.meta.dirname ?? ".", ".."),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(plansDoc()));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`Cannot format docs/plans.md: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Entry: writes docs/plans.md, or with `--check` reports whether it is up to date. */
export async function main(args: string[]): Promise<number> {
  const text = await formattedPlansDoc();
  if (args.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(OUT, "utf8");
    } catch {
      current = "";
    }
    if (current === text) return 0;
    process.stderr.write(
      "Cannot accept docs/plans.md: it is stale. Run `deno run -A scripts/plans_doc.ts`.\n",
    );
    return 1;
  }
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT} (${text.length} characters)`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
