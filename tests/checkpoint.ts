/**
 * Evidence checkpoints (lib/guard/ledger/checkpoint.ts): a checkpoint and the lines appended after it fold to what
 * the whole ledger folds to, on every sequence the fold's property tests use; anything wrong with a checkpoint
 * is a full read, and a ledger changed beneath it leaves the checkpoint's evidence standing, reported; and the
 * fold's sources cannot change without a new FOLD_VERSION.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
import { RestoredCall, type Segment, SpoiledCheckpoint } from "../lib/guard/ledger/checkpoint_format.ts";
import { decideOn } from "../lib/guard/engine/decide.ts";
import { DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { appendRecord, ledgerFileName, ledgerText, parseLedger } from "../lib/guard/ledger/ledger.ts";
import { chainKeyOf, UNKEYED } from "../lib/guard/ledger/chain.ts";
import { createHmac } from "node:crypto";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { type SessionLimits, SessionStore } from "../lib/guard/resident/sessions.ts";
import { benchLedger } from "../bench/latency.ts";
import { moduleGraph } from "../bundle.ts";
import { digest } from "../lib/guard/ledger/digest.ts";
import { READ_CHUNK } from "../lib/guard/io.ts";
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

/** The records as a new ledger's text, chained as a guard appends them (no trial key here). */
const jsonl = (records: readonly LedgerRecord[]) => ledgerText(records, UNKEYED);

/** Appends the records to the session's ledger as a guard does, each chained to the line before it. */
function append(dir: string, records: readonly LedgerRecord[]): void {
  for (const r of records) appendRecord(dir, r);
}

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
        append(dir, records.slice(cut));
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
  const { dir } = ledgerDir(session, records.slice(0, 100));
  let loaded = checkpointed(dir, session);
  for (let at = 100; at < records.length; at += 100) {
    append(dir, records.slice(at, at + 100));
    loaded = loadEvidence(dir, session);
    assert.ok(loaded.from);
    assert.ok(loaded.folded <= 100, `folded ${loaded.folded} records, not only the new ones`);
    writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
  }
  assert.equal(dump(loaded.ev), dump(foldLedger(records)));
  const data = readdirSync(dir).filter((f) => f.includes(".fold-"));
  assert.ok(data.length <= 2, `data files kept: ${data.join(", ")}`);
});

/** A checkpoint's header: its digest line, then its JSON. */
function headerOf(
  dir: string,
  session: string,
): Record<string, unknown> & Record<"ev", Record<string, unknown>> {
  const text = readFileSync(join(dir, checkpointName(session)), "utf8");
  return JSON.parse(text.slice(text.indexOf("\n") + 1));
}

/** Rewrites the header after `change`, its digest recomputed (`sign`) or left as it was. */
function editHeader(dir: string, session: string, change: (h: Record<string, unknown>) => void, sign = true) {
  const path = join(dir, checkpointName(session));
  const text = readFileSync(path, "utf8");
  const h = JSON.parse(text.slice(text.indexOf("\n") + 1));
  change(h);
  const json = JSON.stringify(h);
  // Signed as a holder of the trial's key would (the first line is an HMAC under its chain key).
  const mac = createHmac("sha256", chainKeyOf(dir)).update(json).digest("hex");
  writeFileSync(path, `${sign ? mac : text.slice(0, text.indexOf("\n"))}\n${json}`);
}

/** Flips one byte of a file at `at` (from its end when negative). */
function flipByte(path: string, at: number): void {
  const bytes = readFileSync(path);
  bytes[at < 0 ? bytes.length + at : at] ^= 0x20;
  writeFileSync(path, bytes);
}

s("a later checkpoint appends only its new calls: what the contents file held stays byte for byte", () => {
  const records = benchLedger();
  const session = records[0].session;
  const { dir } = ledgerDir(session, records.slice(0, 200));
  checkpointed(dir, session);
  const contents = join(dir, headerOf(dir, session).contents as string);
  const before = readFileSync(contents);
  append(dir, records.slice(200));
  const loaded = loadEvidence(dir, session);
  writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
  assert.is(headerOf(dir, session).contents, contents.slice(dir.length + 1), "a new contents file");
  const after = readFileSync(contents);
  assert.ok(after.length > before.length);
  assert.equal(after.subarray(0, before.length), before);
  const resumed = loadEvidence(dir, session);
  assert.ok(resumed.from);
  assert.equal(dump(resumed.ev), dump(foldLedger(records)));
});

