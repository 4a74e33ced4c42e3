/**
 * The resident guard's sessions in memory: one running evidence per session, folded one record at a time,
 * released when the session is over (a Stop with no later event, SessionEnd, an idle limit) or when too many
 * records or sessions are held (least recently used first). A released session that comes back is folded
 * again from its ledger, so releasing loses nothing: the ledger is the state, memory is a cache of it.
 */
import {
  type Checkpoint,
  type LoadedEvidence,
  loadEvidence,
  storeCalls,
  writeCheckpoint,
} from "../ledger/checkpoint.ts";
import { type Evidence, foldRecord } from "../engine/evidence.ts";
import * as io from "../io.ts";
import {
  type Appended,
  chainedRecords,
  ledgerFileName,
  saveRecord,
  untrustedCount,
} from "../ledger/ledger.ts";
import { ChainCheck, chainKeyOf, type ChainStart, GENESIS, WINDOW } from "../ledger/chain.ts";
import { type Arm, type LedgerRecord } from "../engine/record.ts";
import { guardRecord } from "./gap.ts";

/**
 * A record another process writes to a ledger beside the resident guard: a SessionStart hook's (a command hook
 * in http mode) and another guard's own (`restart`, `gap`, `tamper`: one starting up). Neither folds to anything
 * that loosens a rule.
 */
export function besideResident(r: LedgerRecord): boolean {
  return r.event === "session-start" || r.event === "guard";
}

/** When sessions are released, and how much the store may hold. */
export interface SessionLimits {
  /** A session whose last event is a Stop is released this long after it (ms). */
  endedMs: number;
  /** A session with no event for this long is released (ms). */
  idleMs: number;
  /**
   * Records held in memory form (not yet in a checkpoint) across sessions before the session holding the most
   * is checkpointed (or, when none can be, the least recently used sessions are released).
   */
  maxRecords: number;
  /** Sessions held before the least recently used are released. */
  maxSessions: number;
  /** Records folded since a held session's last checkpoint before the sweep writes a new one. */
  checkpointEvery: number;
  /**
   * Ledger bytes written since a held session's last checkpoint before the sweep writes a new one, whatever the
   * records: well under the 8 MB a full read takes whole (`LEDGER_READ`), so a restarted guard resumes the
   * session from a checkpoint and a short tail.
   */
  checkpointBytes: number;
}

/**
 * The defaults: 5 s after a Stop, 30 min idle, 8k records in memory form (64 sessions posting at once held their
 * results in memory up to 50k, and 50k events peaked at 178 MB RSS, 146 MB with 8k; issue 39), 256 sessions, a
 * checkpoint every 1,000 records or
 * 2 MB of ledger.
 */
export const DEFAULT_LIMITS: SessionLimits = {
  endedMs: 5_000,
  idleMs: 30 * 60_000,
  maxRecords: 8_000,
  maxSessions: 256,
  checkpointEvery: 1_000,
  checkpointBytes: 2 * 1024 * 1024,
};

/**
 * Limits from `FIABLE_SESSION_ENDED_MS`, `FIABLE_SESSION_IDLE_MS`, `FIABLE_RESIDENT_RECORDS` and
 * `FIABLE_RESIDENT_SESSIONS`; a value that is not a positive number keeps the default and says so.
 */
export function sessionLimits(
  env: Record<string, string | undefined>,
): { limits: SessionLimits; note?: string } {
  const limits = { ...DEFAULT_LIMITS };
  const notes: string[] = [];
  const read = (name: string, key: keyof SessionLimits) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return;
    const value = Number(raw);
    if (Number.isFinite(value) && value > 0) limits[key] = value;
    else notes.push(`${name}="${raw}" is not a positive number; using ${limits[key]}.`);
  };
  read("FIABLE_SESSION_ENDED_MS", "endedMs");
  read("FIABLE_SESSION_IDLE_MS", "idleMs");
  read("FIABLE_RESIDENT_RECORDS", "maxRecords");
  read("FIABLE_RESIDENT_SESSIONS", "maxSessions");
  return { limits, note: notes.join(" ") || undefined };
}

