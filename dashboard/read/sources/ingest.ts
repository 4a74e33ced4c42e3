/**
 * Source: guard records posted to `/ingest`, held in memory per session (a live ledger with no file), under
 * caps on what they may hold.
 */
import type { LedgerRecord } from "../../../lib/guard/engine/record.ts";
import { StatsFold } from "../ledgers.ts";

/** What the live ledgers of `/ingest` may hold: record JSON in all, per session, and sessions. */
export interface IngestCaps {
  held: number;
  session: number;
  sessions: number;
}

/**
 * 64 MiB of record JSON in all, 8 MiB per session (≈ 500 records at the guard's 16 KB record cap, more than a
 * trial's main session writes), 2,000 sessions.
 */
export const INGEST_CAPS: IngestCaps = { held: 64 * 2 ** 20, session: 8 * 2 ** 20, sessions: 2000 };

/** The posted records by session, each with its running fold, its bytes and when it was last posted to. */
export class IngestedLedgers {
  #records = new Map<string, LedgerRecord[]>();
  #times = new Map<string, number>();
  #folds = new Map<string, StatsFold>();
  #bytes = new Map<string, number>();
  #held = 0;

  /**
   * Appends one posted record to its session's live ledger; false (nothing held) when the record would take
   * its session past `caps.session`. The live ledgers together hold at most `caps.held` of record JSON and
   * `caps.sessions` sessions: the sessions posted to longest ago go first.
   */
  add(record: LedgerRecord, now: number, caps: IngestCaps): boolean {
    const session = String(record.session);
    const bytes = JSON.stringify(record).length;
    const held = this.#bytes.get(session) ?? 0;
    if (held + bytes > caps.session) return false;
    let list = this.#records.get(session);
    if (!list) {
      list = [];
      this.#records.set(session, list);
      this.#folds.set(session, new StatsFold());
    }
    list.push(record);
    this.#folds.get(session)!.add(record);
    this.#bytes.set(session, held + bytes);
    this.#held += bytes;
    // Map order is insertion order: re-inserting keeps the least recently posted session first.
    this.#times.delete(session);
    this.#times.set(session, now);
    for (const oldest of this.#times.keys()) {
      if (this.#held <= caps.held && this.#records.size <= caps.sessions) break;
      if (oldest === session) continue;
      this.#held -= this.#bytes.get(oldest) ?? 0;
      for (const map of [this.#records, this.#times, this.#folds, this.#bytes]) map.delete(oldest);
    }
    return true;
  }

  /** The bytes of record JSON held. */
  bytes(): number {
    return this.#held;
  }

  /** True when records of the session are held. */
  has(session: string): boolean {
    return this.#records.has(session);
  }

  /** The session's records, in the order posted. */
  records(session: string): readonly LedgerRecord[] {
    return this.#records.get(session) ?? [];
  }

  /** The session's running fold. */
  fold(session: string): StatsFold | undefined {
    return this.#folds.get(session);
  }

  /** When the session was last posted to (epoch ms; 0 when never). */
  time(session: string): number {
    return this.#times.get(session) ?? 0;
  }

  /** Every held session with its fold. */
  folds(): IterableIterator<[string, StatsFold]> {
    return this.#folds.entries();
  }
}