/** A checkpointed ledger, then `spoil`; the next load must be a full read with the whole ledger's evidence. */
function spoiled(what: string, spoil: (dir: string, file: string, session: string) => void): void {
  const records = benchLedger().slice(0, 120);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records);
  checkpointed(dir, session);
  spoil(dir, file, session);
  const loaded = loadEvidence(dir, session);
  assert.not.ok(loaded.from, `${what}: the checkpoint was used`);
  assert.equal(dump(loaded.ev), dump(foldLedger(records)), what);
}

/**
 * A checkpointed ledger, then `change` to the ledger beneath it: the checkpoint is the guard's own fold (keyed),
 * so the next load keeps its evidence, reports the change, and the load after its new checkpoint does not.
 */
function changedBeneath(what: string, change: (file: string) => void): void {
  const records = benchLedger().slice(0, 120);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records);
  checkpointed(dir, session);
  change(file);
  const loaded = loadEvidence(dir, session);
  assert.ok(loaded.from, `${what}: the checkpoint was not used`);
  assert.ok(loaded.tampered, `${what}: not reported`);
  assert.ok(loaded.respan, `${what}: the next checkpoint would keep the old spans`);
  assert.equal(dump(loaded.ev), dump(foldLedger(records)), what);
  if (loaded.bytes === null) return;
  writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes });
  const again = loadEvidence(dir, session);
  assert.ok(again.from && !again.tampered, `${what}: reported again after its new checkpoint`);
  assert.equal(dump(again.ev), dump(foldLedger(records)), what);
}

s(
  "a byte changed anywhere before the offset keeps the checkpoint's evidence, reported, at every chunk and span edge",
  () => {
    // A ledger read in several chunks (`READ_CHUNK`), folded by three checkpoints (three spans).
    const records = [...benchLedger(), ...benchLedger().slice(1)];
    const session = records[0].session;
    const { dir } = ledgerDir(session, records.slice(0, 300));
    checkpointed(dir, session);
    append(dir, records.slice(300, 600));
    checkpointed(dir, session);
    append(dir, records.slice(600));
    checkpointed(dir, session);
    const h = headerOf(dir, session);
    const spans = (h.ledger as [number, string][]).map(([end]) => end);
    assert.is(spans.length, 3);
    assert.ok(h.bytes as number > 2 * READ_CHUNK, `${h.bytes} bytes: fewer than three chunks`);
    assert.ok(loadEvidence(dir, session).from, "the checkpoint is not used before any change");
    const edges = [0, READ_CHUNK - 1, READ_CHUNK, 2 * READ_CHUNK, ...spans.flatMap((end) => [end - 2, end])]
      .filter((at) => at < (h.bytes as number) - 1);
    const full = dump(foldLedger(records));
    for (const at of edges) {
      const copy = mkdtempSync(join(tmpdir(), "fiable-checkpoint-"));
      cpSync(dir, copy, { recursive: true });
      flipByte(join(copy, ledgerFileName(session)), at);
      const loaded = loadEvidence(copy, session);
      assert.ok(loaded.from && loaded.tampered, `byte ${at}: the checkpoint was not used, or not reported`);
      assert.equal(dump(loaded.ev), full, `byte ${at}`);
    }
  },
);

s("a ledger changed beneath its checkpoint keeps the checkpoint's evidence, and is reported once", () => {
  changedBeneath("the ledger replaced by another", (file) => {
    const other = benchLedger().slice(0, 130).map((r) => ({ ...r, t: "2026-01-01T00:00:00.000Z" }));
    writeFileSync(file, jsonl(other));
  });
  changedBeneath("the ledger cut short", (file) => {
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, text.length / 2));
  });
  changedBeneath("the ledger cut at a line's end", (file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, lines.slice(0, 40).join("\n") + "\n");
  });
  changedBeneath("the ledger deleted", (file) => Deno.removeSync(file));
  changedBeneath("a record before the offset rewritten", (file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    lines[lines.length - 2] = lines[lines.length - 2].replace('"pre"', '"pre" ');
    writeFileSync(file, lines.join("\n"));
  });
  changedBeneath("a record before the offset deleted", (file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(30, 1);
    writeFileSync(file, lines.join("\n"));
  });
  changedBeneath("a ledger rewritten in its middle (its length, head and last bytes kept)", (file) => {
    const text = readFileSync(file, "utf8");
    const middle = text.indexOf('"decision":"allow"', text.length / 2);
    writeFileSync(file, text.slice(0, middle) + '"decision":"Allow"' + text.slice(middle + 18));
  });
});

