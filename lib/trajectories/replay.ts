/**
 * Replay: recorded χ-Bench trials → the hook events the live guard would have seen → the same engine
 * (`decide`), per arm. Shadow semantics: a would-be block is recorded and the trial continues as recorded.
 * Each failed check's doom (the first executed call that fixes it, lib/trajectories/doom.ts) is kept with
 * the trial, so verdict.ts can tell a block in time from one too late; the trial-level metrics are there.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import process from "node:process";
import {
  agentTexts,
  countToolCalls,
  readTrajectory,
  taskPrompt,
  type ToolEvent,
  toolEvents,
  type TrajectoryError,
} from "./atif.ts";
import { type Bounds, decide, DEFAULT_BOUNDS, type GuardEvent } from "../guard/engine/decide.ts";
import { RECENT_TEXT, recentText } from "../guard/engine/judge.ts";
import { isJudged } from "../guard/engine/judges/mod.ts";
import { checkMatches, doomIndex } from "./doom.ts";
import { type SavedEvent, withSavedReads } from "./saved_reads.ts";
import { extractIds, normalizeId, stringsIn } from "../guard/engine/ids.ts";
import { isIdentifier } from "../guard/engine/critic.ts";
import { countGrade, gradeRecord, nextCallCounts } from "./next_call.ts";
import { isMutating } from "../guard/engine/names.ts";
import { ledgerFileName } from "../guard/ledger/ledger.ts";
import { type Arm, type LedgerRecord } from "../guard/engine/record.ts";
import {
  type Check,
  findTrials,
  jsonFailure,
  packetName,
  packetOf,
  type ReadFailure,
  readScorecard,
  readTrial,
  type TrialRef,
} from "../results/trials.ts";
import {
  type ColumnarOutcome,
  decisionFields,
  type DuckLoader,
  type LedgerSource,
  trialColumns,
  type VerdictColumns,
  writeColumnar,
} from "../results/columnar.ts";

import {
  type ArmResult,
  armVerdict,
  type DoomPoint,
  type FiredCall,
  GATE_ROW,
  type ReplaySummary,
  summarize,
  type TrialReplay,
} from "./verdict.ts";

export { checkMatches, packetName, packetOf, summarize };
export type { ArmResult, FiredCall, ReplaySummary, TrialReplay };

/** The arms replayed when none are named. */
export const DEFAULT_ARMS: Arm[] = ["checklist", "critic"];

/** A trial that could not be read: where and why (printed with `unreadableLine`, as aggregate prints it). */
export interface Unreadable extends ReadFailure {
  dir: string;
  /** The packet the trial belongs to (see `packetOf`). */
  packet?: string;
}

/** Options for a replay. */
export interface ReplayOptions {
  arms?: Arm[];
  /** Output folder: summary.json, the Parquet summary, ledgers in `<out>/<arm>/<packet>/`; null writes nothing. */
  out?: string | null;
  /**
   * With `out`, keep each trial's JSONL ledger per arm (default true; the CLI only with `--ledgers`): the
   * dashboard's overlay and aggregate's `--ledgers` read them. False writes only the fields decisions.parquet
   * reads, to a scratch folder (`slim`, set by replayTrees) removed once the summary is written.
   */
  ledgers?: boolean;
  /** The scratch folder of the slim ledgers (replayTrees sets it). */
  slim?: string;
  bounds?: Bounds;
  /** Rule IDs to run; all when absent. */
  rules?: string[];
  /** Worker threads; 0 or 1 runs in-process. Default: the core count. */
  workers?: number;
  /** The paths the trials were found under, for `packetOf` (replayTrees sets them). */
  roots?: string[];
  /** With `out`: also write trials.parquet and decisions.parquet (default true); `duckdb` replaces the loader. */
  columnar?: boolean;
  duckdb?: DuckLoader;
  /** Hears each trial done (`done` of `total`), and `0` before the first. */
  onProgress?: (done: number, total: number) => void;
}

/** One packet's figures: its path, its display name and a summary per arm. */
export interface PacketSummary {
  packet: string;
  name: string;
  summary: Partial<Record<Arm, ReplaySummary>>;
}

