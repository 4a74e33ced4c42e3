/** The principles table and the role plans assembled from it: catalog IDs, order, budget, answer-blindness. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type HandbookPage, pagesSection, PLAN_BUDGET, rolePlan } from "../lib/guard/engine/plan.ts";
import { PRINCIPLES, principlesFor } from "../rules/principles.ts";
import { CHECKS } from "../rules/catalog/checks.ts";
import { TOOLS } from "../rules/catalog/tools.ts";
import { RULES } from "../rules/mod.ts";
import type { Phase, Seat } from "../lib/guard/engine/seat.ts";
import { formattedPlansDoc } from "../scripts/plans_doc.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const CATALOG = new Set(CHECKS.map((c) => c.id));
const SHOWN = new Set(TOOLS.map((t) => t.name.replace(".", "_")));
const ARGS = new Set(TOOLS.flatMap((t) => t.args));
const NAMESPACES = [...new Set(TOOLS.map((t) => t.name.split(".")[0]))];
/** Enum values and fields the texts may name that look like tool names. */
const NOT_TOOLS = new Set(["p2p_review", "docs_needed"]);

const PHASES: Record<Seat, (Phase | null)[]> = {
  provider: ["new_referral", null],
  payer: ["intake", "triage", "nurse_review", "mdreview", "p2p", null],
  cm: ["cm", null],
};
const COMBOS = (Object.keys(PHASES) as Seat[]).flatMap((seat) =>
  PHASES[seat].map((phase) => ({ seat, phase }))
);

const LONG_PAGES: HandbookPage[] = Array.from({ length: 40 }, (_, i) => ({
  path: `references/medical-library/medical-policies/${"x".repeat(60)}-${i}.md`,
  title: "A long synthetic page title that takes room in the plan budget",
  why: 'title matches "synthetic", "page"; names a code from the task',
}));

// Answer-blind patterns: identifiers, task names, codes, and site/service values tied to a procedure.
const LEAKS: [string, RegExp][] = [
  ["case id", /\b(?:CASE-[0-9A-F]{8}|CASE-ACT-\d+|CM-CASE-[A-Z0-9_]+)\b/],
  ["patient or referral id", /\b(?:PAT-[0-9a-fA-F]{8,12}|CM-PAT-\w+|REF-[A-Z0-9_]+)\b/],
  [
    "request, letter or session id",
    /\b(?:P2P-[A-Za-z0-9]{4,}|LET-[0-9a-f]{8}|SES-[0-9A-F]{8}|PAYER-CONTACT-\d+)\b/,
  ],
  ["task name", /\b(?:pa_t\d{3}|cm_[a-z_]+_(?:low|moderate|hard)_[a-z]+_\d{3})\b/],
  ["CPT code", /\b\d{4}[0-9FTU]\b/],
  ["HCPCS code", /\b[A-V]\d{4}\b/],
  ["ICD-10 code", /\b[A-TV-Z]\d{2}(?:\.[0-9A-Z]{1,4})?\b/],
  ["site or service value", /\b(?:site_of_service|service_type)\s*[=:]\s*\w+/],
  [
    "site of service enum",
    /\b(?:inpatient_hospital|outpatient_hospital|ambulatory_surgical_center|emergency_room|skilled_nursing_facility|urgent_care|rehabilitation_facility)\b/,
  ],
  [
    "benchmark procedure",
    /gastrectomy|hysterectomy|colonoscopy|cataract|polysomnograph|rotator cuff|arthroplasty|interbody|hypoglossal|vagus|rituximab|uvulopalato|electroencephalograph|glaucoma|cheilectomy|sinus surgery|sleep apnea|prosthesis|\bMRI\b|\bPET\b/i,
  ],
];

/** A plan has no leak: returns the first leak's label and text, or null. */
function leakIn(text: string): string | null {
  for (const [label, re] of LEAKS) {
    const m = re.exec(text);
    if (m) return `${label}: "${m[0]}"`;
  }
  return null;
}

const table = suite("principles table");

table("IDs are unique and well formed", () => {
  const ids = PRINCIPLES.map((p) => p.id);
  assert.equal(ids.length, new Set(ids).size);
  for (const id of ids) assert.match(id, /^P-(ALL|PROV|UM|CM)-\d{2}$/);
});