s("after a ledger changed beneath its checkpoint, the trusted records appended after it are folded", () => {
  const records = benchLedger().slice(0, 160);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records.slice(0, 120));
  checkpointed(dir, session);
  append(dir, records.slice(120));
  // A record before the checkpoint's offset deleted, and a forged one (no key) appended at the end.
  const lines = readFileSync(file, "utf8").split("\n");
  lines.splice(10, 1);
  writeFileSync(file, lines.join("\n") + JSON.stringify({ ...records[5], event: "stop" }) + "\n");
  const loaded = loadEvidence(dir, session);
  assert.ok(loaded.from && loaded.tampered);
  const after = records.slice(120).filter((r) => !(r.event === "pre" && r.decision === "allow"));
  assert.is(
    loaded.folded,
    after.length,
    "the records after the checkpoint (an allowed pre folds to nothing)",
  );
  assert.is(loaded.untrusted, 1, "the forged line");
  assert.equal(dump(loaded.ev), dump(foldLedger(records)));
});

s("anything wrong with a checkpoint itself is a full read", () => {
  const header = (dir: string, session: string) => join(dir, checkpointName(session));
  const ev = (h: Record<string, unknown>) => h.ev as Record<string, unknown>;
  spoiled("a header that is not JSON", (dir, _file, session) => writeFileSync(header(dir, session), "{"));
  // Small consistent edits, the HMAC left as it was (issue 32): each gave decisions the whole fold would not.
  spoiled(
    "the header's case lock edited",
    (dir, _f, session) => editHeader(dir, session, (h) => (ev(h).caseLock = "CASE-00000000"), false),
  );
  spoiled(
    "the header's deny counts edited",
    (dir, _f, session) =>
      editHeader(dir, session, (h) => (ev(h).denies = [["GLOBAL-02|review.save_md_review|-", 2]]), false),
  );
  spoiled(
    "the header's stop blocks edited, its plain digest recomputed (no key: issue 40)",
    (dir, _f, session) => {
      const path = header(dir, session);
      const text = readFileSync(path, "utf8");
      const h = JSON.parse(text.slice(text.indexOf("\n") + 1));
      ev(h).stopBlocks = 3;
      const json = JSON.stringify(h);
      writeFileSync(path, `${digest(new TextEncoder().encode(json))}\n${json}`);
    },
  );
  spoiled(
    "one id string edited, its place kept",
    (dir, _f, session) => editHeader(dir, session, (h) => ((ev(h).strings as string[])[0] += "0"), false),
  );
  spoiled("a reference in the state re-pointed", (dir, _f, session) => {
    const state = join(dir, headerOf(dir, session).state as string);
    const bytes = readFileSync(state);
    bytes[0] ^= 1;
    writeFileSync(state, bytes);
  });
  // Edits signed as a holder of the key would, that still do not hold together.
  spoiled("a header of another version", (dir, _f, session) => editHeader(dir, session, (h) => (h.v = 99)));
  spoiled(
    "a header of another session",
    (dir, _f, session) => editHeader(dir, session, (h) => (h.session = "x")),
  );
  spoiled(
    "a header without an offset",
    (dir, _f, session) => editHeader(dir, session, (h) => delete h.bytes),
  );
  spoiled(
    "a header whose ledger spans end elsewhere",
    (dir, _f, session) => editHeader(dir, session, (h) => ((h.ledger as [number, string][])[0][0] -= 1)),
  );
  spoiled(
    "its state file gone",
    (dir, _f, session) => Deno.removeSync(join(dir, headerOf(dir, session).state as string)),
  );
  spoiled("its state cut short", (dir, _f, session) => {
    const state = join(dir, headerOf(dir, session).state as string);
    writeFileSync(state, readFileSync(state).subarray(0, 40));
  });
  spoiled(
    "a header whose counts disagree with its state",
    (dir, _f, session) => editHeader(dir, session, (h) => ((ev(h).counts as { calls: number }).calls += 5)),
  );
  spoiled(
    "a header without its id strings",
    (dir, _f, session) => editHeader(dir, session, (h) => (ev(h).strings = [])),
  );
  spoiled(
    "a header whose id table holds a number",
    (dir, _f, session) => editHeader(dir, session, (h) => ((ev(h).strings as unknown[])[0] = 7)),
  );
  spoiled(
    "a header without its tool names",
    (dir, _f, session) => editHeader(dir, session, (h) => (ev(h).tools = [])),
  );
  spoiled(
    "a header whose segment is shorter than its calls",
    (dir, _f, session) =>
      editHeader(dir, session, (h) => ((ev(h).segments as { text: number }[])[0].text = 3)),
  );
  spoiled("a header of 257 MB (over the 256 MB bound)", (dir, _f, session) => {
    Deno.truncateSync(header(dir, session), 257 * 1024 * 1024);
  });
});

