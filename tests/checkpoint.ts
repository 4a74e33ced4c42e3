/**
 * Evidence checkpoints (lib/guard/ledger/checkpoint.ts): a checkpoint and the lines appended after it fold to what
 * the whole ledger folds to, on every sequence the fold's property tests use; anything wrong with a checkpoint
 * or its ledger is a full read; and the fold's sources cannot change without a new FOLD_VERSION.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkpointName,
  FOLD_VERSION,
  type LoadedEvidence,
  loadEvidence,
  writeCheckpoint,
} from "../lib/guard/ledger/checkpoint.ts";
import { type Evidence, foldLedger } from "../lib/guard/engine/evidence.ts";
import { decideOn } from "../lib/guard/engine/decide.ts";
import { DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { appendRecord, ledgerFileName, parseLedger } from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { type SessionLimits, SessionStore } from "../lib/guard/resident/sessions.ts";
import { benchLedger } from "../bench/latency.ts";
import { host, setHost } from "../lib/guard/runtime/host.ts";
import { moduleGraph } from "../bundle.ts";
import { foldSequences, probes } from "./support/sequences.ts";
import { runGuard, runtimes } from "./support/guard_process.ts";
import { post, pre } from "./support/payloads.ts";

const s = suite("checkpoint");

/** Everything a rule can read from evidence, texts and results included, in a comparable form. */
function dump(ev: Evidence): unknown {
  return {
    prompt: ev.prompt,
    seat: ev.seat,
    phase: ev.phase,
    caseLock: ev.caseLock,
    stopBlocks: ev.stopBlocks,
    degraded: ev.degraded,
    seen: [...ev.seen],
    owners: [...ev.owners],
    denies: [...ev.denies],
    index: ev.index && Object.fromEntries(
      Object.entries(ev.index).map(([k, v]) => [k, v instanceof Set ? [...v] : v]),
    ),
    calls: ev.calls.map((c) => ({
      id: c.id,
      tool: c.tool,
      input: c.input,
      ok: c.ok,
      text: c.text,
      result: c.result,
      error: c.error,
      sidechain: c.sidechain,
      ids: c.ids,
      parsedText: c.parsedText,
    })),
  };
}

/** Asserts `ev` decides each probe after `records` as `full` does (critic arm); returns how many it compared. */
function decidesAlike(records: readonly LedgerRecord[], ev: Evidence, full: Evidence, what: string): number {
  const config = { arm: "critic" as const, bounds: DEFAULT_BOUNDS };
  const now = "2026-12-03T00:00:00.000Z";
  const events = probes(records, records.length - 1);
  for (const event of events) {
    assert.equal(decideOn(event, ev, config, now), decideOn(event, full, config, now), what);
  }
  return events.length;
}

const jsonl = (records: readonly LedgerRecord[]) => records.map((r) => JSON.stringify(r) + "\n").join("");

/** A ledger directory holding the records as the session's ledger. */
function ledgerDir(session: string, records: readonly LedgerRecord[]): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "fiable-checkpoint-"));
  const file = join(dir, ledgerFileName(session));
  writeFileSync(file, jsonl(records));
  return { dir, file };
}

/** Loads the session (full read), writes its checkpoint, and returns what was loaded. */
function checkpointed(dir: string, session: string): LoadedEvidence {
  const loaded = loadEvidence(dir, session);
  assert.ok(loaded.bytes !== null, "a whole-line ledger has known bytes");
  writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
  return loaded;
}

const SEQUENCES: [string, LedgerRecord[]][] = [...foldSequences(), [
  "bench ledger (500 records)",
  benchLedger(),
]];

s(
  `a checkpoint and the lines after it fold as the whole ledger does (${SEQUENCES.length} ledgers, 5 cuts each)`,
  () => {
    let compared = 0;
    for (const [name, all] of SEQUENCES) {
      const session = all[0].session;
      const records = all.map((r) => ({ ...r, session }));
      for (const cut of new Set([0, 1, Math.floor(records.length / 3), records.length - 1, records.length])) {
        const { dir, file } = ledgerDir(session, records.slice(0, cut));
        checkpointed(dir, session);
        appendFileSync(file, jsonl(records.slice(cut)));
        const resumed = loadEvidence(dir, session);
        assert.ok(resumed.from, `${name} @${cut}: the checkpoint was not used`);
        const full = foldLedger(records);
        assert.equal(dump(resumed.ev), dump(full), `${name} @${cut}`);
        assert.is(resumed.bytes, readFileSync(file).length);
        compared += decidesAlike(records, resumed.ev, full, name);
      }
    }
    assert.ok(compared > 100, `compared ${compared} decisions`);
  },
);

