/**
 * The dashboard's figures, one set per arm: aggregate.ts's own `aggregateArms` over the real arms below
 * --logs (run in a child process, recomputed when the trials change), and what replays would have blocked,
 * counted by replay's own summary of its verdicts.
 */
import { fileURLToPath } from "node:url";
import type { AggregateResult, ArmInput, Comparison, Row as AggRow } from "../../lib/results/aggregate.ts";
import type { Prices, Recipe } from "../../lib/results/cost.ts";
import type { FiguresJob } from "./figures_child.ts";
import type { Store } from "./store.ts";
import type { Row } from "./model.ts";
import {
  type CheckCounts,
  type Counted,
  type ReplaySummary,
  summarizeChecks,
  summarizeVerdicts,
} from "../../lib/trajectories/verdict.ts";
import type { ToolCount } from "../../lib/results/tool_counts.ts";

/** How each recipe prices a trial, in this project's words (docs/EVALUATION_PROTOCOL.md, Metrics). */
export const RECIPE_TEXT: Record<Recipe, string> = {
  A: "recipe A — cache-read tokens × cache price only, as chi-bench's own aggregator computes it",
  B: "recipe B — uncached input, output and cache-read tokens at list prices",
  C: "recipe C — input, output and cache tokens at list prices, cache tokens counted twice",
};

/** An aggregate row; its `integrity` (lib/results/integrity.ts) is rendered when present. */
export type ArmRow = AggRow;

/** The figures as last computed. */
export interface FiguresState {
  /** The store's trialsVersion they were computed for. */
  version: number;
  result: AggregateResult | null;
  error: string | null;
  control: string | null;
  /** Why there is no (or another) control, for the page. */
  controlNote: string | null;
  recipe: Recipe;
  ms: number;
}

/** Figures settings. */
export interface FiguresOptions {
  recipe: Recipe;
  prices: Prices;
  control?: string;
  /** Deno flags for the child process (the demo passes its own: no node_modules, its lockfile). */
  denoFlags?: string[];
}

/** Picks the control: --control when it is an arm, else `stock`, else none (with the reason). */
export function pickControl(arms: string[], asked?: string): { control: string | null; note: string | null } {
  if (asked) {
    if (arms.includes(asked)) return { control: asked, note: null };
    return {
      control: null,
      note: `Cannot compare against --control "${asked}": no such arm here. Use one of ${arms.join(", ")}.`,
    };
  }
  if (arms.includes("stock")) return { control: "stock", note: null };
  return {
    control: null,
    note: arms.length > 1 ? "No comparison: start the dashboard with --control ARM to compare arms." : null,
  };
}

/** The arms below --logs as aggregate inputs: one per arm, its trial dirs as roots. */
export function armInputs(store: Store): ArmInput[] {
  const by = new Map<string, string[]>();
  for (const t of store.trialInfos()) by.set(t.arm, [...(by.get(t.arm) ?? []), t.dir]);
  return [...by].sort(([a], [b]) => a.localeCompare(b)).map(([name, roots]) => ({ name, roots }));
}

/** Computes the figures in a child process whenever the store's trials changed; callers await `get()`. */
export class Figures {
  private state: FiguresState | null = null;
  private running: Promise<FiguresState> | null = null;
  private runningFor = -1;

  constructor(private store: Store, private opts: FiguresOptions) {}

  /** The last figures computed, even if the trials changed since (null before the first). */
  current(): FiguresState | null {
    return this.state;
  }

  /** Figures for the store's current trials (computed once per trialsVersion). */
  get(): Promise<FiguresState> {
    const version = this.store.trialsVersion;
    if (this.state && this.state.version === version) return Promise.resolve(this.state);
    if (this.running && this.runningFor === version) return this.running;
    this.runningFor = version;
    const run = this.compute(version).then((state) => {
      if (!this.state || state.version >= this.state.version) this.state = state;
      if (this.running === run) this.running = null;
      return state;
    });
    this.running = run;
    return run;
  }