s(
  "a changed byte in the stored calls, found when a rule reads it, spoils the checkpoint, never the answer",
  () => {
    const records = benchLedger().slice(0, 120);
    const session = records[0].session;
    const full = foldLedger(records);
    for (const region of ["meta", "text"] as const) {
      const { dir } = ledgerDir(session, records);
      checkpointed(dir, session);
      const h = headerOf(dir, session);
      const [segment] = (h.ev as { segments: Segment[] }).segments;
      flipByte(join(dir, h.contents as string), segment.at + (region === "meta" ? 10 : segment.meta + 10));
      const loaded = loadEvidence(dir, session);
      assert.ok(loaded.from, "the checkpoint is used: its contents are read only when asked");
      assert.throws(() => dump(loaded.ev), (err: Error) => err instanceof SpoiledCheckpoint, region);
      assert.equal(dump(loadEvidence(dir, session, { checkpoint: false }).ev), dump(full), region);
    }
    // Its contents file gone: the same.
    const { dir } = ledgerDir(session, records);
    checkpointed(dir, session);
    Deno.removeSync(join(dir, headerOf(dir, session).contents as string));
    assert.throws(
      () => dump(loadEvidence(dir, session).ev),
      (err: Error) => err instanceof SpoiledCheckpoint,
    );
  },
);

s("a Unicode session id gets a checkpoint, and resumes from it", () => {
  const session = "sessão-ü-✓-1";
  const records = benchLedger().slice(0, 80).map((r) => ({ ...r, session }));
  const { dir } = ledgerDir(session, records);
  checkpointed(dir, session);
  const resumed = loadEvidence(dir, session);
  assert.ok(resumed.from, "the checkpoint was not used");
  assert.equal(dump(resumed.ev), dump(foldLedger(records)));
});

s("a checkpoint is written next to the ledger and named from it; the ledger is never touched", () => {
  const records = benchLedger().slice(0, 50);
  const session = records[0].session;
  const { dir, file } = ledgerDir(session, records);
  const before = readFileSync(file, "utf8");
  checkpointed(dir, session);
  assert.is(readFileSync(file, "utf8"), before);
  assert.ok(existsSync(join(dir, checkpointName(session))));
  assert.ok(
    readdirSync(dir).every((f) =>
      f === ledgerFileName(session) || f.startsWith(`${session}.fold`) || f.startsWith(`${session}.calls-`)
    ),
    readdirSync(dir).join(", "),
  );
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
        // The chain's fields cover the time and latency: they differ with them.
        p: "",
        c: "",
      }))
    );
    assert.equal(withCk, without, runtime.name);
    const header = headerOf(dirs[0], session);
    // Written first over the 200 seeded records, then again once 32 more were folded.
    const seeded = new TextEncoder().encode(jsonl(seed)).length;
    assert.ok(
      (header.bytes as number) > seeded,
      `${runtime.name}: no checkpoint was kept up (${header.bytes} bytes)`,
    );
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

/** True when a load uses the session's checkpoint (whichever runtime wrote it: both digest alike). */
function used(dir: string, session: string): boolean {
  return Boolean(loadEvidence(dir, session).from);
}

