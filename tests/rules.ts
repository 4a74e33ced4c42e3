/** One tester for every contract rule: its own examples, then catalog, trigger, ID and file-name agreement. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { RULES } from "../rules/mod.ts";
import { rule as guardUntouched } from "../rules/guard_untouched.ts";
import { CHECKS } from "../rules/catalog/checks.ts";
import { TOOLS } from "../rules/catalog/tools.ts";
import { evidenceOf, renderMessage, type Rule } from "../lib/guard/engine/rule.ts";

const RULES_DIR = join(fileURLToPath(new URL(".", import.meta.url)), "..", "rules");

/** True when a check ID is in the catalog, exactly or through a `<…>` pattern row (not the bare `<legacy flat>`). */
export function inCatalog(id: string): boolean {
  return CHECKS.some((c) => {
    if (c.id === id) return true;
    if (!c.id.includes("<") || c.id.startsWith("<")) return false;
    const pattern = c.id.split(/<[^>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(
      ".+",
    );
    return new RegExp(`^${pattern}$`).test(id);
  });
}

for (const rule of RULES as Rule[]) {
  const s = suite(rule.meta.id);
  for (const c of rule.valid) {
    s(`passes: ${c.name}`, () => assert.is(rule.check(c.call, evidenceOf(c.evidence)), null));
  }
  for (const c of rule.invalid) {
    s(`fires: ${c.name}`, () => assert.equal(rule.check(c.call, evidenceOf(c.evidence)), c.data));
  }
  s("every example has a name of its own", () => {
    const names = [...rule.valid, ...rule.invalid].map((c) => c.name);
    assert.ok(names.every((n) => n.trim().length > 0), "an example has no name");
    assert.is(new Set(names).size, names.length, `names repeat: ${names}`);
  });
  s("has an invalid case", () => assert.ok(rule.invalid.length > 0));
  s("an invalid example asserts its whole reason, and each such reason renders exactly", () => {
    const whole = rule.invalid.filter((c) => c.reason !== undefined);
    assert.ok(whole.length > 0, "no invalid example gives its expected reason in full");
    for (const c of whole) assert.is(renderMessage(rule.meta.message, c.data), c.reason, c.name);
  });
  s("every example's call is one of its triggers (the engine runs the rule on no other)", () => {
    for (const c of [...rule.valid, ...rule.invalid]) {
      assert.ok(
        rule.meta.triggers.includes(c.call.tool),
        `${c.call.tool} is not among ${rule.meta.triggers}`,
      );
    }
  });
  s("every message slot is filled by its invalid data", () => {
    for (const c of rule.invalid) assert.not.match(renderMessage(rule.meta.message, c.data), /\{\w+\}/);
  });
  s("message reads Cannot …: state. next step.", () => {
    assert.match(rule.meta.message, /^Cannot [^:]+\{?\w*\}?[^:]*: .+\. .+\.$/s);
  });
  s.run();
}

const catalog = suite("rules catalog");
const TOOL_NAMES = new Set(TOOLS.map((t) => t.name));

catalog("every protects ID is in rules/catalog/checks.ts", () => {
  for (const rule of RULES) {
    for (const id of rule.meta.protects) {
      assert.ok(inCatalog(id), `${rule.meta.id} protects unknown check ${id}`);
    }
    assert.ok(rule.meta.protects.length > 0, `${rule.meta.id} protects nothing`);
  }
});

catalog("every trigger is a registered tool", () => {
  for (const rule of RULES) {
    assert.ok(rule.meta.triggers.length > 0, `${rule.meta.id} has no trigger`);
    for (const t of rule.meta.triggers) {
      assert.ok(TOOL_NAMES.has(t), `${rule.meta.id} triggers unknown tool ${t}`);
    }
  }
});

catalog("IDs are unique and follow GLOBAL/PP/UM/CM-nn", () => {
  const ids = RULES.map((r) => r.meta.id);
  assert.is(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^(GLOBAL|PP|UM|CM)-\d{2}$/);
});

catalog("the ID prefix agrees with the seat", () => {
  const seatOf: Record<string, string> = { GLOBAL: "all", PP: "provider", UM: "payer", CM: "cm" };
  for (const r of RULES) assert.is(r.meta.seat, seatOf[r.meta.id.split("-")[0]], r.meta.id);
});

catalog("at least 22 rules, covering all three seats", () => {
  assert.ok(RULES.length >= 22, `${RULES.length} rules`);
  for (const seat of ["provider", "payer", "cm"]) assert.ok(RULES.some((r) => r.meta.seat === seat), seat);
});

catalog("GLOBAL-01 is the case lock", () => {
  assert.is(RULES.find((r) => r.meta.id === "GLOBAL-01")?.meta.name, "case-lock");
});

catalog("name and file name agree (kebab-case ↔ snake_case)", async () => {
  for (const rule of RULES) {
    assert.match(rule.meta.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    const file = join(RULES_DIR, `${rule.meta.name.replaceAll("-", "_")}.ts`);
    const mod = await import(`file://${file}`);
    assert.is(mod.rule, rule, `${file} does not export ${rule.meta.id}`);
  }
});

catalog("inCatalog matches exact IDs and <…> pattern rows only", () => {
  assert.ok(inCatalog("md.signed_off"));
  assert.ok(inCatalog("provider_pre_submission.document_absent.lmn"));
  assert.not.ok(inCatalog("md.signed"));
});

catalog.run();

// GUARD-01 is no contract rule (it guards the guard): its own examples, against the places each names.
const guard = suite(guardUntouched.meta.id);
for (const c of guardUntouched.valid) {
  guard(`passes: ${c.name}`, () => assert.is(guardUntouched.check(c.call, c.places), null));
}
for (const c of guardUntouched.invalid) {
  guard(`fires: ${c.name}`, () => assert.equal(guardUntouched.check(c.call, c.places), c.data));
}
guard("examples on its own tools only; message reads Cannot …: state. next step.", () => {
  for (const c of [...guardUntouched.valid, ...guardUntouched.invalid]) {
    assert.ok(guardUntouched.meta.tools.includes(c.call.tool), c.call.tool);
  }
  for (const c of guardUntouched.invalid) {
    assert.not.match(renderMessage(guardUntouched.meta.message, c.data), /\{\w+\}/);
  }
  assert.match(guardUntouched.meta.message, /^Cannot [^:]+: .+\. .+\.$/s);
  assert.is(`${guardUntouched.meta.name.replaceAll("-", "_")}.ts`, "guard_untouched.ts");
});
guard.run();
