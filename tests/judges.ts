/** One tester for every decision-point judge: its own examples, then catalog, trigger, ID and file-name agreement. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { JUDGES } from "../lib/guard/engine/judges/mod.ts";
import { type Judge, type JudgeContext, quote, QUOTE_MAX } from "../lib/guard/engine/judge.ts";
import { evidenceOf, renderMessage } from "../lib/guard/engine/rule.ts";
import { PRINCIPLES } from "../rules/principles.ts";
import { TOOLS } from "../rules/catalog/tools.ts";
import { admission } from "../lib/guard/engine/judges/self_consistency.ts";
import { CHECKS } from "../rules/catalog/checks.ts";

const JUDGES_DIR = join(
  fileURLToPath(new URL(".", import.meta.url)),
  "..",
  "lib",
  "guard",
  "engine",
  "judges",
);

function context(recentText: string[] = []): JudgeContext {
  return { recentText };
}

for (const judge of JUDGES as Judge[]) {
  const s = suite(judge.meta.id);
  for (const c of judge.valid) {
    s(
      `passes: ${c.name}`,
      () => assert.is(judge.check(c.call, evidenceOf(c.evidence), context(c.recentText)), null),
    );
  }
  for (const c of judge.invalid) {
    s(
      `fires: ${c.name}`,
      () => assert.equal(judge.check(c.call, evidenceOf(c.evidence), context(c.recentText)), c.data),
    );
  }
  s("every example has a name of its own", () => {
    const names = [...judge.valid, ...judge.invalid].map((c) => c.name);
    assert.ok(names.every((n) => n.trim().length > 0), "an example has no name");
    assert.is(new Set(names).size, names.length, `names repeat: ${names}`);
  });
  s("has an invalid case", () => assert.ok(judge.invalid.length > 0));
  s("every example's call is one of its triggers (the engine runs the judge on no other)", () => {
    for (const c of [...judge.valid, ...judge.invalid]) {
      assert.ok(
        judge.meta.triggers.includes(c.call.tool),
        `${c.call.tool} is not among ${judge.meta.triggers}`,
      );
    }
  });
  s("every message slot is filled by its invalid data", () => {
    for (const c of judge.invalid) assert.not.match(renderMessage(judge.meta.message, c.data), /\{\w+\}/);
  });
  s("message reads Cannot …: the fact. Both options, and it asks once.", () => {
    assert.match(judge.meta.message, /^Cannot [^:]+: .+\. .+\.$/s);
    assert.match(judge.meta.message, /\bor\b/);
    assert.match(judge.meta.message, /asks once/);
  });
  s.run();
}

const catalog = suite("judges catalog");
const TOOL_NAMES = new Set(TOOLS.map((t) => t.name));

catalog("every protects ID is a check ID of rules/catalog/checks.ts, exactly", () => {
  const ids = new Set(CHECKS.map((c) => c.id));
  for (const j of JUDGES) {
    assert.ok(j.meta.protects.length > 0, `${j.meta.id} protects nothing`);
    for (const id of j.meta.protects) assert.ok(ids.has(id), `${j.meta.id} protects unknown check ${id}`);
  }
});

catalog("every trigger is a registered tool", () => {
  for (const j of JUDGES) for (const t of j.meta.triggers) assert.ok(TOOL_NAMES.has(t), `${j.meta.id}: ${t}`);
});

catalog("IDs are unique CRITIC-nn (CHECKPOINT-nn for a checkpoint), names unique", () => {
  assert.is(new Set(JUDGES.map((j) => j.meta.id)).size, JUDGES.length);
  assert.is(new Set(JUDGES.map((j) => j.meta.name)).size, JUDGES.length);
  for (const j of JUDGES) {
    assert.match(j.meta.id, j.meta.checkpoint ? /^CHECKPOINT-\d{2}$/ : /^CRITIC-\d{2}$/);
  }
});

catalog("every named principle exists", () => {
  const ids = new Set(PRINCIPLES.map((p) => p.id));
  for (const j of JUDGES) if (j.meta.principle) assert.ok(ids.has(j.meta.principle), j.meta.id);
});

catalog("name and file name agree (kebab-case ↔ snake_case)", async () => {
  for (const j of JUDGES) {
    const file = join(JUDGES_DIR, `${j.meta.name.replaceAll("-", "_")}.ts`);
    const mod = await import(`file://${file}`);
    assert.is(mod.judge, j, `${file} does not export ${j.meta.id}`);
  }
});

catalog("the p2p-contract judge stays in shadow; self-consistency is enforced", () => {
  assert.is(JUDGES.find((j) => j.meta.name === "p2p-contract")?.meta.enforced, false);
  assert.is(JUDGES.find((j) => j.meta.name === "self-consistency")?.meta.enforced, true);
});

catalog.run();

const words = suite("self-consistency: admissions in the agent's own words");
const ADMITS: [string, boolean][] = [
  ["Pre-test counseling is a prerequisite and has not yet been completed.", true],
  ["The evaluation has not occurred: only a referral was placed.", true],
  ["The referral was placed; the evaluation has not occurred.", false],
  ["The procedure has not yet been performed.", false],
  ["All criteria are met.", false],
  ["Criterion 3(b) is not met: no evaluation is on file.", true],
  ["The chart does not establish any of the policy's qualifying indications.", true],
  ["Only 1 of 3 required bullets is met.", true],
  ["3 of 3 criteria are met.", false],
  ["The policy classifies virtual endoscopy as unproven.", true],
  ["The policy does not classify it as unproven.", false],
  ["Submitted despite the policy's hybrid-surgery exclusion.", true],
  ["Pain persisted despite optimized therapy.", false],
  ["Symptom frequency disclosed transparently; submitted as ordered.", true],
  ["Accreditation is not documented; disclosed, not fabricated.", false],
  ["No unmet policy hard stop.", false],
  ["The request does not meet any exclusion and is not relied on as a criterion.", false],
  ["Exclusion criteria are not met.", false],
  ["The patient does not meet any of the policy's contraindication criteria.", false],
  ["No disqualifying requirement is unmet; the disqualifier criteria are not met.", false],
  ["Step therapy is not met but is not relied upon as a criterion.", false],
  ["Criterion 2 is not met, and no exclusion applies.", true],
  ["The exclusion does not apply; the chart does not establish the policy's indication.", true],
];
for (const [text, admits] of ADMITS) {
  words(
    `${admits ? "admits" : "does not admit"}: ${text}`,
    () => assert.is(admission(text) !== null, admits),
  );
}
words("quote caps, redacts and keeps the span it was asked for", () => {
  const long = `${"x".repeat(400)} has not yet been completed ${"y".repeat(400)}`;
  const at = long.indexOf("has not");
  const q = quote(long, at);
  assert.ok(q.length <= QUOTE_MAX + 2, `${q.length}`);
  assert.ok(q.includes("has not yet been completed"));
  assert.ok(q.startsWith("…") && q.endsWith("…"));
  assert.not.match(quote(`key sk-ant-${"a".repeat(30)} "quoted"`), /sk-ant|"/);
});
words.run();

const docs = suite("judges in the README");
docs("the README's judge table lists every judge with its name and mode", () => {
  const readme = readFileSync(join(JUDGES_DIR, "..", "..", "..", "..", "README.md"), "utf8");
  for (const j of JUDGES) {
    const row = readme.split("\n").find((l) =>
      l.startsWith(`| ${j.meta.id} `) && l.includes(`\`${j.meta.name}\``)
    );
    assert.ok(row, `README has no row for ${j.meta.id}`);
    assert.match(row!, j.meta.enforced ? "| enforced |" : "| shadow   |");
  }
});
docs.run();