  private async compute(version: number): Promise<FiguresState> {
    const t0 = performance.now();
    const arms = armInputs(this.store);
    const { control, note } = pickControl(arms.map((a) => a.name), this.opts.control);
    const base = { version, control, controlNote: note, recipe: this.opts.recipe };
    if (!arms.length) return { ...base, result: null, error: null, ms: 0 };
    const job: FiguresJob = {
      arms,
      opts: { recipe: this.opts.recipe, prices: this.opts.prices, control: control ?? undefined },
    };
    try {
      const { result, fresh } = await inChild(job, this.opts.denoFlags);
      for (const [path, c] of fresh) this.store.toolCounts.set(path, c);
      if (fresh.length) this.store.touch();
      return { ...base, result, error: null, ms: performance.now() - t0 };
    } catch (err) {
      return { ...base, result: null, error: (err as Error).message, ms: performance.now() - t0 };
    }
  }
}

const CHILD = fileURLToPath(new URL("./figures_child.ts", import.meta.url));

async function inChild(
  job: FiguresJob,
  denoFlags: string[] = [],
): Promise<{ result: AggregateResult; fresh: [string, ToolCount][] }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...denoFlags, "--allow-read", "--no-prompt", CHILD],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(job)));
  await writer.close();
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  let answer: { ok: boolean; error?: string; result?: AggregateResult; fresh?: [string, ToolCount][] };
  try {
    answer = JSON.parse(text);
  } catch {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
    throw new Error(
      `Cannot compute the figures: the aggregate process failed (${why || `exit ${out.code}`}).`,
    );
  }
  if (!answer.ok) throw new Error(`Cannot compute the figures: ${answer.error}`);
  return { result: answer.result!, fresh: answer.fresh ?? [] };
}

/** The overall row of each arm. */
export function overallRows(result: AggregateResult): ArmRow[] {
  return result.rows.filter((r) => r.domain === "overall");
}

/** The overall comparison of an arm against the control, if any. */
export function comparisonOf(
  result: AggregateResult,
  arm: string,
  domain = "overall",
): Comparison | undefined {
  return result.comparisons.find((c) => c.arm === arm && c.domain === domain);
}

/** What one replay arm would have blocked on one real arm's trials (counts are trials). */
export interface ReplayFigure {
  replay: string;
  arm: string;
  /**
   * Replay's own summary of these trials (summarizeVerdicts over the verdicts its summary.json holds), so
   * every figure equals `deno task replay`'s on the same trials: time-aware, not-observable trials counted
   * as replay counts them.
   */
  summary: ReplaySummary;
  /** Replayed trials found only as ledgers (no replay summary.json beside them): in no figure. */
  withoutVerdict: number;
}

/** Would-have-blocked figures per replay arm × real arm, from replay's verdicts on the rows' trials. */
export function replayFigures(rows: readonly Row[]): ReplayFigure[] {
  const groups = new Map<string, { replay: string; arm: string; counted: Counted[]; without: number }>();
  for (const row of rows) {
    for (const m of row.replays) {
      const key = `${m.arm}\u0000${row.arm}`;
      const g = groups.get(key) ?? { replay: m.arm, arm: row.arm, counted: [], without: 0 };
      groups.set(key, g);
      if (!m.verdict) g.without++;
      else {
        g.counted.push({
          passed: m.verdict.passed,
          observable: !!m.verdict.verdict,
          verdict: m.verdict.verdict,
        });
      }
    }
  }
  return [...groups.values()].sort((a, b) => a.replay.localeCompare(b.replay) || a.arm.localeCompare(b.arm))
    .map((g) => ({
      replay: g.replay,
      arm: g.arm,
      summary: summarizeVerdicts(g.counted, 0),
      withoutVerdict: g.without,
    }));
}

/** Each row's verdict under one replay arm, as replay counts them (rows without one are left out). */
function countedOf(rows: readonly Row[], arm: string): Counted[] {
  const counted: Counted[] = [];
  for (const row of rows) {
    const v = row.replays.find((m) => m.arm === arm)?.verdict;
    if (v) counted.push({ passed: v.passed, observable: !!v.verdict, verdict: v.verdict });
  }
  return counted;
}

/** Replay's summary of one replay arm over every row (the Rules page's replay columns). */
export function replayArmSummary(rows: readonly Row[], arm: string): ReplaySummary {
  return summarizeVerdicts(countedOf(rows, arm), 0);
}

/** Per failed check, replay's in-time counts under one replay arm over every row (the Checks page). */
export function replayCheckCounts(rows: readonly Row[], arm: string): Record<string, CheckCounts> {
  return summarizeChecks(countedOf(rows, arm));
}