for (const p of PRINCIPLES) {
  table(`${p.id} protects only catalog check IDs`, () => {
    assert.ok(p.protects.length > 0, `${p.id} protects nothing`);
    for (const id of p.protects) {
      assert.ok(CATALOG.has(id), `${p.id}: "${id}" is not in rules/catalog/checks.ts`);
    }
  });
  table(`${p.id} has provenance, a short text and a matching seat prefix`, () => {
    assert.ok(p.provenance.length > 10);
    assert.ok(p.text.length <= 480, `${p.id} text is ${p.text.length} characters`);
    const prefix = { all: "ALL", provider: "PROV", payer: "UM", cm: "CM" }[p.seat];
    assert.ok(p.id.startsWith(`P-${prefix}-`), `${p.id} is for seat ${p.seat}`);
  });
  table(`${p.id} names only real tools`, () => {
    for (const m of p.text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) {
      const word = m[0];
      const looksLikeTool = NAMESPACES.some((ns) => word.startsWith(`${ns}_`));
      if (!looksLikeTool || ARGS.has(word) || NOT_TOOLS.has(word)) continue;
      assert.ok(SHOWN.has(word), `${p.id} names "${word}", which is no tool`);
    }
  });
  if (p.rule) {
    table(`${p.id} names an existing rule for its seat (${p.rule})`, () => {
      const rule = RULES.find((r) => r.meta.id === p.rule);
      assert.ok(rule, `${p.id} names rule ${p.rule}, which is not in rules/mod.ts`);
      assert.ok(p.seat === "all" || rule!.meta.seat === "all" || rule!.meta.seat === p.seat);
    });
  }
}

table("every rule that names a principle names an existing one", () => {
  const ids = new Set(PRINCIPLES.map((p) => p.id));
  for (const rule of RULES) {
    const named = rule.meta.principle;
    if (named) {
      assert.ok(ids.has(named), `${rule.meta.id} names principle ${named}, which is not in the table`);
    }
  }
});

table.run();

const plans = suite("role plans");

plans("no seat, no plan", () => {
  assert.is(rolePlan(null, null), "");
});

for (const { seat, phase } of COMBOS) {
  const name = `${seat}/${phase ?? "any"}`;
  plans(`${name}: principles in table order, within budget with room for pages`, () => {
    const text = rolePlan(seat, phase);
    assert.ok(text.length <= PLAN_BUDGET - 2_000, `${name} plan is ${text.length} characters`);
    const at = principlesFor(seat, phase).map((p) => text.indexOf(`[${p.id}]`));
    assert.ok(at.every((i) => i >= 0), `${name} lacks a principle`);
    const always = at.slice(0, principlesFor(seat, phase).filter((p) => p.seat === "all").length);
    const steps = at.slice(always.length);
    assert.equal(steps, [...steps].sort((a, b) => a - b), `${name} steps out of order`);
  });
  plans(`${name}: many handbook pages still fit the budget`, () => {
    const text = rolePlan(seat, phase, { pages: LONG_PAGES });
    assert.ok(text.length <= PLAN_BUDGET, `${name} plan is ${text.length} characters`);
    assert.ok(text.includes("Handbook pages for this case"));
  });
  plans(`${name}: answer-blind`, () => {
    assert.is(leakIn(rolePlan(seat, phase)), null);
  });
}

plans("payer entry phases carry only the stages still ahead", () => {
  assert.ok(rolePlan("payer", "intake").includes("[P-UM-02]"));
  assert.not.ok(rolePlan("payer", "mdreview").includes("[P-UM-02]"));
  assert.not.ok(rolePlan("payer", "p2p").includes("[P-UM-07]"));
  assert.ok(rolePlan("payer", "p2p").includes("[P-UM-10]"));
  assert.ok(rolePlan("payer", "p2p").includes("[P-UM-13]"));
});

plans("the leak check itself catches each kind of leak", () => {
  const leaks = [
    "Create the case CASE-ACT-001.",
    "Use patient PAT-0a1b2c3d4e5f.",
    "This is pa_t008 again.",
    "Use procedure code 43775.",
    "Bill J1745 for the drug.",
    "Code E66.01 for the diagnosis.",
    "Set site_of_service=outpatient_hospital.",
    "Request the sleeve gastrectomy.",
  ];
  for (const text of leaks) assert.ok(leakIn(text), `not caught: ${text}`);
  assert.is(leakIn(rolePlan("provider", "new_referral")), null);
});

plans("pages section keeps whole lines and is empty when nothing fits", () => {
  assert.is(pagesSection(LONG_PAGES, 10), "");
  const some = pagesSection(LONG_PAGES, 600);
  assert.ok(some.length <= 600 && some.endsWith(")"));
});

plans("docs/plans.md is generated from the table and up to date", async () => {
  let onDisk = "";
  try {
    onDisk = readFileSync(join(ROOT, "docs", "plans.md"), "utf8");
  } catch {
    assert.unreachable("docs/plans.md is missing. Run `deno run -A scripts/plans_doc.ts`.");
  }
  assert.ok(
    onDisk === await formattedPlansDoc(),
    "docs/plans.md is stale. Run `deno run -A scripts/plans_doc.ts`.",
  );
});

plans.run();
