/**
 * Trial discovery and reading: finds Harbor trial dirs below any root (trial dirs, chi-bench job dirs,
 * submission output roots, leaderboard packets) and reads `result.json`, `verifier/scorecard.json` and
 * `verifier/reward.json` into plain summaries. A trial passes iff reward ≥ 1.0 (checks.md §2).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { namesIn, type WalkCache, walkTree } from "../walk.ts";

/** The three v1.0.0 domains, in leaderboard order. */
export const DOMAINS = ["pa_provider", "pa_um", "cm"] as const;

/** Where one trial's files are; paths are null when the file is absent. */
export interface TrialRef {
  dir: string;
  name: string;
  domain: string;
  task: string;
  result: string;
  scorecard: string | null;
  reward: string | null;
  trajectory: string | null;
  ledgers: string[];
}

/** Token counts as Harbor writes them in `agent_result`; null when the field is absent. */
export interface Tokens {
  input: number | null;
  cache: number | null;
  output: number | null;
}

/** Start/finish instants in epoch seconds, and the exact duration (microseconds kept); null when absent. */
export interface Span {
  start: number | null;
  end: number | null;
  seconds: number | null;
}

/** A trial file that cannot be read: its path and why. replay and aggregate name it alike (`unreadableLine`). */
export interface ReadFailure {
  path: string;
  reason: string;
}

/** The one line every command prints for an unreadable trial file. */
export function unreadableLine(f: ReadFailure): string {
  return `Cannot read ${f.path}: ${f.reason}. Re-run or remove the trial.`;
}

/** Why a JSON file could not be read or parsed, as a `ReadFailure` reason. */
export function jsonFailure(err: unknown): string {
  if ((err as NodeJS.ErrnoException).code === "ENOENT") return "it is missing";
  if (err instanceof SyntaxError) return `it is truncated or not JSON (${err.message})`;
  return (err as Error).message;
}

/** One trial's result summary. `passed` is null when the trial was never verified or could not be read. */
export interface TrialSummary {
  ref: TrialRef;
  readable: boolean;
  /** Why result.json could not be read (then `readable` is false); null when it was. */
  unreadable: ReadFailure | null;
  task: string;
  domain: string;
  model: string | null;
  agent: string | null;
  /** result.json's agent_info.version: the harness's version (Claude Code's for claude-code and fiable-cc). */
  agentVersion: string | null;
  /** Where the trial ran: result.json's config.environment type, else its import path (a custom one). */
  environment: string | null;
  verified: boolean;
  reward: number | null;
  passed: boolean | null;
  costUsd: number | null;
  tokens: Tokens;
  trial: Span;
  agentExecution: Span;
  exception: { type: string; message: string } | null;
  problems: string[];
}

/** One verifier check: passed is null for not_applicable. */
export interface Check {
  id: string;
  passed: boolean | null;
  kind: "deterministic" | "judge";
}

/** A parsed scorecard. */
export interface Scorecard {
  reward: number | null;
  checks: Check[];
}

const TRAJECTORIES = ["trajectory.jsonl.zst", "trajectory.jsonl", "trajectory.json"];
const SKIP = new Set(["node_modules", ".git", "artifacts", "sessions", "setup"]);

/** True when `path` is a Harbor trial's config.json (its `trial_name` and `task`), not a job's or another tool's. */
function isTrialConfig(path: string): boolean {
  try {
    const c = JSON.parse(readFileSync(path, "utf8"));
    return typeof c?.trial_name === "string" && !!c.trial_name && !!c.task && typeof c.task === "object";
  } catch {
    return false;
  }
}

/**
 * True when `dir` is one trial: it holds result.json (and is not a job dir, whose trials hold their own), a
 * Harbor trial config.json (written when the trial starts, so a trial that crashed early is found too), or an
 * agent trajectory. A folder that only has a `verifier/` (chi-bench's own `src/chi_bench/verifier`) is a source
 * tree, not a trial.
 */