/** Everything a replay produced: per-arm summaries (all trials, then per packet), per-trial details. */
export interface ReplayReport {
  arms: Arm[];
  summary: Partial<Record<Arm, ReplaySummary>>;
  packets: PacketSummary[];
  trials: TrialReplay[];
  unreadable: Unreadable[];
  /** What writing the Parquet summary did (with `out`; not in summary.json). */
  columnar?: ColumnarOutcome;
}

/** Items grouped by their `packet`, in first-seen order (for per-packet figures). */
export function groupByPacket<T extends { packet?: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = item.packet ?? "";
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * A harness-local command that reaches the χ-World simulator outside MCP: Python importing its services,
 * running its MCP server module, or speaking JSON-RPC / HTTP to one of its MCP ports.
 */
const OFF_CHANNEL =
  /\b(?:from|import)\s+(?:chi_bench|healthverse)\b|\bServiceContext\b|-m\s+chi_bench\b|\btools\/call\b|(?:localhost|127\.0\.0\.1|0\.0\.0\.0):8(?:020|100|200)\b/;
/** Harness-local tools that run commands or code (shell, terminal, code execution). */
const COMMAND_TOOL = /bash|terminal|shell|exec|command|code|process|python/i;

/**
 * Whether the guard could have seen the trial: not when the agent worked on the simulator through a
 * terminal or code execution (hermes agents that could not reach MCP drove the services from Python), since
 * hooks see only MCP calls and every rule or obligation that reasons from absence would misread the trial.
 */
export function observability(calls: readonly ToolEvent[]): { observable: boolean; reason?: string } {
  for (const c of calls) {
    if (c.tool || !COMMAND_TOOL.test(c.raw)) continue;
    const m = OFF_CHANNEL.exec(JSON.stringify(c.input));
    if (m) {
      return {
        observable: false,
        reason: `step ${c.step} ${c.raw} reached the simulator outside MCP (${m[0]})`,
      };
    }
  }
  return { observable: true };
}

/**
 * True when a call runs on its own: Claude Code runs consecutive read-only calls of one turn concurrently
 * (their pres, then their posts) and every mutating call alone, after the calls before it returned
 * (hooks.md §4.2); a codex script awaits each call.
 */
function runsAlone(call: ToolEvent): boolean {
  return call.sequential === true || isMutating(call.tool!);
}

/**
 * The hook events of one trial, in the order the live guard would have seen them: each run of concurrent
 * calls (its pres, then its posts), one run after the other.
 * Each pre carries the agent's recent text from `texts` (its messages up to the call's step), as the live
 * guard reads it from the transcript.
 */
export function trialEvents(
  session: string,
  prompt: string,
  calls: ToolEvent[],
  texts: readonly { step: number; text: string }[] = [],
): { event: GuardEvent; call?: ToolEvent }[] {
  const out: { event: GuardEvent; call?: ToolEvent }[] = [{ event: { word: "prompt", session, prompt } }];
  const guarded = calls.filter((c) => c.tool);
  let end = 0; // texts[0..end) were written at or before the current call (calls come in step order)
  const said = (call: ToolEvent) => {
    while (end < texts.length && texts[end].step <= call.step) end++;
    if (!isJudged(call.tool)) return [];
    return recentText(texts.slice(Math.max(0, end - RECENT_TEXT.messages), end).map((t) => t.text));
  };
  for (let i = 0; i < guarded.length;) {
    let j = i + 1;
    if (!runsAlone(guarded[i])) {
      while (j < guarded.length && guarded[j].batch === guarded[i].batch && !runsAlone(guarded[j])) j++;
    }
    const run = guarded.slice(i, j);
    for (const call of run) {
      const agentId = call.sidechain ? "sidechain" : undefined;
      const recent = said(call);
      out.push({
        call,
        event: {
          word: "pre",
          session,
          tool: call.tool!,
          input: call.input,
          toolUseId: call.id,
          agentId,
          ...(recent.length ? { recentText: recent } : {}),
        },
      });
    }
    for (const call of run) {
      if (!call.answered) continue;
      const agentId = call.sidechain ? "sidechain" : undefined;
      const common = { session, tool: call.tool!, input: call.input, toolUseId: call.id, agentId };
      out.push({
        call,
        event: call.isError
          ? { word: "post-fail", ...common, error: call.text }
          : { word: "post", ...common, response: call.text },
      });
    }
    i = j;
  }
  out.push({ event: { word: "stop", session, subagent: false } });
  return out;
}

function enforcesRules(arm: Arm): boolean {
  return arm === "checklist" || arm === "critic";
}

/** Drives the engine over a trial's events for one arm; returns the records (marked replay) and the result. */
export function replayArm(
  session: string,
  prompt: string,
  calls: ToolEvent[],
  arm: Arm,
  opts: {
    bounds?: Bounds;
    rules?: string[];
    now?: (step: number | null) => string;
    texts?: readonly { step: number; text: string }[];
  } = {},
): { records: LedgerRecord[]; result: Omit<ArmResult, "ledger"> } {
  const config = { arm, bounds: opts.bounds ?? DEFAULT_BOUNDS, rules: opts.rules };
  const records: LedgerRecord[] = [];
  const result: Omit<ArmResult, "ledger"> = {
    rules: {},
    closure: [],
    blocked: false,
    firstBlock: null,
    votes: {},
  };
  const now = opts.now ?? (() => "1970-01-01T00:00:00.000Z");
  const order = new Map(calls.filter((c) => c.tool).map((c, i) => [c, i]));
  const fired = (call: ToolEvent, decision: string): FiredCall => ({
    step: call.step,
    at: order.get(call)!,
    id: call.id,
    tool: call.tool!,
    decision,
  });
  let saved: { record: LedgerRecord; call: SavedEvent } | null = null;
  const absent = nonexistentIds(calls);
  for (const { event, call } of trialEvents(session, prompt, calls, opts.texts)) {
    const t = now(call?.step ?? null);
    let { record } = decide(event, records, config, t);
    if (!record) continue;
    if (event.word === "pre" && saved && call && record.rules?.length) {
      const open = unseenInSaved(event, records, { ...saved, absent }, config, t, record);
      if (open) {
        record = open.record;
        for (const id of open.rules) {
          (result.unobservable ??= {})[id] = [
            ...result.unobservable?.[id] ?? [],
            fired(call, "not observable"),
          ];
        }
      }
    }
    const marked: LedgerRecord = { ...record, replay: true, ...(call ? { step: call.step } : {}) };
    const isBlock = marked.decision === "deny" || marked.decision === "block";
    if (isBlock && !result.firstBlock) {
      marked.first_block = true;
      result.firstBlock = {
        step: call?.step ?? null,
        tool: marked.tool ?? null,
        rules: marked.rules?.map((r) => r.id) ?? (marked.obligations ?? []).map((o) => o.split(":")[0]),
      };
    }
    if (isBlock || (marked.decision === "shadow" && !enforcesRules(arm))) result.blocked = true;
    const counts = marked.event === "pre" &&
      (marked.decision === "deny" || marked.decision === "release" ||
        (marked.decision === "shadow" && !enforcesRules(arm)));
    if (counts && call) {
      for (const hit of marked.rules ?? []) {
        const entry = result.rules[hit.id] ??= { checks: hit.checks, calls: [] };
        entry.calls.push(fired(call, marked.decision));
      }
    }
    if (call && marked.event === "pre") {
      for (const v of marked.votes ?? []) {
        if (!v.object || !v.mode) continue;
        (result.votes![v.judge] ??= []).push(fired(call, marked.decision));
      }
    }
    if (marked.event === "stop" && marked.decision !== "allow") result.closure = marked.obligations ?? [];
    for (const [id, graded] of gradeRecord(marked, records)) {
      countGrade((result.nextCall ??= {})[id] ??= nextCallCounts(), graded);
    }
    records.push(marked);
    if (marked.event === "post" && (call as SavedEvent | undefined)?.saved) {
      saved = { record: marked, call: call! };
    }
  }
  return { records, result };
}

/** An error saying a record does not exist (`No contact found with id '…'`, `… not found`, `… does not exist`). */
const NOT_FOUND = /\bno \w+ found\b|\bnot found\b|\bdoes not exist\b|\bunknown \w+ id\b/i;

/** Ids the simulator said, in an error anywhere in the trial, do not exist: no saved result held them. */
export function nonexistentIds(calls: readonly ToolEvent[]): Set<string> {
  const out = new Set<string>();
  for (const c of calls) {
    if (c.tool && c.isError && NOT_FOUND.test(c.text)) {
      for (const id of extractIds(c.text)) out.add(id);
    }
  }
  return out;
}

/**
 * The ids a pending call names that a result could have returned: id-shaped tokens in its arguments and every
 * argument value that is an identifier or a code (what GLOBAL-02/04/05 and the grounding judge ask about),
 * less those the simulator said do not exist.
 */
function namedIds(input: Record<string, unknown>, absent: ReadonlySet<string>): string[] {
  const out = new Set(extractIds(JSON.stringify(input)));
  for (const value of stringsIn(input)) {
    for (const part of value.split(/[,;]\s*|\s+/)) if (part && isIdentifier(part)) out.add(normalizeId(part));
  }
  return [...out].filter((id) => !absent.has(id));
}

/**
 * A block replay cannot judge: the live guard reads a saved oversized result whole (lib/guard/saved_output.ts),
 * replay has only what the agent read of it, so an id the call names may be one that file held. The call is
 * decided again as if the latest saved result had returned the ids it names (but an id the simulator said,
 * anywhere in the trial, does not exist); the blocks that then disappear
 * (an unseen-id rule, the panel's grounding objection) are not observable: the decision recorded is the
 * second one, with a note, and the rules are listed apart, never counted as blocks.
 */
function unseenInSaved(
  event: GuardEvent,
  records: readonly LedgerRecord[],
  saved: { record: LedgerRecord; call: SavedEvent; absent: ReadonlySet<string> },
  config: { arm: Arm; bounds: Bounds; rules?: string[] },
  t: string,
  record: LedgerRecord,
): { record: LedgerRecord; rules: string[] } | null {
  if (event.word !== "pre") return null;
  const ids = namedIds(event.input, saved.absent);
  if (!ids.length) return null;
  const held = { ...saved.record, ids: [...saved.record.ids ?? [], ...ids] };
  const alt = decide(event, records.map((r) => r === saved.record ? held : r), config, t).record;
  if (!alt) return null;
  const rules = (record.rules ?? []).map((h) => h.id).filter((id) => !alt.rules?.some((h) => h.id === id));
  if (!rules.length) return null;
  const note = `not observable in replay: ${rules.join(", ")} would block on an id the saved result of ` +
    `${saved.call.tool} (step ${saved.call.step}) may hold, which the live guard reads whole and replay ` +
    "has only as far as the agent read it";
  return { record: { ...alt, note: alt.note ? `${alt.note}; ${note}` : note }, rules };
}

function timeOf(steps: { timestamp?: string }[]): (step: number | null) => string {
  let last = "1970-01-01T00:00:00.000Z";
  const first = steps.find((s) => typeof s.timestamp === "string")?.timestamp;
  if (first) last = first;
  return (step) => {
    const t = step == null ? undefined : steps[step]?.timestamp;
    if (typeof t === "string") last = t;
    return last;
  };
}

const DOMAIN_SEATS: Record<string, string> = { pa_provider: "provider", pa_um: "payer", cm: "care-manager" };

/**
 * A stand-in prompt when the trajectory recorded none (an agent that timed out before its first step): the
 * seat line every χ-Bench prompt carries, taken from the trial's domain, so the closure gate still applies.
 */
export function domainPrompt(domain: string): string {
  const seat = DOMAIN_SEATS[domain];
  return seat ? `(task prompt not recorded; seat from the trial domain)\n- Use only ${seat} namespaces` : "";
}

/** What a scorecard says the provider task expected (see `TrialReplay.expects`); undefined for other seats. */
export function expectedDisposition(checks: readonly Check[]): "submit" | "hold" | undefined {
  if (!checks.some((c) => c.id.startsWith("provider_pre_submission."))) return undefined;
  const judged = checks.some((c) => c.id === "provider_pre_submission.final_action" && c.passed !== null);
  return judged ? "hold" : "submit";
}

/**
 * Reads the trial's verdict: result.json reward when verified, else the scorecard's binary_reward. An
 * unreadable result.json makes the trial unreadable, as in aggregate (readTrial names it for both).
 */
function verdictOf(
  ref: TrialRef,
): { passed: boolean; failed: string[]; expects?: "submit" | "hold" } | Unreadable {
  const trial = readTrial(ref);
  if (trial.unreadable) return { dir: ref.dir, ...trial.unreadable };
  if (!ref.scorecard) {
    return {
      dir: ref.dir,
      path: join(ref.dir, "verifier", "scorecard.json"),
      reason: "it is missing",
    };
  }
  let card;
  try {
    card = readScorecard(ref.scorecard);
  } catch (err) {
    return { dir: ref.dir, path: ref.scorecard, reason: jsonFailure(err) };
  }
  const failed = card.checks.filter((c) => c.passed === false).map((c) => c.id);
  const expects = expectedDisposition(card.checks);
  if (trial.verified && trial.passed !== null) return { passed: trial.passed, failed, expects };
  if (card.reward !== null) return { passed: card.reward >= 1, failed, expects };
  return {
    dir: ref.dir,
    path: ref.scorecard,
    reason: "neither result.json nor the scorecard carries a reward",
  };
}

/** Each failed check's first executed dooming call among the trial's χ-World calls (lib/trajectories/doom.ts). */
export function doomPoints(
  calls: readonly ToolEvent[],
  failed: readonly string[],
): Record<string, DoomPoint> {
  const guarded = calls.filter((c) => c.tool);
  const out: Record<string, DoomPoint> = {};
  for (const check of failed) {
    const at = doomIndex(check, guarded, failed);
    if (at !== null) out[check] = { at, step: guarded[at].step, tool: guarded[at].tool! };
  }
  return out;
}

/** Replays one trial for each arm; writes its ledgers under `out` when given. */
export function replayTrial(ref: TrialRef, opts: ReplayOptions = {}): TrialReplay | Unreadable {
  const replay = replayOne(ref, opts);
  if ("reason" in replay) replay.packet = packetOf(ref, opts.roots);
  return replay;
}

function replayOne(ref: TrialRef, opts: ReplayOptions): TrialReplay | Unreadable {
  if (!ref.trajectory) {
    return {
      dir: ref.dir,
      path: join(ref.dir, "agent", "trajectory.jsonl.zst"),
      reason: "it is missing",
    };
  }
  const verdict = verdictOf(ref);
  if ("reason" in verdict) return verdict;
  let trajectory;
  try {
    trajectory = readTrajectory(ref.trajectory);
  } catch (err) {
    return {
      dir: ref.dir,
      path: ref.trajectory,
      reason: (err as TrajectoryError).reason ?? (err as Error).message,
    };
  }
  if (trajectory.corrupt) {
    return {
      dir: ref.dir,
      path: ref.trajectory,
      reason: `${trajectory.corrupt} line(s) are truncated or not JSON`,
    };
  }
  const events = toolEvents(trajectory);
  const calls: ToolEvent[] = withSavedReads(events.calls);
  const unresolved = events.unresolved;
  const prompt = taskPrompt(trajectory) || domainPrompt(ref.domain);
  const texts = agentTexts(trajectory);
  const seen = observability(calls);
  const doom = doomPoints(calls, verdict.failed);
  const replay: TrialReplay = {
    dir: ref.dir,
    packet: packetOf(ref, opts.roots),
    name: ref.name,
    domain: ref.domain,
    harness: trajectory.harness,
    version: trajectory.version,
    passed: verdict.passed,
    failedChecks: verdict.failed,
    ...(verdict.expects ? { expects: verdict.expects } : {}),
    ...(Object.keys(doom).length ? { doom } : {}),
    toolCalls: countToolCalls(trajectory),
    unresolved,
    observable: seen.observable,
    ...(seen.reason ? { unobservable: seen.reason } : {}),
    arms: {},
  };
  for (const arm of opts.arms ?? DEFAULT_ARMS) {
    const { records, result } = replayArm(ref.name, prompt, calls, arm, {
      bounds: opts.bounds,
      rules: opts.rules,
      now: timeOf(trajectory.steps),
      texts,
    });
    let ledger: string | null = null;
    const keep = opts.ledgers !== false;
    const root = opts.out ? (keep ? opts.out : opts.slim) : undefined;
    if (root) {
      const file = join(root, ledgerPlace(replay, arm, opts.roots));
      mkdirSync(dirname(file), { recursive: true });
      const lines = (keep ? records : records.map(decisionFields)).map((r) => JSON.stringify(r) + "\n");
      writeFileSync(file, lines.join(""));
      if (keep) ledger = file;
    }
    replay.arms[arm] = { ...result, ledger };
  }
  return replay;
}

/**
 * Where a trial's ledger of one arm goes below the output folder: `<arm>/<packet>/<trial>.jsonl`, one folder
 * per packet since reruns in two packets can share a trial's folder name.
 */
function ledgerPlace(t: TrialReplay, arm: Arm, roots?: string[]): string {
  return join(arm, packetName(t.packet ?? packetOf(t.dir, roots)), ledgerFileName(t.name));
}

/** The per-arm summaries of each packet: in the order of the paths given (`roots`), then by path. */
export function packetSummaries(
  trials: readonly TrialReplay[],
  unreadable: readonly Unreadable[],
  arms: readonly Arm[],
  roots: readonly string[] = [],
): PacketSummary[] {
  const bad = groupByPacket(unreadable);
  const byPacket = groupByPacket(trials);
  const rootOf = (packet: string) => {
    const at = roots.findIndex((r) => (resolve(packet) + sep).startsWith(resolve(r) + sep));
    return at < 0 ? roots.length : at;
  };
  const packets = [...new Set([...byPacket.keys(), ...bad.keys()])]
    .sort((a, b) => rootOf(a) - rootOf(b) || (a < b ? -1 : a > b ? 1 : 0));
  return packets.map((packet) => {
    const summary: Partial<Record<Arm, ReplaySummary>> = {};
    for (const arm of arms) {
      summary[arm] = summarize(byPacket.get(packet) ?? [], bad.get(packet)?.length ?? 0, arm);
    }
    return { packet, name: packetName(packet), summary };
  });
}

/** Runs replayTrial over refs with a pool of module workers (web Worker API); in-process when unavailable. */
async function runPool(refs: TrialRef[], opts: ReplayOptions): Promise<(TrialReplay | Unreadable)[]> {
  const cores = (globalThis.navigator as { hardwareConcurrency?: number } | undefined)?.hardwareConcurrency ??
    1;
  const size = Math.min(opts.workers ?? cores, refs.length);
  let done = 0;
  opts.onProgress?.(0, refs.length);
  const counted = <T>(result: T): T => {
    opts.onProgress?.(++done, refs.length);
    return result;
  };
  if (size <= 1 || typeof Worker === "undefined") return refs.map((ref) => counted(replayTrial(ref, opts)));
  const results: (TrialReplay | Unreadable)[] = new Array(refs.length);
  let next = 0;
  const shared = {
    arms: opts.arms,
    out: opts.out,
    ledgers: opts.ledgers,
    slim: opts.slim,
    bounds: opts.bounds,
    rules: opts.rules,
    roots: opts.roots,
  };
  const pool = Array.from({ length: size }, () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL("./replay_worker.ts", import.meta.url), { type: "module" });
      const feed = () => {
        if (next >= refs.length) {
          worker.terminate();
          resolve();
          return;
        }
        const index = next++;
        worker.postMessage({ index, ref: refs[index], opts: shared });
      };
      worker.onmessage = (e: MessageEvent<{ index: number; result: TrialReplay | Unreadable }>) => {
        results[e.data.index] = counted(e.data.result);
        feed();
      };
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        reject(new Error(`Cannot replay: a worker failed (${e.message}).`));
      };
      feed();
    }));
  await Promise.all(pool);
  return results;
}

