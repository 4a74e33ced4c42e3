/**
 * The real packets hold no credentials (secretlint's preset finds none in them: `bench/redact.ts`), so
 * replaying them must leave no redaction marker anywhere a rule or the model reads: per packet, 0 deny
 * reasons, 0 rule messages, 0 case keys, 0 arguments and 0 ids with `[redacted` — and none anywhere in
 * the ledgers. The critic arm is replayed: its records carry every rule's and judge's message.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { countMarks, noMarks, scanReplay } from "../lib/results/redaction_marks.ts";
import { EXTRA, TUNING } from "../scripts/rule_regression.ts";

const s = suite("redaction on the packets");
const out = mkdtempSync(join(tmpdir(), "fiable-redaction-"));
s.after(() => rmSync(out, { recursive: true, force: true }));

s("the scan counts a marker in a deny reason, a message, a case, an argument and an id", () => {
  const row = countMarks([
    JSON.stringify({
      decision: "deny",
      reason: "Cannot call x with [redacted]",
      rules: [{ id: "CM-07", checks: [], message: "call y with [redacted]" }],
      case: "[redacted]",
      input: { nested: ["[redacted].pdf"] },
    }),
    JSON.stringify({ decision: "record", ids: ["CASE-1"], result: "[redacted: long token]" }),
  ], noMarks("a", "p"));
  assert.equal(
    [row.denies, row.deniesMarked, row.messagesMarked, row.casesMarked, row.inputsMarked, row.recordsMarked],
    [1, 1, 1, 1, 1, 2],
  );
  assert.is(row.markers, 5);
});

s("the ten packets replayed: no marker where a rule or the model reads, none anywhere", async () => {
  if (!existsSync(TUNING) || !existsSync(EXTRA)) {
    console.log(`  (skipped: ${TUNING} or ${EXTRA} is absent)`);
    return;
  }
  await replayTrees([TUNING, EXTRA], { arms: ["critic"], out, columnar: false });
  const rows = scanReplay(out);
  assert.is(rows.length, 10, rows.map((r) => r.packet).join(", "));
  for (const r of rows) {
    const where = `${r.packet}: ${JSON.stringify(r)}`;
    assert.ok(r.records > 0, where);
    assert.equal(
      [r.deniesMarked, r.messagesMarked, r.casesMarked, r.inputsMarked, r.idsMarked, r.markers],
      [0, 0, 0, 0, 0, 0],
      where,
    );
  }
  // The replay did block (a run with no deny would pass vacuously).
  assert.ok(rows.reduce((n, r) => n + r.denies, 0) > 100, "the critic arm denied on the packets");
});

s.run();