function looksLikeTrial(dir: string, entries: string[]): boolean {
  if (entries.includes("job.log")) return false;
  if (entries.includes("result.json")) {
    return !entries.some((e) => !SKIP.has(e) && existsSync(join(dir, e, "result.json")));
  }
  if (entries.includes("config.json") && isTrialConfig(join(dir, "config.json"))) return true;
  return entries.includes("agent") && TRAJECTORIES.some((t) => existsSync(join(dir, "agent", t)));
}

/** The task name from a trial dir name: the part before the first `__`. */
export function taskFromDirName(name: string): string {
  const at = name.indexOf("__");
  return at > 0 ? name.slice(0, at) : name;
}

/** The domain of a task from its name when no parent dir names it (checks.md §4 anatomy). */
export function domainFromTask(task: string): string {
  if (task.startsWith("cm_")) return "cm";
  if (/_new_referr/.test(task)) return "pa_provider";
  if (task.startsWith("pa_")) return "pa_um";
  return "unknown";
}

function domainOf(dir: string, task: string): string {
  let at = dirname(dir);
  for (let i = 0; i < 4; i++) {
    const name = basename(at);
    for (const d of DOMAINS) if (name === d || name.endsWith(`__${d}`)) return d;
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return domainFromTask(task);
}

/** Where the trial in `dir` keeps its files (read now). */
export function trialRef(dir: string): TrialRef {
  const name = basename(dir);
  const task = taskFromDirName(name);
  const has = (p: string) => existsSync(join(dir, p)) ? join(dir, p) : null;
  const trajectory = TRAJECTORIES.map((t) => has(join("agent", t))).find((p) => p !== null) ?? null;
  const fiable = join(dir, "agent", "fiable");
  const ledgers = namesIn(fiable).filter((f) => f.endsWith(".jsonl")).map((f) => join(fiable, f));
  return {
    dir,
    name,
    domain: domainOf(dir, task),
    task,
    result: join(dir, "result.json"),
    scorecard: has(join("verifier", "scorecard.json")),
    reward: has(join("verifier", "reward.json")),
    trajectory,
    ledgers,
  };
}

/**
 * The trial folders below the roots (a root may itself be a trial) in walk order, each real folder once, one
 * at a time: a caller can stop between any two (the dashboard scans thousands in slices while it serves), and
 * with a `cache` a folder unchanged since the last walk is not read again.
 */
export function* walkTrialDirs(roots: readonly string[], cache?: WalkCache): Generator<string> {
  const seen = new Set<string>();
  const dirs = walkTree(roots, {
    depth: 9,
    skip: (name) => SKIP.has(name) || name.startsWith("."),
    folder: looksLikeTrial,
  }, cache);
  for (const dir of dirs) {
    const key = resolve(dir);
    if (seen.has(key)) continue;
    seen.add(key);
    yield dir;
  }
}

/** The trials below the roots, as `walkTrialDirs` finds them, with where each keeps its files. */
export function* walkTrials(roots: readonly string[]): Generator<TrialRef> {
  for (const dir of walkTrialDirs(roots)) yield trialRef(dir);
}

/** Every trial below the roots (a root may itself be a trial), sorted by path, each real folder once. */
export function findTrials(roots: string[]): TrialRef[] {
  return [...walkTrials(roots)].sort((a, b) => a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0);
}

/** An ISO instant split into whole epoch seconds and the fraction, so durations keep microseconds. */
function isoParts(value: unknown): [number, number] | null {
  if (typeof value !== "string") return null;
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(value);
  if (!m) return null;
  const whole = Date.parse(m[1] + (m[3] ?? "Z"));
  return Number.isNaN(whole) ? null : [whole / 1000, m[2] ? Number(m[2]) : 0];
}

/** Epoch seconds of an ISO instant, keeping microseconds (Date.parse keeps only milliseconds). */
export function isoSeconds(value: unknown): number | null {
  const p = isoParts(value);
  return p ? p[0] + p[1] : null;
}

/** The span between two ISO instants; the duration is computed from whole seconds and fractions apart. */
export function spanOf(started: unknown, finished: unknown): Span {
  const a = isoParts(started), b = isoParts(finished);
  return {
    start: a ? a[0] + a[1] : null,
    end: b ? b[0] + b[1] : null,
    seconds: a && b ? (b[0] - a[0]) + (b[1] - a[1]) : null,
  };
}

function phaseSpan(value: unknown): Span {
  const v = (value ?? {}) as Record<string, unknown>;
  return spanOf(v.started_at, v.finished_at);
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The reward chi-bench reads from a verifier_result: rewards.reward, else reward, else 0 (harness.md §5.1). */
export function rewardOf(verifier: Record<string, unknown>): number {
  const rewards = verifier.rewards as Record<string, unknown> | null | undefined;
  if (rewards && typeof rewards === "object" && Object.keys(rewards).length) return num(rewards.reward) ?? 0;
  return num(verifier.reward) ?? 0;
}

/** A trial config's environment: its `type`, else the import path of a custom one; null when it names none. */
export function environmentOf(config: unknown): string | null {
  const env = (config as { environment?: Record<string, unknown> } | null)?.environment;
  if (!env || typeof env !== "object") return null;
  for (const key of ["type", "import_path"]) {
    if (typeof env[key] === "string" && env[key]) return env[key] as string;
  }
  return null;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Reads one trial's result.json (and cross-checks scorecard/reward.json); bad input becomes `problems`. */
export function readTrial(ref: TrialRef): TrialSummary {
  const summary: TrialSummary = {
    ref,
    readable: false,
    unreadable: null,
    task: ref.task,
    domain: ref.domain,
    model: null,
    agent: null,
    agentVersion: null,
    environment: null,
    verified: false,
    reward: null,
    passed: null,
    costUsd: null,
    tokens: { input: null, cache: null, output: null },
    trial: { start: null, end: null, seconds: null },
    agentExecution: { start: null, end: null, seconds: null },
    exception: null,
    problems: [],
  };
  let data: Record<string, unknown>;
  try {
    const parsed = readJson(ref.result);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Error("it is not a JSON object");
    }
    data = parsed as Record<string, unknown>;
  } catch (err) {
    summary.unreadable = { path: ref.result, reason: jsonFailure(err) };
    summary.problems.push(unreadableLine(summary.unreadable));
    return summary;
  }
  summary.readable = true;
  if (typeof data.task_name === "string" && data.task_name) {
    summary.task = data.task_name.slice(data.task_name.lastIndexOf("/") + 1);
  }
  const info = (data.agent_info ?? {}) as Record<string, unknown>;
  const model = (info.model_info ?? {}) as Record<string, unknown>;
  if (typeof model.name === "string") {
    summary.model = typeof model.provider === "string" && model.provider
      ? `${model.provider}/${model.name}`
      : model.name;
  }
  summary.agent = typeof info.name === "string" ? info.name : null;
  summary.agentVersion = typeof info.version === "string" && info.version ? info.version : null;
  summary.environment = environmentOf(data.config);
  const result = (data.agent_result ?? {}) as Record<string, unknown>;
  summary.costUsd = num(result.cost_usd);
  summary.tokens = {
    input: num(result.n_input_tokens),
    cache: num(result.n_cache_tokens),
    output: num(result.n_output_tokens),
  };
  summary.trial = spanOf(data.started_at, data.finished_at);
  summary.agentExecution = phaseSpan(data.agent_execution);
  const exc = data.exception_info as Record<string, unknown> | null | undefined;
  if (exc && typeof exc === "object") {
    summary.exception = {
      type: String(exc.exception_type ?? "UnknownException"),
      message: String(exc.exception_message ?? ""),
    };
  }
  const verifier = data.verifier_result;
  if (verifier && typeof verifier === "object" && !Array.isArray(verifier)) {
    summary.verified = true;
    summary.reward = rewardOf(verifier as Record<string, unknown>);
    summary.passed = summary.reward >= 1.0;
  } else {
    summary.problems.push(
      `Cannot score ${ref.result}: it has no verifier_result` +
        (summary.exception ? ` (${summary.exception.type})` : "") + ". The trial is counted as unscored.",
    );
  }
  crossCheck(summary);
  return summary;
}

function crossCheck(summary: TrialSummary): void {
  if (summary.reward === null) return;
  const { ref } = summary;
  if (ref.scorecard) {
    try {
      const card = readScorecard(ref.scorecard);
      if (card.reward !== null && (card.reward >= 1) !== summary.passed) {
        summary.problems.push(
          `Cannot trust ${ref.scorecard}: binary_reward ${card.reward} disagrees with result.json reward ` +
            `${summary.reward}. result.json is used; check the verifier output.`,
        );
      }
    } catch (err) {
      summary.problems.push(`Cannot read ${ref.scorecard}: ${(err as Error).message}. result.json is used.`);
    }
  }
  if (ref.reward) {
    try {
      const r = num((readJson(ref.reward) as Record<string, unknown>)?.reward);
      if (r !== null && (r >= 1) !== summary.passed) {
        summary.problems.push(
          `Cannot trust ${ref.reward}: reward ${r} disagrees with result.json reward ${summary.reward}. ` +
            "result.json is used; check the verifier output.",
        );
      }
    } catch (err) {
      summary.problems.push(`Cannot read ${ref.reward}: ${(err as Error).message}. result.json is used.`);
    }
  }
}

/**
 * An unreadable trial's task is only its folder's 32-character prefix: give it the full task name of a
 * readable trial of the same prefix, so it counts as one more attempt of that task, not a task of its own.
 */
export function nameUnreadable(trials: readonly TrialSummary[]): void {
  const full = new Map<string, string>();
  for (const t of trials) if (t.readable) full.set(taskFromDirName(t.ref.name), t.task);
  for (const t of trials) if (!t.readable) t.task = full.get(t.ref.task) ?? t.task;
}

/** The kind of a check ID: `judge.*` checks come from the LLM judge, all others are deterministic. */
export function checkKind(id: string): Check["kind"] {
  return id.startsWith("judge.") ? "judge" : "deterministic";
}

function verdict(value: unknown): boolean | null {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  return null;
}

/** Reads verifier/scorecard.json: every check with passed true/false/null (not_applicable) and its kind. */
export function readScorecard(path: string): Scorecard {
  const data = readJson(path) as Record<string, unknown>;
  if (!data || typeof data !== "object") throw new Error("not a JSON object");
  const map = (data.checks ?? data.check_scores ?? {}) as Record<string, unknown>;
  const checks = Object.entries(map).map(([id, v]) => ({ id, passed: verdict(v), kind: checkKind(id) }));
  return { reward: num(data.binary_reward), checks };
}

/** Files that mark a submission packet's root folder. */
const PACKET_MARKERS = ["results.csv", "submission.json"];

/**
 * The packet a trial belongs to: the nearest folder above the trial holding `results.csv` or
 * `submission.json` (a leaderboard packet), else the replayed path that contains the trial (the deepest one),
 * else the trial's parent folder. Pass the paths given to replay as `roots`.
 */
export function packetOf(trial: { dir: string } | string, roots: readonly string[] = []): string {
  const dir = typeof trial === "string" ? trial : trial.dir;
  for (let at = dirname(dir); at !== dirname(at) && at !== "."; at = dirname(at)) {
    if (PACKET_MARKERS.some((m) => existsSync(join(at, m)))) return at;
  }
  const full = resolve(dir);
  const containing = roots.filter((r) => full === resolve(r) || full.startsWith(resolve(r) + sep));
  return containing.sort((a, b) => resolve(b).length - resolve(a).length)[0] ?? dirname(dir);
}

/** A packet's display name: its folder name. */
export function packetName(packet: string): string {
  return basename(packet) || packet;
}

/**
 * The name a trial goes by wherever it is read (replay's summary.json, the dashboard): its packet folder's
 * name (`packetOf` with no roots: a leaderboard packet's, else the folder holding the trial) and its own, so
 * same-named trials of two packets or two jobs stay apart, and a tree read from another place keeps its keys.
 */
export function trialKey(dir: string): string {
  return `${packetName(packetOf(dir))}/${basename(dir)}`;
}