s(
  "texts the UTF-8 file cannot carry as they are (a lone surrogate), errors beside objects, and no ids survive",
  () => {
    const session = "odd-texts";
    const base = { v: 1 as const, t: "2026-12-03T00:00:00.000Z", session, arm: "critic" as const };
    const records: LedgerRecord[] = [
      { ...base, event: "prompt", decision: "record", prompt: "# MD Review CASE-3903B8ED" },
      {
        ...base,
        event: "post",
        decision: "record",
        tool: "review.get_md_review_data",
        input: {},
        result: "half \ud800 a pair",
      },
      {
        ...base,
        event: "post-fail",
        decision: "record",
        tool: "review.save_md_review",
        input: { a: 1 },
        error: "boom",
      },
      {
        ...base,
        event: "post",
        decision: "record",
        tool: "determination.get_summary",
        input: { case_id: "CASE-3903B8ED" },
        result: { case: { id: "CASE-3903B8ED" } },
        error: "partly failed",
      } as LedgerRecord,
      { ...base, event: "post", decision: "record", tool: "p2p.list", input: {}, result: 42, ids: [] },
      { ...base, event: "post", decision: "record", tool: "p2p.list", input: {}, result: null },
    ];
    const { dir } = ledgerDir(session, records);
    checkpointed(dir, session);
    const resumed = loadEvidence(dir, session);
    assert.ok(resumed.from);
    assert.equal(dump(resumed.ev), dump(foldLedger(records)));
    assert.is(resumed.ev.calls[0].text, "half \ud800 a pair");
  },
);

s("checkpoints chain: each one folds only what came after the last, and old data files are removed", () => {
  const records = benchLedger();
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records.slice(0, 100));
  let loaded = checkpointed(dir, session);
  for (let at = 100; at < records.length; at += 100) {
    appendFileSync(file, jsonl(records.slice(at, at + 100)));
    loaded = loadEvidence(dir, session);
    assert.ok(loaded.from);
    assert.ok(loaded.folded <= 100, `folded ${loaded.folded} records, not only the new ones`);
    writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
  }
  assert.equal(dump(loaded.ev), dump(foldLedger(records)));
  const data = readdirSync(dir).filter((f) => f.includes(".fold-"));
  assert.ok(data.length <= 2, `data files kept: ${data.join(", ")}`);
});

s("a checkpoint whose id table is permuted (its references with it) answers as the whole ledger does", () => {
  const records = benchLedger();
  const session = records[0].session;
  const { dir } = ledgerDir(session, records);
  checkpointed(dir, session);
  // Swap the first and last id strings and every reference to them: the same evidence, another table order.
  const headerPath = join(dir, checkpointName(session));
  const h = JSON.parse(readFileSync(headerPath, "utf8"));
  const strings: string[] = h.ev.strings;
  const last = strings.length - 1;
  [strings[0], strings[last]] = [strings[last], strings[0]];
  const data = readFileSync(join(dir, h.data));
  const ints = new Uint32Array(data.buffer, data.byteOffset, h.ev.regions[0] / 4);
  let at = 0;
  for (const [k, n] of Object.entries(h.ev.counts as Record<string, number>)) {
    if (k !== "calls") {
      for (let i = at; i < at + n; i++) ints[i] = ints[i] === 0 ? last : ints[i] === last ? 0 : ints[i];
    }
    at += n;
  }
  writeFileSync(join(dir, h.data), data);
  writeFileSync(headerPath, JSON.stringify(h));
  const loaded = loadEvidence(dir, session);
  assert.ok(loaded.from, "the checkpoint was used");
  assert.ok(loaded.ev.seen.size > 100);
  const full = foldLedger(records);
  assert.equal(dump(loaded.ev), dump(full));
  decidesAlike(records, loaded.ev, full, "a table out of order");
});

/** A checkpointed ledger, then `spoil`; the next load must be a full read with the full fold's evidence. */
function spoiled(what: string, spoil: (dir: string, file: string, session: string) => void): void {
  const records = benchLedger().slice(0, 120);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records);
  checkpointed(dir, session);
  spoil(dir, file, session);
  const loaded = loadEvidence(dir, session);
  assert.not.ok(loaded.from, `${what}: the checkpoint was used`);
  const now = parseLedger(readFileSync(file, "utf8"));
  const full = foldLedger(now.records.filter((r) => r.session === session));
  // A line the read skipped (a ledger cut mid-line) degrades the evidence.
  assert.equal(dump(loaded.ev), dump({ ...full, degraded: full.degraded || now.corrupt > 0 }), what);
}