s("a checkpoint written under one runtime is used under the other, and decides the same", async () => {
  const all = await runtimes();
  const seed = benchLedger().slice(0, 200);
  const session = seed[0].session;
  const [first, ...rest] = sessionEvents(session, 16);
  const finalize = rest.find(([word, payload]) =>
    word === "pre" && payload.includes("determination_finalize")
  )!;
  for (const [writer, reader] of [all, [...all].reverse()]) {
    const dirs = [ledgerDir(session, seed).dir, ledgerDir(session, seed).dir];
    const env = (dir: string, extra: Record<string, string> = {}) => ({
      FIABLE_LEDGER_DIR: dir,
      FIABLE_CC_ARM: "critic",
      ...extra,
    });
    // The writer folds the 200 records and writes the checkpoint; the reader then starts from it.
    await runGuard(writer, first[0], first[1], env(dirs[0]));
    await runGuard(writer, first[0], first[1], env(dirs[1], { FIABLE_CHECKPOINT: "0" }));
    const written = headerOf(dirs[0], session);
    assert.ok(used(dirs[0], session), `${writer.name}'s checkpoint is not used`);
    const fromCheckpoint = await runGuard(reader, "pre", finalize[1], env(dirs[0]));
    const plain = await runGuard(reader, "pre", finalize[1], env(dirs[1], { FIABLE_CHECKPOINT: "0" }));
    assert.equal(fromCheckpoint.reply(), plain.reply(), `${writer.name} → ${reader.name}`);
    // The reader folded a short tail (under `CHECKPOINT_EVERY`), so it kept the writer's checkpoint.
    assert.is(headerOf(dirs[0], session).state, written.state, `${reader.name} did not use it`);
  }
});

s(
  "a stored text spoiled on disk: the hook decides as on a full read, and a new checkpoint replaces it",
  async () => {
    const seed = benchLedger().slice(0, 200);
    const session = seed[0].session;
    const events = sessionEvents(session, 16);
    const finalize = events.find(([word, payload]) =>
      word === "pre" && payload.includes("determination_finalize")
    )!;
    for (const runtime of await runtimes()) {
      const dirs = [ledgerDir(session, seed).dir, ledgerDir(session, seed).dir];
      const env = (dir: string, extra: Record<string, string> = {}) => ({
        FIABLE_LEDGER_DIR: dir,
        FIABLE_CC_ARM: "critic",
        ...extra,
      });
      // The first hook folds the 200 records and writes the checkpoint.
      await runGuard(runtime, "pre", events[0][1], env(dirs[0]));
      await runGuard(runtime, "pre", events[0][1], env(dirs[1], { FIABLE_CHECKPOINT: "0" }));
      const h = headerOf(dirs[0], session);
      const segments = (h.ev as { segments: Segment[] }).segments;
      for (const s of segments) flipByte(join(dirs[0], h.contents as string), s.at + s.meta + 20);
      const spoiledRun = await runGuard(runtime, "pre", finalize[1], env(dirs[0]));
      const plain = await runGuard(runtime, "pre", finalize[1], env(dirs[1], { FIABLE_CHECKPOINT: "0" }));
      assert.equal(spoiledRun.reply(), plain.reply(), runtime.name);
      const last = parseLedger(readFileSync(join(dirs[0], ledgerFileName(session)), "utf8")).records.at(-1)!;
      assert.is.not(last.decision, "error", last.note);
      assert.ok(last.votes?.length, "the critic panel did not run: the texts were never read");
      const replaced = headerOf(dirs[0], session);
      assert.is.not(
        replaced.contents,
        h.contents,
        `${runtime.name}: the spoiled checkpoint was not replaced`,
      );
      assert.ok(used(dirs[0], session));
    }
  },
);

