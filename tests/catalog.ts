/** The data the rules stand on: the check and tool catalogs, and the rule table generated from metadata. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHECKS } from "../rules/catalog/checks.ts";
import { TOOLS } from "../rules/catalog/tools.ts";
import { RULES } from "../rules/mod.ts";
import { readmeWithTable, ruleRows, rulesPage, ruleTable, summaryOf } from "../scripts/rule_table.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const s = suite("catalog");

s("check IDs are unique and every row has a kind and a preventable verdict", () => {
  const ids = CHECKS.map((c) => c.id);
  assert.is(new Set(ids).size, ids.length);
  for (const c of CHECKS) {
    assert.ok(["deterministic", "judge"].includes(c.kind), c.id);
    assert.ok(["yes", "partly", "no"].includes(c.preventable), c.id);
  }
});

s("tool names are unique namespace.method", () => {
  const names = TOOLS.map((t) => t.name);
  assert.is(new Set(names).size, names.length);
  for (const n of names) assert.match(n, /^[a-z0-9_]+\.[a-z0-9_]+$/);
});

s("every rule trigger is an exposed tool (the agent can actually call it)", () => {
  const exposed = new Set(TOOLS.filter((t) => t.exposed).map((t) => t.name));
  for (const r of RULES) for (const t of r.meta.triggers) assert.ok(exposed.has(t), `${r.meta.id}: ${t}`);
});

s("rules protect deterministic checks first: each rule names at least one", () => {
  const det = new Set(CHECKS.filter((c) => c.kind === "deterministic").map((c) => c.id));
  for (const r of RULES) {
    if (r.meta.id === "PP-06") continue; // protects a judge rubric only; documented in its header
    assert.ok(r.meta.protects.some((c) => det.has(c)), r.meta.id);
  }
});

s("every rule file has a one-line summary above its export", () => {
  for (const r of RULES) {
    const source = readFileSync(join(ROOT, "rules", `${r.meta.name.replaceAll("-", "_")}.ts`), "utf8");
    assert.ok(summaryOf(source).length > 10, r.meta.id);
  }
});

s("summaryOf drops the ID prefix and capitalises", () => {
  assert.is(summaryOf("/** PP-01: no submit. */\nexport const rule = 1;"), "No submit.");
  assert.is(summaryOf("const x = 1;"), "");
});

s("the rule table has one row per rule, escapes pipes, quotes check IDs", () => {
  const rows = RULES.map((r) => ({ meta: r.meta, summary: "a | b" }));
  const table = ruleTable(rows);
  const lines = table.split("\n");
  assert.is(lines.length, RULES.length + 2);
  assert.match(
    lines[2],
    /^\| GLOBAL-01 +\| all +\| `case-lock` +\| a \\\| b +\| `cross\.forbidden_mutations`/,
  );
  assert.match(rulesPage(table, rows.length), /^# Contract rules\n/);
});

s("docs/rules.md is up to date with the rule metadata", () => {
  const page = readFileSync(join(ROOT, "docs", "rules.md"), "utf8");
  const rows = RULES.map((r) => ({
    meta: r.meta,
    summary: summaryOf(readFileSync(join(ROOT, "rules", `${r.meta.name.replaceAll("-", "_")}.ts`), "utf8")),
  }));
  assert.ok(
    page === rulesPage(ruleTable(rows), rows.length),
    "docs/rules.md is stale: run scripts/rule_table.ts",
  );
});

s("the README's rule table is up to date with the rule metadata", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.match(readme, "<!-- rules:begin");
  assert.ok(
    readme === readmeWithTable(readme, ruleTable(ruleRows())),
    "README.md's rule table is stale: run scripts/rule_table.ts",
  );
});

s.run();
