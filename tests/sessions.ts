/** The resident guard's session store: held evidence, release (ended, idle, caps) and rebuild from the ledger. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendRecord } from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { foldLedger } from "../lib/guard/engine/evidence.ts";
import { groundedIds } from "../lib/guard/engine/facts.ts";
import { decide, DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { foldsToNothing } from "../lib/guard/engine/evidence.ts";
import { sessionLimits, SessionStore } from "../lib/guard/resident/sessions.ts";
import { sampleTrials } from "../lib/samples/trials.ts";
import { tempLedger } from "./support/guard_process.ts";

const s = suite("sessions");

/** A store over a fresh ledger dir with a hand-driven clock. */
function storeOf(limits: Parameters<typeof sessionLimits>[0] = {}) {
  const dir = tempLedger();
  let now = 0;
  const store = new SessionStore({ ledgerDir: dir, limits: sessionLimits(limits).limits, now: () => now });
  return { dir, store, advance: (ms: number) => (now += ms) };
}

/** Saves then folds, as serve.ts does. */
function save(dir: string, store: SessionStore, record: LedgerRecord, stopped = false): void {
  appendRecord(dir, record);
  store.fold(record, stopped);
}

const LEDGER = sampleTrials({ arms: ["checklist"], attempts: 1 }).map((t) => t.ledger).find((l) =>
  l.some((r) => r.decision === "deny")
)!;
const SESSION = LEDGER[0].session;

/** What a rebuilt session must agree on with one that was held all along. */
function state(ev: ReturnType<typeof foldLedger>) {
  return {
    calls: ev.calls.length,
    caseLock: ev.caseLock,
    denies: [...ev.denies],
    stopBlocks: ev.stopBlocks,
    seat: ev.seat,
    grounded: [...groundedIds(ev)].sort(),
  };
}

s("a released session comes back folded from its ledger, equal to one held all along", () => {
  const { dir, store, advance } = storeOf();
  store.evidence(SESSION);
  for (const r of LEDGER) save(dir, store, r);
  const held = state(store.evidence(SESSION));
  save(dir, store, { ...LEDGER[0], event: "stop", decision: "allow" }, true);
  advance(4_999);
  store.sweep();
  assert.ok(store.holds(SESSION), "kept within 5 s of the Stop");
  advance(1);
  store.sweep();
  assert.not.ok(store.holds(SESSION), "released 5 s after a Stop with nothing since");
  assert.equal(state(store.evidence(SESSION)), held);
  assert.equal(state(store.evidence(SESSION)), state(foldLedger(LEDGER)));
  assert.is(store.size().releases.rebuilt, 1);
});

s("an event after a Stop keeps the session (the stop gate blocked; the agent went on)", () => {
  const { dir, store, advance } = storeOf();
  store.evidence(SESSION);
  save(dir, store, LEDGER[0], true);
  advance(3_000);
  save(dir, store, LEDGER[1]);
  advance(10_000);
  store.sweep();
  assert.ok(store.holds(SESSION));
});

s("idle sessions and SessionEnd release; the limits come from the environment", () => {
  const { dir, store, advance } = storeOf({ FIABLE_SESSION_IDLE_MS: "60000" });
  store.evidence("a");
  store.evidence("b");
  save(dir, store, { ...LEDGER[0], session: "b" });
  advance(59_999);
  store.sweep();
  assert.equal([store.holds("a"), store.holds("b")], [true, true]);
  advance(1);
  store.sweep();
  assert.equal([store.holds("a"), store.holds("b")], [false, false]);
  store.evidence("c");
  assert.ok(store.end("c"));
  assert.not.ok(store.holds("c"));
  assert.equal(store.size().releases, { ended: 1, idle: 2, evicted: 0, rebuilt: 0, dropped: 0 });
});