/** Replays every trial below the paths for each arm; writes ledgers and `summary.json` under `out` when given. */
export async function replayTrees(paths: string[], opts: ReplayOptions = {}): Promise<ReplayReport> {
  const arms = opts.arms ?? DEFAULT_ARMS;
  const refs = findTrials(paths);
  if (opts.out) {
    for (const arm of arms) rmSync(join(opts.out, arm), { recursive: true, force: true });
  }
  // Without kept ledgers, the Parquet summary is read from slim ones, removed once it is written.
  const slim = opts.out && opts.ledgers === false && opts.columnar !== false
    ? join(opts.out, `.decisions-${process.pid}`)
    : undefined;
  try {
    return await replayInto(paths, refs, { ...opts, arms, slim });
  } finally {
    if (slim) rmSync(slim, { recursive: true, force: true });
  }
}

async function replayInto(paths: string[], refs: TrialRef[], opts: ReplayOptions): Promise<ReplayReport> {
  const arms = opts.arms!;
  const results = await runPool(refs, { ...opts, roots: paths });
  const trials = results.filter((r): r is TrialReplay => !("reason" in r));
  const unreadable = results.filter((r): r is Unreadable => "reason" in r);
  const summary: Partial<Record<Arm, ReplaySummary>> = {};
  for (const arm of arms) summary[arm] = summarize(trials, unreadable.length, arm);
  const report: ReplayReport = {
    arms,
    summary,
    packets: packetSummaries(trials, unreadable, arms, paths),
    trials,
    unreadable,
  };
  if (opts.out) {
    mkdirSync(opts.out, { recursive: true });
    // Loaded when used: replay.ts imports no npm package before it can install them (lib/packages.ts).
    const { SUMMARY_FILE, summaryFileOf } = await import("./summary_file.ts");
    const file = summaryFileOf(paths, report);
    writeFileSync(join(opts.out, SUMMARY_FILE), JSON.stringify(file, null, 1) + "\n");
    if (opts.columnar !== false) {
      report.columnar = await replayColumnar(opts.out, refs, trials, paths, opts);
    }
  }
  return report;
}