/** One held session. */
interface Held {
  ev: Evidence;
  records: number;
  lastAt: number;
  /** When its last event was a Stop (null after any other event). */
  stoppedAt: number | null;
  /**
   * Ledger bytes the evidence is exactly the fold of: known from the load, grown by each record this guard
   * wrote; null when unknown (a record that did not reach the ledger). Only then can a checkpoint be written.
   */
  bytes: number | null;
  /** Records folded since the last checkpoint (or since the load, from the ledger itself). */
  since: number;
  /** Ledger bytes at the last checkpoint (or at the load): a checkpoint is due `checkpointBytes` after it. */
  checkpointed: number;
  /** The checkpoint the evidence was loaded from or last written to. */
  from?: Checkpoint;
  /**
   * Where the ledger's chain stands after `bytes`: the guard's own copy of its head (issue 40), against which
   * each append finds whether the ledger changed behind its back. Null when not known.
   */
  chain: ChainStart | null;
  /** The ledger changed beneath the evidence: the next checkpoint digests it anew (`CheckpointOf.respan`). */
  respan?: boolean;
}

/** Why sessions were released, counted since the store started. */
export interface Releases {
  ended: number;
  idle: number;
  evicted: number;
  rebuilt: number;
  /** Dropped because folding a record into them failed. */
  dropped: number;
}

/** Options for a store: the ledger directory it rebuilds from, limits, checkpoints, and a clock for tests. */
export interface SessionStoreOptions {
  ledgerDir: string;
  limits?: Partial<SessionLimits>;
  /** Load from and write evidence checkpoints (lib/guard/ledger/checkpoint.ts); default true. */
  checkpoints?: boolean;
  /** The guard's arm, for the records the store writes itself (default `shadow`). */
  arm?: Arm;
  now?: () => number;
}

/** The held sessions of one resident guard. */
export class SessionStore {
  readonly limits: SessionLimits;
  readonly releases: Releases = { ended: 0, idle: 0, evicted: 0, rebuilt: 0, dropped: 0 };
  #held = new Map<string, Held>();
  #records = 0;
  #known = new Set<string>();
  /** Per released session, the header line of the checkpoint written at its release (`LoadOptions.pinned`). */
  #pinned = new Map<string, string>();
  /** Sessions a record of which did not reach the ledger: loaded degraded whatever the ledger says. */
  #lost = new Set<string>();
  #dir: string;
  #now: () => number;
  #checkpoints: boolean;
  #arm: Arm;

  constructor(options: SessionStoreOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#dir = options.ledgerDir;
    this.#now = options.now ?? Date.now;
    this.#checkpoints = options.checkpoints ?? true;
    this.#arm = options.arm ?? "shadow";
  }

  /** True when the session's evidence is in memory. */
  holds(session: string): boolean {
    return this.#held.has(session);
  }

  /** True when the session was seen by this store before (held now or released). */
  knows(session: string): boolean {
    return this.#known.has(session);
  }