s("anything wrong with a checkpoint or its ledger is a full read", () => {
  const header = (dir: string, session: string) => join(dir, checkpointName(session));
  const edit = (path: string, change: (h: Record<string, unknown>) => void) => {
    const h = JSON.parse(readFileSync(path, "utf8"));
    change(h);
    writeFileSync(path, JSON.stringify(h));
  };
  spoiled("the ledger replaced by another", (_dir, file) => {
    const other = benchLedger().slice(0, 130).map((r) => ({ ...r, t: "2026-01-01T00:00:00.000Z" }));
    writeFileSync(file, jsonl(other));
  });
  spoiled("the ledger cut short", (_dir, file) => {
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, text.length / 2));
  });
  spoiled("a record before the offset rewritten", (_dir, file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    lines[lines.length - 2] = lines[lines.length - 2].replace('"pre"', '"pre" ');
    writeFileSync(file, lines.join("\n"));
  });
  spoiled("a header that is not JSON", (dir, _file, session) => writeFileSync(header(dir, session), "{"));
  spoiled("a header of another version", (dir, _f, session) => edit(header(dir, session), (h) => (h.v = 99)));
  spoiled(
    "a header of another session",
    (dir, _f, session) => edit(header(dir, session), (h) => (h.session = "x")),
  );
  spoiled(
    "a header without an offset",
    (dir, _f, session) => edit(header(dir, session), (h) => delete h.bytes),
  );
  spoiled("its data file gone", (dir, _f, session) => {
    const h = JSON.parse(readFileSync(header(dir, session), "utf8"));
    Deno.removeSync(join(dir, h.data));
  });
  spoiled(
    "a header whose counts disagree with its data",
    (dir, _f, session) =>
      edit(header(dir, session), (h) => ((h.ev as { counts: { calls: number } }).counts.calls += 5)),
  );
  spoiled(
    "a header without its id strings",
    (dir, _f, session) => edit(header(dir, session), (h) => ((h.ev as { strings: string[] }).strings = [])),
  );
  spoiled(
    "a header whose id table holds a number",
    (dir, _f, session) =>
      edit(header(dir, session), (h) => ((h.ev as { strings: unknown[] }).strings[0] = 7)),
  );
  spoiled(
    "a header without its tool names",
    (dir, _f, session) => edit(header(dir, session), (h) => ((h.ev as { tools: string[] }).tools = [])),
  );
  spoiled(
    "a header whose regions overrun",
    (dir, _f, session) => edit(header(dir, session), (h) => ((h.ev as { regions: number[] }).regions[1] = 3)),
  );
  spoiled("a header of 65 MB (over the 64 MB bound)", (dir, _f, session) => {
    Deno.truncateSync(header(dir, session), 65 * 1024 * 1024);
  });
  spoiled("a data file cut short", (dir, _f, session) => {
    const h = JSON.parse(readFileSync(header(dir, session), "utf8"));
    const data = readFileSync(join(dir, h.data));
    writeFileSync(join(dir, h.data), data.subarray(0, data.length - 10));
  });
  spoiled("a header of the other byte order", (dir, _f, session) =>
    edit(header(dir, session), (h) => {
      const ev = h.ev as { endian: string };
      ev.endian = ev.endian === "le" ? "be" : "le";
    }));
});

s("a checkpoint is written next to the ledger and named from it; the ledger is never touched", () => {
  const records = benchLedger().slice(0, 50);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records);
  const before = readFileSync(file, "utf8");
  checkpointed(dir, session);
  assert.is(readFileSync(file, "utf8"), before);
  assert.ok(existsSync(join(dir, checkpointName(session))));
  assert.ok(readdirSync(dir).every((f) => f === ledgerFileName(session) || f.startsWith(`${session}.fold`)));
});

/** The hook events of a payer session's next calls: reads, saves and, every eighth call, a finalize. */
function sessionEvents(session: string, count: number): [string, string][] {
  const events: [string, string][] = [];
  for (let i = 0; events.length < count; i++) {
    const id = `toolu_ck${i}`;
    const finalize = i % 8 === 7;
    const tool = finalize
      ? "determination_finalize"
      : ["review_get_md_review_data", "review_save_md_review"][i % 2];
    const input = finalize
      ? { case_id: "CASE-3903B8ED", decision: "approved", rationale: "Criteria 1-3 met per the MD review." }
      : { case_id: "CASE-3903B8ED", note: `pass ${i}` };
    events.push(["pre", pre(session, tool, input, id)]);
    if (!finalize) {
      events.push(["post", post(session, tool, input, { case: { id: "CASE-3903B8ED" }, i }, id)]);
    }
  }
  return events;
}

