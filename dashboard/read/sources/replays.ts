/**
 * Source: what replay wrote below the roots: its Parquet summaries (summary.ts, through DuckDB), which stand
 * for its ledgers, and its verdicts (summary.json, verdicts.ts), each read again when it changes.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { DuckLoader } from "../../../lib/results/columnar.ts";
import type { WalkCache } from "../../../lib/walk.ts";
import { findSummaries, loadSummary, type SummaryReplay } from "../summary.ts";
import { findReplayRuns, readVerdicts, type ReplayVerdict, verdictKey } from "../verdicts.ts";
import { LedgerTail } from "../ledgers.ts";
import type { LedgerPart } from "../model.ts";

/** A replay summary folder and what came of loading it. */
interface SummaryState {
  loaded: boolean;
  replays: SummaryReplay[];
  why: string | null;
  pending: Promise<void> | null;
}

/** The replay summaries and verdicts found so far. */
export class ReplaySources {
  #summaries = new Map<string, SummaryState>();
  /** Replay runs (their summary.json): the verdicts by trial key, read again when it changes. */
  #runs = new Map<string, { mtime: number; verdicts: Map<string, ReplayVerdict[]> | null }>();
  #lazyTails = new Map<string, LedgerTail>();

  /**
   * Starts loading each summary below `roots` not seen before, and yields each load still pending (the scan
   * waits for it, so a summary's ledgers are not walked meanwhile). `on.loaded` hears of each summary that
   * loaded, `on.changed` of anything that changes the rows.
   */
  *loadSummaries(
    roots: readonly string[],
    duckdb: DuckLoader | undefined,
    on: { loaded(dir: string): void; changed(): void },
  ): Generator<Promise<void>> {
    for (const dir of findSummaries(roots)) {
      let state = this.#summaries.get(dir);
      if (!state) {
        state = { loaded: false, replays: [], why: null, pending: null };
        const s = state;
        s.pending = loadSummary(dir, duckdb).then((got) => {
          if ("why" in got) s.why = `${got.why}. Reading its ledgers instead.`;
          else {
            s.loaded = true;
            s.replays = got;
            on.loaded(dir);
          }
          s.pending = null;
          on.changed();
        });
        this.#summaries.set(dir, state);
      }
      if (state.pending) yield state.pending;
    }
  }

  /** Reads the verdicts of each replay run below `roots` whose summary.json changed, yielding after each. */
  *readRuns(roots: readonly string[], changed: () => void, cache?: WalkCache): Generator<undefined> {
    for (const dir of findReplayRuns(roots, cache)) {
      let mtime = 0;
      try {
        mtime = statSync(join(dir, "summary.json")).mtimeMs;
      } catch {
        continue;
      }
      if (this.#runs.get(dir)?.mtime === mtime) continue;
      const got = readVerdicts(dir);
      this.#runs.set(dir, { mtime, verdicts: "why" in got ? null : got });
      changed();
      yield;
    }
  }

  /** The folders of the summaries in use. */
  loadedDirs(): string[] {
    return [...this.#summaries].filter(([, s]) => s.loaded).map(([dir]) => dir);
  }

  /** The summaries in use (their decisions.parquet read instead of their ledgers), with their sessions. */
  summaries(): { dir: string; sessions: number }[] {
    return [...this.#summaries].filter(([, s]) => s.loaded).map(([dir, s]) => ({
      dir,
      sessions: s.replays.length,
    }));
  }

  /** Why a summary could not be used (its ledgers are read instead), one line each. */
  notes(): string[] {
    return [...this.#summaries.values()].map((s) => s.why).filter((w): w is string => !!w);
  }

  /** Each session a loaded summary replayed, by arm, its ledger read only when its records are asked for. */
  *summaryParts(): Generator<{ session: string; arm: string; part: LedgerPart }> {
    for (const state of this.#summaries.values()) {
      if (!state.loaded) continue;
      for (const r of state.replays) {
        let tail = this.#lazyTails.get(r.ledger);
        if (!tail) this.#lazyTails.set(r.ledger, tail = new LedgerTail(r.ledger));
        yield { session: r.session, arm: r.arm, part: { tail, session: r.session, stats: r.stats } };
      }
    }
  }

  /** A trial's verdicts: by packet and name, else by a name only one replayed trial has. */
  verdicts(): (packet: string, name: string) => ReplayVerdict[] | undefined {
    const verdicts = new Map<string, ReplayVerdict[]>();
    const byName = new Map<string, string[]>();
    for (const run of this.#runs.values()) {
      for (const [key, list] of run.verdicts ?? []) {
        verdicts.set(key, list);
        const name = key.slice(key.indexOf("/") + 1);
        byName.set(name, [...(byName.get(name) ?? []), key]);
      }
    }
    return (packet, name) => {
      const keys = byName.get(name) ?? [];
      return verdicts.get(verdictKey(packet, name)) ??
        (keys.length === 1 ? verdicts.get(keys[0]) : undefined);
    };
  }
}