/**
 * The Parquet summary of a replay: every trial found (its result.json and scorecard) and one row per
 * record of the ledgers just written (kept, or slim), `arm` being the replayed arm.
 */
function replayColumnar(
  out: string,
  refs: readonly TrialRef[],
  trials: readonly TrialReplay[],
  paths: string[],
  opts: ReplayOptions,
): Promise<ColumnarOutcome> {
  const replayed = new Map(trials.map((t) => [t.dir, t]));
  const rows = refs.map((ref) => {
    const t = replayed.get(ref.dir);
    return trialColumns(readTrial(ref), {
      packet: packetName(t?.packet ?? packetOf(ref, paths)),
      arm: null,
      failedChecks: t?.failedChecks,
      toolCalls: t?.toolCalls.all ?? null,
    });
  });
  const ledgers: LedgerSource[] = trials.flatMap((t) =>
    (Object.keys(t.arms) as Arm[]).flatMap((arm) => {
      const place = ledgerPlace(t, arm, paths);
      const kept = t.arms[arm]?.ledger;
      const path = kept ?? (opts.slim ? join(opts.slim, place) : null);
      if (!path) return [];
      const packet = packetName(t.packet ?? packetOf(t.dir, paths));
      return [{ path, packet, trial: t.name, arm, ...(kept ? {} : { name: place }) }];
    })
  );
  const verdicts = trials.flatMap((t) =>
    (Object.keys(t.arms) as Arm[]).map((arm) =>
      verdictColumns(t, arm, packetName(t.packet ?? packetOf(t.dir, paths)))
    )
  );
  return writeColumnar(out, rows, ledgers, { load: opts.duckdb, verdicts });
}

/** A verdicts.parquet row: the arm's verdict on the trial (verdict.ts), or a not-observable row. */
export function verdictColumns(t: TrialReplay, arm: Arm, packet: string): VerdictColumns {
  const v = armVerdict(t, arm);
  const fires = v
    ? [
      ...Object.entries(v.rules).map(([id, f]) => ({ id, ...f })),
      ...(v.gate ? [{ id: GATE_ROW, ...v.gate }] : []),
    ]
    : [];
  return {
    packet,
    trial: t.name,
    arm,
    passed: t.passed,
    observable: v !== null,
    blocked: v?.blocked ?? null,
    rescue: v?.rescue ?? null,
    rescue_ignoring_time: v?.rescueIgnoringTime ?? null,
    fires,
  };
}
