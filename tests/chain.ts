/**
 * The ledger's chain (lib/guard/ledger/chain.ts): what a reader trusts after each kind of tampering an agent's
 * shell can do to a ledger — a line edited, forged without the key, deleted, moved, copied, a junk line, a
 * record of the old format — and what it still trusts when two hook processes append at the same instant.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  ChainCheck,
  chainKey,
  GENESIS,
  Hmac256,
  type LineKind,
  linkOf,
  seal,
  tailLink,
  UNKEYED,
  unseal,
  WINDOW,
} from "../lib/guard/ledger/chain.ts";
import { ledgerText, recordLine } from "../lib/guard/ledger/ledger.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { createHmac } from "node:crypto";

const s = suite("chain");

const KEY = chainKey("a".repeat(64));
const record = (i: number, event: LedgerRecord["event"] = "post"): LedgerRecord => ({
  v: 1,
  t: `2026-12-06T00:00:${String(i).padStart(2, "0")}.000Z`,
  session: "s",
  event,
  arm: "checklist",
  decision: "record",
  tool: "payer_intake_hub.list_intake_queue",
  tool_use_id: `toolu_${i}`,
});
/** Ten records as the guard writes them. */
const lines = (key = KEY) =>
  ledgerText(Array.from({ length: 10 }, (_, i) => record(i)), key).split("\n").slice(0, -1);

/** The kind the check gives each line, in order. */
function kinds(texts: readonly string[], key = KEY): LineKind[] {
  const check = new ChainCheck(key);
  return texts.map((t) => check.line(t));
}

/** Every line linked but those at `at`, which are `kind`. */
function expect(texts: readonly string[], want: Record<number, LineKind>, key = KEY): void {
  const got = kinds(texts, key);
  assert.equal(got, texts.map((_, i) => want[i] ?? "linked"), JSON.stringify(got));
}

s("the HMAC gives createHmac's bytes, for keys short, of a block, long and not ASCII", () => {
  for (const key of [UNKEYED, KEY, "k".repeat(64), "k".repeat(65), "ключ-✓".repeat(20), ""]) {
    const m = new Hmac256(key);
    for (const parts of [[], ["a"], ["p\n", '{"v":2}'], ["x".repeat(10_000), "é"]]) {
      const want = createHmac("sha256", key).update(parts.join("")).digest("hex");
      assert.is(m.hex(...parts), want, `${key.slice(0, 8)}… ${parts.length} parts`);
    }
  }
});

s("a line seals and unseals: its record text, the link it follows and its own", () => {
  const json = JSON.stringify({ ...record(1), v: 2 });
  const { line, c } = seal(json, GENESIS, KEY);
  assert.equal(unseal(line), { json, p: GENESIS, c });
  assert.ok(JSON.parse(line).c === c && JSON.parse(line).p === GENESIS, "the line is still one JSON object");
  assert.is(linkOf(line), c);
  assert.is(unseal(json), null);
  assert.is(linkOf("junk").length, 64);
});

s("the guard's own ledger is trusted line by line; another key trusts none of it", () => {
  expect(lines(), {});
  assert.ok(kinds(lines(), chainKey("b".repeat(64))).every((k) => k === "forged"));
  assert.ok(kinds(lines(KEY), UNKEYED).every((k) => k === "forged"), "sealed without the trial's key");
});

s("an edited line is forged; the lines after it stay trusted", () => {
  const t = lines();
  t[4] = t[4].replace('"toolu_4"', '"toolu_X"');
  expect(t, { 4: "forged" });
});

s("a line forged without the key (a plain digest, or copied fields) is forged", () => {
  const t = lines();
  const forged = seal(JSON.stringify({ ...record(20), v: 2 }), linkOf(t[9]), UNKEYED).line;
  expect([...t, forged], { 10: "forged" });
  // Another session's record, its session renamed: its `c` no longer covers it.
  const renamed = t[3].replace('"session":"s"', '"session":"victim"');
  expect([...t, renamed], { 10: "forged" });
});

s("a deleted line leaves the line after it unlinked, and only it", () => {
  const t = lines();
  t.splice(5, 1);
  expect(t, { 5: "unlinked" });
  expect(lines().slice(3), { 0: "unlinked" }, KEY);
});

s("lines moved out of order, or copied from further back, are not trusted", () => {
  const t = lines();
  const moved = [...t.slice(0, 3), t[9], ...t.slice(3, 9)];
  expect(moved, { 3: "unlinked" });
  // A line copied from within the window repeats a link; from before it, links nothing near.
  expect([...t, t[8]], { 10: "duplicate" });
  expect([...t, t[1]], { 10: "unlinked" });
});

s("junk and records of the old format: junk anywhere, old records trusted only in an unchained file", () => {
  const t = lines();
  expect([...t.slice(0, 5), "junk", ...t.slice(5)], { 5: "junk" });
  expect([...t, "{not json"], { 10: "junk" });
  const old = JSON.stringify(record(30));
  expect([...t, old], { 10: "forged" });
  expect([old, old], { 0: "legacy", 1: "legacy" });
  // Old records before the chain: the check trusts them while it cannot know; the reader drops them once it can.
  const check = new ChainCheck(KEY);
  assert.is(check.line(old), "legacy");
  check.line(t[0]);
  assert.ok(check.chained);
});

s(`appends racing: up to ${WINDOW} lines that found the same last line are all trusted`, () => {
  const t = lines().slice(0, 3);
  const p = linkOf(t[2]);
  const racers = [20, 21, 22].map((i) => seal(JSON.stringify({ ...record(i), v: 2 }), p, KEY));
  const next = seal(JSON.stringify({ ...record(23), v: 2 }), racers[1].c, KEY);
  expect([...t, ...racers.map((r) => r.line), next.line], {});
});

s("a record appended after junk links to the junk, as its writer found it", () => {
  const t = lines().slice(0, 3);
  const junk = "x".repeat(5000);
  const tail = new TextEncoder().encode([...t, junk].join("\n") + "\n");
  const p = tailLink(tail.subarray(tail.length - 8192));
  assert.is(p, linkOf(junk));
  const { line } = recordLine(record(40), p, KEY);
  expect([...t, junk, line], { 3: "junk" });
  assert.is(tailLink(new Uint8Array()), GENESIS);
  assert.is(tailLink(new TextEncoder().encode(t[0] + "\n" + t[1])), linkOf(t[1]), "a last line cut short");
});

s("the first line links to the start of the chain; a ledger cut at its start is not trusted", () => {
  const t = lines();
  expect(["junk", ...t], { 0: "junk" });
  expect(t.slice(1), { 0: "unlinked" });
});

s("after a gap (a ledger read in part) the next chained line starts anew", () => {
  const t = lines();
  const check = new ChainCheck(KEY);
  for (const line of t.slice(0, 2)) check.line(line);
  check.gap();
  assert.equal(t.slice(6).map((l) => check.line(l)), ["linked", "linked", "linked", "linked"]);
});

s("a check goes on from where a checkpoint left it", () => {
  const t = lines();
  const first = new ChainCheck(KEY);
  for (const line of t.slice(0, 6)) first.line(line);
  const next = new ChainCheck(KEY, first.start());
  assert.equal(t.slice(6).map((l) => next.line(l)), ["linked", "linked", "linked", "linked"]);
  const cold = new ChainCheck(KEY, { links: [GENESIS], chained: true });
  assert.is(cold.line(t[6]), "unlinked");
});

s.run();