s("command mode decides and records the same with checkpoints as without, under both runtimes", async () => {
  const seed = benchLedger().slice(0, 200);
  const session = seed[0].session;
  for (const runtime of await runtimes()) {
    const dirs = [ledgerDir(session, seed).dir, ledgerDir(session, seed).dir];
    const modes: Record<string, string>[] = [{}, { FIABLE_CHECKPOINT: "0" }];
    for (const [word, payload] of sessionEvents(session, 72)) {
      const replies = [];
      for (const [k, dir] of dirs.entries()) {
        const run = await runGuard(runtime, word, payload, {
          FIABLE_LEDGER_DIR: dir,
          FIABLE_CC_ARM: "critic",
          ...modes[k],
        });
        replies.push(run.reply());
      }
      assert.equal(replies[0], replies[1], `${runtime.name} ${word}`);
    }
    const [withCk, without] = dirs.map((dir) =>
      parseLedger(readFileSync(join(dir, ledgerFileName(session)), "utf8")).records.map((r) => ({
        ...r,
        t: "",
        latency_ms: 0,
      }))
    );
    assert.equal(withCk, without, runtime.name);
    const header = JSON.parse(readFileSync(join(dirs[0], checkpointName(session)), "utf8"));
    // Written first over the 200 seeded records, then again once 32 more were folded.
    const seeded = new TextEncoder().encode(jsonl(seed)).length;
    assert.ok(header.bytes > seeded, `${runtime.name}: no checkpoint was kept up (${header.bytes} bytes)`);
    assert.not.ok(existsSync(join(dirs[1], checkpointName(session))), "FIABLE_CHECKPOINT=0 wrote one");
  }
});

s("a checkpoint that cannot be written costs the next hook a full read, never an answer", async () => {
  const seed = benchLedger().slice(0, 100);
  const session = seed[0].session;
  const { dir } = ledgerDir(session, seed);
  // The header's path is a directory: every write of it fails, as on a full or read-only disk.
  Deno.mkdirSync(join(dir, checkpointName(session)));
  const [runtime] = await runtimes();
  for (const [word, payload] of sessionEvents(session, 4)) {
    const run = await runGuard(runtime, word, payload, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic" });
    assert.is(run.code, 0);
    assert.ok(run.reply(), word);
    assert.is(run.stderr, "", "a failed checkpoint is not an error");
  }
});

const store = suite("checkpoint: the resident guard's store");

/** A store over a fresh ledger directory, with a hand-driven clock; `save` writes and folds as serve.ts does. */
function storeOver(limits: Partial<SessionLimits> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "fiable-store-"));
  let now = 0;
  const held = new SessionStore({ ledgerDir: dir, limits, now: () => now });
  const save = (r: LedgerRecord, written = true) => {
    const bytes = appendRecord(dir, r);
    held.fold(r, false, written ? bytes : null);
  };
  return { dir, store: held, save, advance: (ms: number) => (now += ms) };
}

const STORE_LEDGER = benchLedger().slice(0, 150);
const STORE_SESSION = STORE_LEDGER[0].session;

store(
  "a released session is checkpointed, and comes back from its checkpoint equal to the whole fold",
  () => {
    const { dir, store, save } = storeOver();
    store.evidence(STORE_SESSION);
    for (const r of STORE_LEDGER) save(r);
    assert.ok(store.end(STORE_SESSION));
    const header = JSON.parse(readFileSync(join(dir, checkpointName(STORE_SESSION)), "utf8"));
    assert.is(header.bytes, readFileSync(join(dir, ledgerFileName(STORE_SESSION))).length);
    assert.ok(loadEvidence(dir, STORE_SESSION).from, "the next load does not use the checkpoint");
    assert.equal(dump(store.evidence(STORE_SESSION)), dump(foldLedger(STORE_LEDGER)));
    assert.is(store.size().releases.rebuilt, 1);
  },
);

