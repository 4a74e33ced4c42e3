/** The ledger: one valid JSON line per record, corrupt lines skipped and counted. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { capValue, ledgerFileName, parseLedger } from "../lib/guard/ledger.ts";

const s = suite("ledger");

s("parseLedger skips and counts truncated and foreign lines", () => {
  const good = JSON.stringify({ v: 1, event: "pre", decision: "allow", session: "s" });
  const { records, corrupt } = parseLedger(`${good}\n{"v":1,"ev\n[1,2]\n\n${good}\n`);
  assert.is(records.length, 2);
  assert.is(corrupt, 2);
});

s("capValue keeps small values and marks large ones", () => {
  assert.equal(capValue({ a: 1 }, 100), { a: 1 });
  assert.equal(capValue("abcdef", 3), "abc…[truncated]");
  const capped = capValue({ blob: "x".repeat(500) }, 50) as { _truncated: number; preview: string };
  assert.is(capped._truncated, 511);
  assert.is(capped.preview.length, 50);
});

const NAMES: [string, string][] = [
  ["9b1c-uuid", "9b1c-uuid.jsonl"],
  ["../../etc/passwd", ".._.._etc_passwd.jsonl"],
  ["", "session.jsonl"],
];
for (const [session, file] of NAMES) {
  s(`ledger file for "${session}" is ${file}`, () => assert.is(ledgerFileName(session), file));
}

s.run();