  /**
   * The session's running evidence: the held one (now the most recently used), or loaded when the session is
   * new to this guard or was released: from its checkpoint and the ledger lines after it, else from the whole
   * ledger. Fails like `readLedger` when the ledger is unreadable.
   */
  evidence(session: string): Evidence {
    const held = this.#held.get(session);
    if (held) {
      this.#held.delete(session);
      this.#held.set(session, held);
      return held.ev;
    }
    const pinned = this.#pinned.get(session);
    const loaded = loadEvidence(this.#dir, session, { checkpoint: this.#checkpoints, pinned });
    const ev = this.#hold(session, loaded);
    if (loaded.tampered) this.#reportTamper(session, loaded.tampered);
    return ev;
  }

  /**
   * Records that a session's ledger changed behind this guard (a `guard` record with decision `tamper`): what it
   * found, and that the evidence it holds stands. The evidence is checkpointed anew against the ledger as it is.
   */
  #reportTamper(session: string, what: string): void {
    this.tampered++;
    const note = `tampering: ${what}. The session's evidence is what this guard held.`;
    const t = new Date(this.#now()).toISOString();
    const written = saveRecord(this.#dir, guardRecord(session, this.#arm, "tamper", { t, note }));
    const held = this.#held.get(session);
    if (!held) return;
    held.respan = true;
    if (!written) {
      held.bytes = null;
      held.chain = null;
      return;
    }
    held.bytes = written.size + written.bytes;
    held.chain = { links: [written.p, written.c], chained: true };
  }

  /**
   * What changed in the ledger behind this guard before its append `written` (null: nothing): the ledger is
   * shorter than what it wrote (cut), its last line is not the one it wrote (rewritten), or lines were
   * appended that the chain does not trust or that are not another writer's beside a resident guard
   * (`besideResident`); those are taken into its copy of the chain.
   */
  #behind(session: string, held: Held, written: Appended): string | null {
    if (held.bytes === null || !held.chain) return null;
    // The link the next append finds: the last line's, or, for an empty ledger, the start of the chain.
    const last = () => held.chain!.links.at(-1) ?? GENESIS;
    if (written.size === held.bytes) {
      return written.p === last()
        ? null
        : "the ledger's last line is not the one this guard wrote (rewritten)";
    }
    if (written.size < held.bytes) {
      return `the ledger was ${written.size} bytes, shorter than the ${held.bytes} this guard had written (cut)`;
    }
    const file = io.joinPath(this.#dir, ledgerFileName(session));
    const check = new ChainCheck(chainKeyOf(this.#dir), held.chain);
    const after = chainedRecords(io.readRange(file, held.bytes, written.size - held.bytes), session, check);
    const foreign = after.records.filter((r) => !besideResident(r)).length + after.legacy.length +
      untrustedCount(after.untrusted);
    if (foreign) {
      return `${foreign} line${foreign > 1 ? "s" : ""} appended to the ledger beside this guard were not a ` +
        "hook's; not folded";
    }
    held.chain = check.start();
    return written.p === last()
      ? null
      : "the ledger's last line is not the one its last writer found (rewritten)";
  }

  /**
   * Loads a session a restarted guard resumes, off the hook path: its ledger read whole however long it grew
   * since its last checkpoint (a hook-path read keeps only the head and tail of a ledger over 8 MB, and would
   * spend the block budget and the stop gate again), then checkpointed at once.
   */
  resume(session: string): void {
    const loaded = loadEvidence(this.#dir, session, { checkpoint: this.#checkpoints, whole: true });
    this.#hold(session, loaded);
    if (loaded.tampered) this.#reportTamper(session, loaded.tampered);
    const held = this.#held.get(session);
    if (held && held.since > 0) this.#checkpoint(session, held, true);
  }

  /**
   * The session's evidence from its ledger alone, when the checkpoint it came from turned out spoiled while a
   * rule read it (`SpoiledCheckpoint`): the held evidence is dropped, and the next checkpoint starts anew.
   */
  reread(session: string): Evidence {
    this.drop(session);
    return this.#hold(session, loadEvidence(this.#dir, session, { checkpoint: false }));
  }

  #hold(session: string, loaded: LoadedEvidence): Evidence {
    // The ledger may not say so itself (a file system that refused the marker too: `markLost`).
    if (this.#lost.has(session)) loaded.ev.degraded = true;
    if (this.#known.has(session)) this.releases.rebuilt++;
    if (this.#known.size >= 100_000) this.#known.clear();
    this.#known.add(session);
    this.#held.set(session, {
      ev: loaded.ev,
      records: loaded.records,
      lastAt: this.#now(),
      stoppedAt: null,
      bytes: loaded.bytes,
      since: loaded.folded,
      checkpointed: loaded.bytes ?? 0,
      ...(loaded.from ? { from: loaded.from } : {}),
      chain: loaded.bytes === null ? null : loaded.chain,
      ...(loaded.respan ? { respan: true } : {}),
    });
    this.#records += loaded.records;
    this.#evictOver(session);
    return loaded.ev;
  }

  /**
   * Folds a record the guard has just saved to the ledger, `written` what its append did (null when it did
   * not reach the ledger: no checkpoint of this session is written then, and the session is loaded degraded
   * from then on, as its ledger lacks the record). A session not held is left alone: its
   * ledger already has the record, and the next `evidence` call folds it from there. `stopped` marks a
   * main-agent Stop, after which the session is released unless another event comes within `endedMs`. A
   * ledger found changed behind the guard (`#behind`) is reported; the evidence held stands.
   */
  fold(record: LedgerRecord, stopped = false, written: Appended | null = null): void {
    if (written === null) {
      if (this.#lost.size >= 100_000) this.#lost.clear();
      this.#lost.add(record.session);
    }
    const held = this.#held.get(record.session);
    if (!held) return;
    foldRecord(held.ev, record);
    let changed: string | null = null;
    try {
      changed = written && this.#behind(record.session, held, written);
    } catch (err) {
      changed = `the ledger could not be read back (${(err as Error).message})`;
    }
    if (written && held.chain && !changed) {
      held.chain = { links: [...held.chain.links.slice(1 - WINDOW), written.c], chained: true };
    }
    // Its line went after what another writer appended beside it (`#behind`), when one did.
    held.bytes = held.bytes === null || written === null ? null : written.size + written.bytes;
    held.since++;
    held.records++;
    this.#records++;
    held.lastAt = this.#now();
    held.stoppedAt = stopped ? held.lastAt : null;
    if (changed) this.#reportTamper(record.session, changed);
    this.#evictOver(record.session);
  }

  /** Notes an event of a session that recorded nothing (it still counts as activity). */
  touch(session: string, stopped = false): void {
    const held = this.#held.get(session);
    if (!held) return;
    held.lastAt = this.#now();
    held.stoppedAt = stopped ? held.lastAt : null;
  }

  /** Releases a session now (SessionEnd); true when it was held. */
  end(session: string): boolean {
    if (!this.#held.has(session)) return false;
    this.#release(session);
    this.releases.ended++;
    return true;
  }

  /** Drops the session's evidence without a checkpoint (it missed a record): its next event folds the ledger. */
  drop(session: string): void {
    if (!this.#held.has(session)) return;
    this.#release(session, false);
    this.releases.dropped++;
  }

  /**
   * Releases the sessions that ended (a Stop `endedMs` ago with nothing since) or went idle, and checkpoints
   * those that folded `checkpointEvery` records or `checkpointBytes` of ledger since their last checkpoint (so a
   * guard that dies loses none, and resumes from a short tail). Each session's work is handed to `defer` (by
   * default done at once): the resident guard does one session's per tick, so a sweep that finds many
   * sessions due never holds every hook event up for all of their checkpoints at once.
   */
  sweep(defer: (work: () => void) => void = (work) => work()): void {
    const now = this.#now();
    for (const [session, held] of [...this.#held]) {
      const ended = held.stoppedAt !== null && now - held.stoppedAt >= this.limits.endedMs;
      const idle = !ended && now - held.lastAt >= this.limits.idleMs;
      const grown = held.bytes !== null && held.bytes - held.checkpointed >= this.limits.checkpointBytes;
      const due = held.since >= this.limits.checkpointEvery || (held.since > 0 && grown);
      if (!ended && !idle && !due) continue;
      defer(() => {
        // Deferred work finds the session as it is then: released or reloaded meanwhile, it is left alone.
        if (this.#held.get(session) !== held) return;
        if (due) this.#checkpoint(session, held, true);
        if (ended) this.releases.ended++;
        else if (idle) this.releases.idle++;
        else return;
        this.#release(session);
      });
    }
  }

  /** Checkpoints that could not be written (a full disk, a read-only folder). */
  checkpointsFailed = 0;
  /** Sessions whose ledger or checkpoint was found changed when they came back (`guard` `tamper` records). */
  tampered = 0;

  /** Sessions and records held now, and the releases so far. */
  size(): { sessions: number; records: number; releases: Releases } {
    return { sessions: this.#held.size, records: this.#records, releases: { ...this.releases } };
  }

  #release(session: string, checkpoint = true): void {
    const held = this.#held.get(session);
    if (!held) return;
    if (checkpoint && held.since > 0) this.#checkpoint(session, held);
    // Pinned only when its checkpoint holds all the guard folded: a later ledger edit never loosens it.
    if (checkpoint && held.bytes !== null && held.from?.header.bytes === held.bytes) {
      if (this.#pinned.size >= 100_000) this.#pinned.clear();
      this.#pinned.set(session, held.from.line);
    } else this.#pinned.delete(session);
    this.#held.delete(session);
    this.#records -= held.records;
  }

  /**
   * Writes the session's checkpoint when its evidence is exactly the fold of the ledger as it is: every byte
   * of it known, and no other process appended since (its size is what this guard accounted for). A session
   * that stays held (`kept`) then swaps its calls for their stored form, so their texts and results live in
   * the checkpoint's contents instead of memory.
   */
  #checkpoint(session: string, held: Held, kept = false): void {
    if (!this.#checkpoints || held.bytes === null) return;
    try {
      if (io.fileSize(io.joinPath(this.#dir, ledgerFileName(session))) !== held.bytes) {
        held.bytes = null;
        return;
      }
      const written = writeCheckpoint(this.#dir, session, { ...held, bytes: held.bytes });
      if (written) {
        held.from = written;
        held.respan = false;
        if (kept) storeCalls(held.ev, written);
      }
    } catch {
      // Unwritable: the session is folded from its ledger when it comes back, as without checkpoints.
      this.checkpointsFailed++;
    }
    // Tried either way: a full disk is tried again after another `checkpointEvery` records or
    // `checkpointBytes`, not every sweep.
    held.since = 0;
    held.checkpointed = held.bytes ?? 0;
  }

  /**
   * Keeps both caps. Past `maxRecords` records in memory form (folded since their session's last checkpoint),
   * the session holding the most is checkpointed and stays held, its calls now in their stored form: under
   * many sessions at once the least recently used is the next to post, so releasing it only made it load
   * again (issue 39: sessions evicted on nearly every event, p99 0.6–0.95 s). Sessions are released, least
   * recently used first and never `keep`, past `maxSessions`, or past `maxRecords` when no checkpoint can be
   * written (checkpoints off, a record that missed the ledger).
   */
  #evictOver(keep: string): void {
    for (;;) {
      const overSessions = this.#held.size > this.limits.maxSessions;
      if (!overSessions && this.#inMemory() <= this.limits.maxRecords) return;
      const largest = overSessions ? undefined : this.#mostInMemory();
      if (largest) {
        this.#checkpoint(largest[0], largest[1], true);
        continue;
      }
      const oldest = [...this.#held.keys()].find((session) => session !== keep);
      if (oldest === undefined) return;
      this.#release(oldest);
      this.releases.evicted++;
    }
  }

  /** Records held in memory form: folded since their session's last checkpoint. */
  #inMemory(): number {
    if (!this.#checkpoints) return this.#records;
    let n = 0;
    for (const held of this.#held.values()) n += held.bytes === null ? held.records : held.since;
    return n;
  }

  /** The session with the most records in memory form that a checkpoint can store, if any. */
  #mostInMemory(): [string, Held] | undefined {
    if (!this.#checkpoints) return undefined;
    let best: [string, Held] | undefined;
    for (const entry of this.#held) {
      if (entry[1].bytes !== null && entry[1].since > 0 && entry[1].since > (best?.[1].since ?? 0)) {
        best = entry;
      }
    }
    return best;
  }
}