store("no checkpoint when another process appended, or a record did not reach the ledger", () => {
  for (const spoil of ["foreign", "unwritten"] as const) {
    const { dir, store, save } = storeOver();
    store.evidence(STORE_SESSION);
    for (const r of STORE_LEDGER.slice(0, 40)) save(r);
    if (spoil === "foreign") appendRecord(dir, { ...STORE_LEDGER[1], t: "2026-12-03T01:00:00.000Z" });
    else save(STORE_LEDGER[40], false);
    store.end(STORE_SESSION);
    assert.not.ok(existsSync(join(dir, checkpointName(STORE_SESSION))), `${spoil}: a checkpoint was written`);
    const onDisk = parseLedger(readFileSync(join(dir, ledgerFileName(STORE_SESSION)), "utf8")).records;
    // A record that did not reach the ledger: the session comes back degraded, as its ledger lacks it.
    const expected = { ...foldLedger(onDisk), degraded: spoil === "unwritten" };
    assert.equal(dump(store.evidence(STORE_SESSION)), dump(expected), spoil);
  }
});

store("the sweep checkpoints a held session every checkpointEvery records, and keeps holding it", () => {
  const { dir, store, save, advance } = storeOver({ checkpointEvery: 50 });
  store.evidence(STORE_SESSION);
  for (const r of STORE_LEDGER.slice(0, 49)) save(r);
  advance(1);
  store.sweep();
  assert.not.ok(existsSync(join(dir, checkpointName(STORE_SESSION))), "written before 50 records");
  save(STORE_LEDGER[49]);
  store.sweep();
  assert.ok(existsSync(join(dir, checkpointName(STORE_SESSION))), "not written at 50 records");
  assert.ok(store.holds(STORE_SESSION));
  for (const r of STORE_LEDGER.slice(50)) save(r);
  // A guard that dies now resumes from that checkpoint and the 100 records after it.
  const resumed = loadEvidence(dir, STORE_SESSION);
  assert.ok(resumed.from);
  assert.equal(dump(resumed.ev), dump(foldLedger(STORE_LEDGER)));
});

store(
  "a checkpoint that cannot be written is tried again after checkpointEvery records, not at every sweep",
  () => {
    const { dir, store, save, advance } = storeOver({ checkpointEvery: 20 });
    store.evidence(STORE_SESSION);
    // The header's path is a directory: every write of it fails, as on a full disk.
    Deno.mkdirSync(join(dir, checkpointName(STORE_SESSION)));
    let tries = 0;
    const real = host;
    setHost({
      ...real,
      writeWhole: (path, data) => (path.endsWith(".fold.json") && tries++, real.writeWhole(path, data)),
    });
    try {
      for (const r of STORE_LEDGER.slice(0, 20)) save(r);
      store.sweep();
      assert.is(tries, 1, "the first sweep did not try");
      for (let k = 0; k < 5; k++) {
        advance(1);
        store.sweep();
      }
      assert.is(tries, 1, "every sweep tried again");
      for (const r of STORE_LEDGER.slice(20, 40)) save(r);
      store.sweep();
      assert.is(tries, 2, "not tried again after 20 more records");
    } finally {
      setHost(real);
    }
    assert.equal(
      readdirSync(dir).filter((f) => f.includes(".fold-")),
      [],
      "a failed checkpoint left its data file",
    );
  },
);

/**
 * The files whose code decides what a fold produces or how a checkpoint holds it: everything the fold and the
 * checkpoint modules import, as `deno info` lists it. A change to any of them may change what a checkpoint
 * must hold: bump FOLD_VERSION (older checkpoints are then ignored), then record the new digest here (a change
 * that cannot alter a fold, such as a comment, needs only the new digest).
 */
const FOLD_DIGEST = {
  version: 5,
  sha256: "e51a11cfc407d3cd01b716e8624d849d2c41cdcf35108a0b0580b6f9d1174a25",
};

s("the fold's sources cannot change without a new FOLD_VERSION", async () => {
  const root = join(import.meta.dirname ?? ".", "..");
  const files = (await moduleGraph("lib/guard/ledger/checkpoint.ts")).map((m) => m.specifier)
    .filter((m) => m.startsWith("file:")).map((m) => decodeURIComponent(new URL(m).pathname)).sort();
  assert.ok(files.some((f) => f.endsWith("/lib/guard/engine/evidence.ts")), files.join(" "));
  const text = files.map((f) => `${f.slice(root.length)}\n${readFileSync(f, "utf8")}`).join("\n");
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  assert.is(
    `${FOLD_VERSION} ${digest}`,
    `${FOLD_DIGEST.version} ${FOLD_DIGEST.sha256}`,
    `the fold's sources changed (${files.length} files): bump FOLD_VERSION in lib/guard/ledger/checkpoint.ts and ` +
      "record the digest in tests/checkpoint.ts",
  );
});

s.run();
store.run();
