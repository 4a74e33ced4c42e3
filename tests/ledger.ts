/** The ledger: one valid JSON line per record, corrupt lines skipped and counted. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendRecord, ledgerFileName, parseLedger, readLedger } from "../lib/guard/ledger/ledger.ts";
import { capValue, type LedgerRecord } from "../lib/guard/engine/record.ts";
import { cpuTimed } from "./support/slowdown.ts";

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

const NAMES: [string, RegExp][] = [
  ["9b1c-uuid", /^9b1c-uuid\.jsonl$/],
  ["col_1", /^col_1\.jsonl$/],
  ["col/1", /^col_1~[0-9a-f]{16}\.jsonl$/],
  ["../../etc/passwd", /^______etc_passwd~[0-9a-f]{16}\.jsonl$/],
  ["..", /^__~[0-9a-f]{16}\.jsonl$/],
  ["", /^session~[0-9a-f]{16}\.jsonl$/],
  ["x".repeat(300), /^x{60}~[0-9a-f]{16}\.jsonl$/],
];
for (const [session, file] of NAMES) {
  s(
    `ledger file for "${session.slice(0, 20)}" matches ${file}`,
    () => assert.match(ledgerFileName(session), file),
  );
}

s("ledger file names never collide: unsafe ids hash the whole id, plain names hold no ~", () => {
  const ids = ["col/1", "col_1", "col:1", "col 1", "col/1/", "x".repeat(300), "x".repeat(301), "", "."];
  const names = new Set(ids.map(ledgerFileName));
  assert.is(names.size, ids.length);
  for (const name of names) assert.not.match(name, /[/\\]|^\.\.?\.jsonl$/);
});

s("readLedger keeps only its session's records, from the old shared name and the new one", () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
  const rec = (session: string, t: string) => ({
    v: 1,
    t,
    session,
    event: "pre",
    arm: "checklist",
    decision: "allow",
  });
  // Before collision-free names, "col/1" and "col_1" both wrote col_1.jsonl.
  writeFileSync(
    join(dir, "col_1.jsonl"),
    [rec("col/1", "a"), rec("col_1", "b")].map((r) => JSON.stringify(r)).join("\n") + "\n",
  );
  appendRecord(dir, rec("col/1", "c") as LedgerRecord);
  assert.equal(readLedger(dir, "col/1").records.map((r) => r.t), ["a", "c"]);
  assert.equal(readLedger(dir, "col_1").records.map((r) => r.t), ["b"]);
});

s("a new ledger file is created rw-r--r-- whatever the runtime's default", () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
  appendRecord(dir, { v: 1, t: "", session: "mode", event: "pre", arm: "checklist", decision: "allow" });
  assert.is(statSync(join(dir, "mode.jsonl")).mode & 0o777, 0o644);
});

s("a ledger over 8 MB is read as its head and tail, with a degraded marker where its middle was", () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
  const line = (i: number) =>
    JSON.stringify({
      v: 1,
      t: String(i),
      session: "big",
      event: "post",
      arm: "checklist",
      decision: "record",
      result: "r".repeat(1000),
    });
  const lines: string[] = [];
  for (let i = 0; i < 10_000; i++) lines.push(line(i));
  writeFileSync(join(dir, "big.jsonl"), lines.join("\n") + "\n");
  // CPU time, not wall time: a loaded machine stretches the latter, not the read's work.
  const { value: { records, corrupt }, cpuMs } = cpuTimed(() => readLedger(dir, "big"));
  assert.ok(cpuMs < 1000, `took ${Math.round(cpuMs)} ms of CPU`);
  assert.is(corrupt, 0);
  const marker = records.findIndex((r) => r.degraded);
  assert.ok(marker > 0 && marker < records.length - 1);
  assert.is(records[0].t, "0");
  assert.is(records.at(-1)!.t, "9999");
  assert.match(records[marker].note ?? "", "not read");
});

s.run();