s("parallel hooks that each write a checkpoint leave no file the header does not name", async () => {
  const seed = benchLedger().slice(0, 120);
  const session = seed[0].session;
  for (const runtime of await runtimes()) {
    const { dir } = ledgerDir(session, seed);
    const events = sessionEvents(session, 24).filter(([word]) => word === "pre");
    // Each process folds the 120 records (no checkpoint yet, or an older one) and writes one.
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        events.slice(round * 8, round * 8 + 8).map(([word, payload]) =>
          runGuard(runtime, word, payload, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic" })
        ),
      );
    }
    const h = headerOf(dir, session);
    const previous = (h.previous ?? {}) as Record<string, string>;
    const named = new Set([h.state, h.contents, previous.state, previous.contents, ledgerFileName(session)]);
    named.add(checkpointName(session));
    assert.equal(readdirSync(dir).filter((f) => !named.has(f)), [], runtime.name);
    assert.ok(used(dir, session), runtime.name);
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
/** The size of the store session's ledger. */
const statSizeOf = (dir: string) =>
  existsSync(join(dir, ledgerFileName(STORE_SESSION)))
    ? readFileSync(join(dir, ledgerFileName(STORE_SESSION))).length
    : 0;
const STORE_SESSION = STORE_LEDGER[0].session;

store(
  "a released session is checkpointed, and comes back from its checkpoint equal to the whole fold",
  () => {
    const { dir, store, save } = storeOver();
    store.evidence(STORE_SESSION);
    for (const r of STORE_LEDGER) save(r);
    assert.ok(store.end(STORE_SESSION));
    assert.is(
      headerOf(dir, STORE_SESSION).bytes,
      readFileSync(join(dir, ledgerFileName(STORE_SESSION))).length,
    );
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
    for (const r of STORE_LEDGER.slice(0, 20)) save(r);
    store.sweep();
    assert.is(store.checkpointsFailed, 1, "the first sweep did not try");
    for (let k = 0; k < 5; k++) {
      advance(1);
      store.sweep();
    }
    assert.is(store.checkpointsFailed, 1, "every sweep tried again");
    for (const r of STORE_LEDGER.slice(20, 40)) save(r);
    store.sweep();
    assert.is(store.checkpointsFailed, 2, "not tried again after 20 more records");
    assert.equal(
      readdirSync(dir).filter((f) => f.includes(".fold-")),
      [],
      "a failed checkpoint left its data file",
    );
  },
);

store("the sweep checkpoints by bytes as well as by records", () => {
  const { dir, store, save, advance } = storeOver({ checkpointEvery: 1_000_000, checkpointBytes: 60_000 });
  store.evidence(STORE_SESSION);
  let at = 0;
  for (; statSizeOf(dir) < 60_000; at++) save(STORE_LEDGER[at]);
  advance(1);
  store.sweep();
  assert.ok(existsSync(join(dir, checkpointName(STORE_SESSION))), `no checkpoint after ${at} records`);
  assert.ok(at < 100, `${at} records`);
});

store(
  "a held session's calls live in its checkpoint once written: the same evidence, their texts on disk",
  () => {
    const { store, save } = storeOver({ checkpointEvery: 40 });
    const ev = store.evidence(STORE_SESSION);
    for (const [k, r] of STORE_LEDGER.entries()) {
      save(r);
      if (k % 40 === 39) store.sweep();
    }
    store.sweep();
    assert.ok(ev.calls.length > 40);
    const stored = ev.calls.filter((c) => c instanceof RestoredCall).length;
    assert.ok(stored >= ev.calls.length - 20, `${stored} of ${ev.calls.length} calls stored`);
    const full = foldLedger(STORE_LEDGER);
    assert.equal(dump(ev), dump(full));
    decidesAlike(STORE_LEDGER, ev, full, "held after checkpoints");
  },
);

store("a resumed session is read whole however far its ledger grew past 8 MB, then checkpointed", () => {
  const records = [...STORE_LEDGER.slice(0, 20)];
  const deny = (id: string): LedgerRecord => ({
    v: 1,
    t: "",
    session: STORE_SESSION,
    event: "pre",
    arm: "critic",
    decision: "deny",
    tool: "determination.finalize",
    tool_use_id: id,
    case: "CASE-11AA22BB",
    rules: [{ id: "GLOBAL-01", checks: [], message: "" }],
  });
  const big = (i: number): LedgerRecord => ({ ...STORE_LEDGER[1], result: `${i} `.padEnd(15_000, "r") });
  for (let i = 0; i < 80; i++) records.push(big(i));
  records.push(deny("toolu_1"), deny("toolu_2"));
  for (let i = 80; i < 600; i++) records.push(big(i));
  const { dir } = ledgerDir(STORE_SESSION, records);
  const held = new SessionStore({ ledgerDir: dir });
  held.resume(STORE_SESSION);
  const ev = held.evidence(STORE_SESSION);
  assert.is(ev.degraded, false);
  assert.is(ev.denies.get("GLOBAL-01|determination.finalize|CASE-11AA22BB"), 2);
  assert.ok(loadEvidence(dir, STORE_SESSION).from, "not checkpointed");
  // The hook path alone reads its head and tail: degraded, and the denies lost.
  const bounded = loadEvidence(dir, STORE_SESSION, { checkpoint: false }).ev;
  assert.equal([bounded.degraded, bounded.denies.size], [true, 0]);
});

/**
 * The files whose code decides what a fold produces or how a checkpoint holds it: everything the fold and the
 * checkpoint modules import, as `deno info` lists it. A change to any of them may change what a checkpoint
 * must hold: bump FOLD_VERSION (older checkpoints are then ignored), then record the new digest here (a change
 * that cannot alter a fold, such as a comment, needs only the new digest).
 */
const FOLD_DIGEST = {
  version: 8,
  sha256: "8ddb6ecb9fa95531a73e37664dd7fd430dbbb66b4ac2162ff77b9063418b8fc3",
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
