/** The coverage trace: v1.0.0 check selection, protector lookup, totals and rendering. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { CHECKS } from "../rules/catalog/checks.ts";
import type { CheckInfo } from "../rules/catalog/checks.ts";
import {
  coverageReport,
  DESIGN_TARGET,
  protectorsOf,
  renderCoverage,
  v1DeterministicChecks,
} from "../coverage.ts";
import { RULES } from "../rules/mod.ts";
import { GATE_PROTECTS } from "../lib/guard/engine/closure.ts";

const row = (id: string, kind = "deterministic", preventable = "yes"): CheckInfo => ({
  id,
  stage: id.split(".")[0],
  kind,
  domains: [],
  preventable,
  requires: "",
});

const s = suite("coverage");

s("v1.0.0 deterministic checks: 90 in the catalog, 65 preventable (checks.md §9)", () => {
  const v1 = v1DeterministicChecks(CHECKS);
  assert.is(v1.length, 90);
  assert.is(v1.filter((c) => c.preventable === "yes").length, 65);
});

s("patterns, judges, legacy families and not-emitted checks are left out", () => {
  const picked = v1DeterministicChecks([
    row("md.signed_off"),
    row("judge.md_review:final_decision", "judge"),
    row("cm_gate.<gate_id>"),
    row("provider.case_exists"),
    row("e2e.p2p_completed"),
    row("md.role_compliance"),
  ]).map((c) => c.id);
  assert.equal(picked, ["md.signed_off"]);
});

s("protectors list rules first, then gate obligations prefixed gate:", () => {
  const p = protectorsOf([{ meta: { id: "UM-05", protects: ["md.signed_off"] } }], {
    "UM-LETTER": ["outcome.letter_types"],
  });
  assert.equal(p.map((x) => x.id), ["UM-05", "gate:UM-LETTER"]);
});

s("totals count protected checks overall and among preventable ones", () => {
  const report = coverageReport(
    [{ id: "UM-05", checks: ["md.signed_off"] }, { id: "gate:X", checks: ["a.b"] }],
    [row("md.signed_off", "deterministic", "partly"), row("a.b"), row("c.d")],
  );
  assert.equal(report.totals, {
    rules: 1,
    checks: 3,
    protected: 2,
    preventableYes: 2,
    preventableYesProtected: 1,
    designTarget: DESIGN_TARGET,
  });
  assert.equal(report.rows.find((r) => r.id === "c.d")?.by, []);
});

s("the real trace protects more than the original design's 42", () => {
  const report = coverageReport(protectorsOf(RULES, GATE_PROTECTS), CHECKS);
  assert.ok(report.totals.protected >= DESIGN_TARGET, String(report.totals.protected));
  const text = renderCoverage(report);
  assert.match(text, /^Rule → protected checks/);
  assert.match(text, /Totals: \d+ rules; \d+ of 90 v1\.0\.0 deterministic checks protected\./);
  assert.match(text, /md\.signed_off\s+partly\s+UM-05/);
  assert.match(
    text,
    /packet_absent\s+partly\s+PP-02, PP-03\n\s+doomed by docs\.create_submission_bundle or auth/,
  );
  assert.match(text, /case_created .*\n\s+doomed by cases\.create_from_order #2\n/);
});

s.run();