s("a dropped session (a record it could not fold) comes back from its ledger with that record", () => {
  const { dir, store } = storeOf();
  store.evidence(SESSION);
  for (const r of LEDGER.slice(0, -1)) save(dir, store, r);
  appendRecord(dir, LEDGER.at(-1)!);
  store.drop(SESSION);
  assert.not.ok(store.holds(SESSION));
  assert.equal(state(store.evidence(SESSION)), state(foldLedger(LEDGER)));
  assert.is(store.size().releases.dropped, 1);
  store.drop("never-held");
  assert.is(store.size().releases.dropped, 1, "a session not held is not counted");
});

s("past the record or session cap the least recently used go first, never the session in use", () => {
  const { dir, store } = storeOf({ FIABLE_RESIDENT_RECORDS: "30", FIABLE_RESIDENT_SESSIONS: "3" });
  for (const id of ["a", "b", "c"]) store.evidence(id);
  store.evidence("a");
  store.evidence("d");
  assert.equal(["a", "b", "c", "d"].map((id) => store.holds(id)), [true, false, true, true]);
  const records = Array.from({ length: 40 }, (_, i) => ({ ...LEDGER[i % LEDGER.length], session: "d" }));
  for (const r of records) save(dir, store, r);
  assert.ok(store.holds("d"), "the session being folded stays even alone over the cap");
  assert.equal(store.size().sessions, 1);
  assert.equal(state(store.evidence("d")), state(foldLedger(records)));
});

s("past the record cap the session holding the most in memory is checkpointed and stays held", () => {
  // Many sessions posting at once: releasing the least recently used only made it the next to load again.
  const { dir, store } = storeOf({ FIABLE_RESIDENT_RECORDS: "30" });
  const sessions = ["a", "b", "c", "d"];
  for (const id of sessions) store.evidence(id);
  const folded: Record<string, LedgerRecord[]> = { a: [], b: [], c: [], d: [] };
  for (let i = 0; i < 60; i++) {
    const id = sessions[i % 4];
    const record = { ...LEDGER[i % LEDGER.length], session: id };
    folded[id].push(record);
    store.fold(record, false, appendRecord(dir, record));
  }
  assert.equal(sessions.map((id) => store.holds(id)), [true, true, true, true], "a session was released");
  assert.is(store.size().releases.evicted, 0);
  assert.is(store.size().records, 60);
  for (const id of sessions) assert.equal(state(store.evidence(id)), state(foldLedger(folded[id])), id);
});

s("bad limits keep the defaults and say which variable was wrong", () => {
  const { limits, note } = sessionLimits({ FIABLE_RESIDENT_RECORDS: "lots", FIABLE_SESSION_ENDED_MS: "0" });
  assert.equal([limits.maxRecords, limits.endedMs], [50_000, 5_000]);
  assert.match(note ?? "", 'FIABLE_RESIDENT_RECORDS="lots" is not a positive number; using 50000.');
  assert.match(note ?? "", "FIABLE_SESSION_ENDED_MS");
});

s("only allowed pre lines are left unparsed on rebuild, never a deny whose input says allow", () => {
  const config = { arm: "checklist" as const, bounds: DEFAULT_BOUNDS };
  const event = { word: "pre" as const, session: "s", tool: "auth_submit_authorization", toolUseId: "t" };
  const allowed = decide(
    { ...event, input: { case_id: "CASE-ACT-001" } },
    [],
    { ...config, arm: "shadow" },
    "",
  )
    .record!;
  const denied = decide(
    { ...event, input: { case_id: "CASE-ACT-001", note: '"decision":"allow"' } },
    [],
    config,
    "",
  )
    .record!;
  assert.is(denied.decision, "deny");
  assert.ok(foldsToNothing(JSON.stringify({ ...allowed, decision: "allow" })));
  assert.not.ok(foldsToNothing(JSON.stringify(denied)));
  assert.not.ok(foldsToNothing(JSON.stringify({ ...allowed, decision: "shadow" })));
  const inner = { ...denied, session: 'x","arm":"critic","event":"pre","decision":"allow' };
  assert.not.ok(foldsToNothing(JSON.stringify(inner)));
});

s.run();
