/**
 * Source: what replay wrote below the roots: its Parquet summaries (summary.ts, through DuckDB), which stand
 * for its ledgers, and its verdicts (summary.json, verdicts.ts), each read again when it changes.
 */
import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { DuckLoader } from "../../../lib/results/columnar.ts";
import type { WalkCache } from "../../../lib/walk.ts";
import { findSummaries, loadSummary, type SummaryReplay } from "../summary.ts";
import { findReplayRuns, readVerdicts, type ReplayRun, type ReplayVerdict } from "../verdicts.ts";
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
  #runs = new Map<string, { mtime: number; got: ReplayRun | null; why: string | null }>();
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
      this.#runs.set(dir, {
        mtime,
        got: "why" in got ? null : got,
        why: "why" in got ? `${got.why}.` : null,
      });
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

  /**
   * Why a Parquet summary could not be used (its ledgers are read instead), or a summary.json could not be read
   * (its trials show without replay's verdicts), one line each.
   */
  notes(): string[] {
    return [...[...this.#summaries.values()].map((s) => s.why), ...[...this.#runs.values()].map((r) => r.why)]
      .filter((w): w is string => !!w);
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

  /** Every trial's verdicts by its key (`trialKey`), as the replay runs' summary.json files name them. */
  verdicts(): Map<string, ReplayVerdict[]> {
    const out = new Map<string, ReplayVerdict[]>();
    for (const run of this.#runs.values()) {
      for (const [key, list] of run.got?.verdicts ?? []) out.set(key, list);
    }
    return out;
  }

  /** Which trial a replay ledger is (its key), from where replay wrote it; undefined without a summary.json. */
  ledgerOwner(path: string): string | undefined {
    const place = `${basename(dirname(path))}/${basename(path)}`;
    for (const run of this.#runs.values()) {
      const key = run.got?.ledgers.get(place);
      if (key) return key;
    }
    return undefined;
  }
}
