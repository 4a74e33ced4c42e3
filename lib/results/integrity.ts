/**
 * Run integrity: proof, per trial, that the guard ran. Pure functions over what a trial dir holds, already
 * read (lib/results/trial_facts.ts reads it): the trajectory's χ-World tool calls, the guard ledger's records,
 * harness.json, config.json and the hook settings. Guard coverage is the share of χ-World calls that have a
 * `pre` record and, when the call went through, a `post`/`post-fail`; calls and records are matched by
 * tool_use_id where the trajectory keeps call ids (Claude Code's ATIF does), else by order and tool name.
 * verify.ts prints it per trial; aggregate rolls it up per arm (COORDINATION.md contract 5).
 */
import { ARMS, type LedgerRecord, UNKNOWN_ARM } from "../guard/engine/record.ts";
import { ENFORCES } from "../guard/engine/decide.ts";
import { WRITING_TOOLS } from "../../rules/guard_untouched.ts";
import type { WorldCall } from "./tool_counts.ts";
import type { GuardFacts } from "./guard_facts.ts";
import { callsDigest } from "./calls_digest.ts";
import { brokenLines, type ChainReport, describeBreaks } from "./ledger_chain.ts";

/** One ledger file's parsed records: those its chain trusts (lib/results/ledger_chain.ts). */
export interface LedgerFile {
  path: string;
  records: LedgerRecord[];
  corrupt: number;
  /** What its chain says; absent where it was not checked. */
  chain?: ChainReport;
}

/** The hooks a trial's `agent/sessions/settings.json` registers. */
export interface SettingsHooks {
  path: string;
  handlers: number;
  matchers: string[];
}

/** What one trial dir holds, already read. Paths are where each fact came from (for messages). */
export interface TrialFacts {
  dir: string;
  /** The trial config: config.json, else result.json's `config`; null when neither has one. */
  config: Record<string, unknown> | null;
  /** result.json's `agent_info.name`. */
  agentName: string | null;
  /** result.json's `agent_info.version` (Claude Code's version for fiable-cc and claude-code trials). */
  agentVersion?: string | null;
  /** agent/fiable/harness.json, parsed; null when absent or unreadable. */
  harness: Record<string, unknown> | null;
  harnessPath: string;
  /** The hooks in agent/sessions/settings.json; null when the file is absent. */
  settings: SettingsHooks | null;
  ledgerDir: string;
  /** The ledger dir holds the trial's key (`guard.key`), which the chain is checked under. */
  keyFile?: boolean;
  /** Every `*.jsonl` in the ledger dir (records of every session). */
  ledgers: LedgerFile[];
  /** The trajectory path; null when the trial has none. */
  trajectory: string | null;
  /** The trajectory's χ-World calls; null when there is no trajectory or it could not be read. */
  calls: WorldCall[] | null;
  /**
   * The guard's facts in result.json (`agent_result.metadata.fiable_guard`, lib/results/guard_facts.ts): what
   * proves the guard in a packet, which keeps no ledger. Absent or null when result.json has none.
   */
  guardFacts?: GuardFacts | null;
  /** Why result.json's facts cannot be used (malformed, another version, or the harness's own reason). */
  guardFactsProblem?: string | null;
  /** Problems met while reading, each naming its path. */
  problems: string[];
}

/** guarded: a fiable-cc arm with hooks; stock: fiable-cc without; unguarded: another harness (a packet). */
export type TrialKind = "guarded" | "stock" | "unguarded";

/** Where a trial's guard evidence came from: its ledgers, or the facts in its result.json. */
export type EvidenceSource = "ledger" | "result.json";

/** How a run ended: the agent stopped, an API error ended it (StopFailure), or no ending was recorded. */
export type Ending = "stop" | "api_error" | "none";

/** The last recorded ending of the main agent in hook records (a subagent's stop is not one). */
export function endingOf(records: readonly LedgerRecord[]): Ending {
  const ends = records.filter((r) =>
    (r.event === "stop" && r.note !== "subagent stop") || r.event === "stop-fail"
  );
  const last = ends.sort((a, b) => a.t < b.t ? -1 : a.t > b.t ? 1 : 0).at(-1);
  return !last ? "none" : last.event === "stop-fail" ? "api_error" : "stop";
}

/** How calls were matched to records. */
export type Match = "tool_use_id" | "order" | "tool_use_id+order";

/** Guard coverage of a trajectory's χ-World calls by ledger records. */
export interface Coverage {
  calls: number;
  /** Calls with a `pre` record. */
  pre: number;
  /** Calls that went through (pre not a deny, a result recorded), so a `post`/`post-fail` is due. */
  post_due: number;
  post: number;
  /** Calls with every record due. */
  covered: number;
  /** covered / calls; 1 when there are no calls (nothing went unguarded). */
  coverage: number;
  match: Match | null;
  /** `pre` records whose tool_use_id the trajectory does not have. */
  orphans: number;
  /** Index of the first call missing a record, and of the last call that has all of them (-1: none). */
  first_uncovered: number;
  last_covered: number;
}

/**
 * Tampering with the guard in one trial (issue 40): what the agent tried that the guard refused or found, and
 * whether the ledgers can still be taken as the guard wrote them.
 */
export interface Tamper {
  /** GUARD-01's refusals of a tool call at the guard's state (or would-be refusals, in an arm that records). */
  refused: number;
  /** The guard's own `tamper` records: a ledger it found changed behind it, its evidence kept. */
  reported: number;
  /** Ledger lines the chain does not trust (forged, unlinked, repeated, junk): left out of every count. */
  untrusted: number;
  /** The ledgers are not as the guard wrote them: any of the above but a refusal, or a chain missing or unkeyed. */
  tampered: boolean;
}

/** The ledger format `guard up` of this version records in harness.json: its guard chains every record. */
export const CHAINED_FORMAT = 2;

/** One trial's integrity verdict. */
export interface TrialIntegrity {
  dir: string;
  kind: TrialKind;
  /** result.json's agent_info.name. */
  agent: string | null;
  /** result.json's agent_info.version, and the version the trial's config pins (agent kwarg `version`). */
  claude_version: string | null;
  pinned_version: string | null;
  arm: string | null;
  /** Where the arm came from (`config.json agent.kwargs.arm`, `harness.json`, `ledger`). */
  arm_source: string | null;
  /** harness.json `hooks` (`http`, `command`), `none` (stock, unguarded) or `missing`. */
  hooks: string;
  /** Any sign of hooks: harness.json, ledger records or hook handlers in settings.json. */
  hooked: boolean;
  ledger: boolean;
  sessions: number;
  records: number;
  corrupt_lines: number;
  tool_calls: number | null;
  coverage: number | null;
  match: Match | null;
  /** A prompt/session-start record with decision `context`; null when the arm injects no plan. */
  plan_injected: boolean | null;
  fail_open_errors: number;
  errors_per_100_calls: number | null;
  gaps: number;
  missed: number;
  restarts: number;
  /** The FIABLE_CC_ARM word (as JSON) its guard did not know and ran as shadow under; null when none. */
  unknown_arm: string | null;
  stop_blocks: number;
  /** Where the guard evidence came from; null when there was none (stock, unguarded, or nothing found). */
  source: EvidenceSource | null;
  /** How the run ended (guarded trials; null when the guard left no evidence). */
  ending: Ending | null;
  /** Tampering with the guard: attempts refused or reported, and whether the ledgers were changed. */
  tamper: Tamper;
  problems: string[];
  verdict: "pass" | "fail" | "n/a";
}

/** The per-arm roll-up, exactly contract 5's fields plus the mix of trial arms. */
export interface ArmIntegrity {
  trials: number;
  with_ledger: number;
  without_ledger: number;
  full_coverage: number;
  below_coverage: number;
  coverage_min: number | null;
  hook_modes: Record<string, number>;
  fail_open_errors: number;
  tool_calls: number;
  errors_per_100_calls: number | null;
  errors_flag: boolean;
  gaps: number;
  restarts: number;
  plan_injected: number;
  stop_blocks: number;
  /** Trials whose ledgers were tampered with, and tampering attempts the guard refused or reported. */
  tampered: number;
  tamper_attempts: number;
  marked: boolean;
  problems: string[];
  /** Trials of several unguarded harnesses in one group: worth saying, never a guard failure. */
  warnings: string[];
  /** How the arm's trials ran: `checklist`, `stock`, `unguarded claude-code`… → trials. */
  trial_arms: Record<string, number>;
  /** Guarded trials, and those that proved the guard, by where the evidence came from. */
  guarded: number;
  proven: Partial<Record<EvidenceSource, number>>;
  /** How the guarded trials' runs ended: `stop`, `api_error` (StopFailure), `none` recorded. */
  endings: Partial<Record<Ending, number>>;
}

/** The protocol's flag: fail-open errors on more than 1 in 100 tool calls (docs/EVALUATION_PROTOCOL.md). */
export const ERRORS_FLAG_PER_100 = 1;

const isGuardRecord = (r: LedgerRecord) => (r.event as string) === "guard";

function obj(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** Every place the trial names its arm, in precedence order: config.json, harness.json, the ledger. */
export function armSources(f: TrialFacts): [string, string][] {
  const out: [string, string][] = [];
  const agent = obj(f.config?.agent);
  const kwarg = obj(agent?.kwargs)?.arm;
  if (typeof kwarg === "string" && kwarg.trim()) out.push(["config.json agent.kwargs.arm", kwarg.trim()]);
  const env = obj(agent?.env)?.FIABLE_CC_ARM;
  // Harbor templates env values it forwards (`${KEY}`): only a literal names an arm.
  if (typeof env === "string" && env.trim() && !/^\$\{.*\}$/.test(env.trim())) {
    out.push(["config.json agent.env.FIABLE_CC_ARM", env.trim()]);
  }
  if (typeof f.harness?.arm === "string" && f.harness.arm) out.push(["harness.json", f.harness.arm]);
  if (f.guardFacts) out.push(["result.json fiable_guard", f.guardFacts.arm]);
  const ledgerArms = new Set(
    f.ledgers.flatMap((l) => l.records.filter((r) => !isGuardRecord(r)).map((r) => String(r.arm))),
  );
  for (const arm of [...ledgerArms].sort()) out.push(["ledger", arm]);
  return out;
}

function isFiable(f: TrialFacts, sources: [string, string][]): boolean {
  const agent = obj(f.config?.agent);
  const names = [agent?.name, agent?.import_path, f.agentName].map((v) => String(v ?? ""));
  return sources.length > 0 || names.some((n) => /fiable/i.test(n)) || f.harness !== null;
}

interface Pairing {
  matched: (LedgerRecord | null)[];
  byOrder: number;
  byId: number;
  orphans: number;
}

/**
 * Pairs calls with records: by tool_use_id when the trajectory has call ids, then, for records without an
 * id (a fail-open record written before the input parsed), in order among records of the same tool.
 */
function pair(
  calls: WorldCall[],
  records: LedgerRecord[],
  withIds: boolean,
  due: (i: number) => boolean,
): Pairing {
  const matched: (LedgerRecord | null)[] = calls.map(() => null);
  const used = new Set<LedgerRecord>();
  let byId = 0, byOrder = 0;
  if (withIds) {
    const index = new Map<string, LedgerRecord[]>();
    for (const r of records) {
      if (r.tool_use_id) index.set(r.tool_use_id, [...(index.get(r.tool_use_id) ?? []), r]);
    }
    calls.forEach((c, i) => {
      const r = due(i) && c.id ? index.get(c.id)?.find((x) => !used.has(x)) : undefined;
      if (!r) return;
      matched[i] = r;
      used.add(r);
      byId++;
    });
  }
  const pool = records.filter((r) => !used.has(r) && (!withIds || !r.tool_use_id));
  let at = 0;
  calls.forEach((c, i) => {
    if (!due(i) || matched[i]) return;
    for (let j = at; j < pool.length; j++) {
      if (pool[j].tool && pool[j].tool !== c.tool) continue;
      matched[i] = pool[j];
      used.add(pool[j]);
      at = j + 1;
      byOrder++;
      return;
    }
  });
  const orphans = withIds ? records.filter((r) => r.tool_use_id && !used.has(r)).length : 0;
  return { matched, byId, byOrder, orphans };
}

/**
 * Guard coverage of χ-World calls by ledger records (pre, then post/post-fail for calls that went through);
 * calls Claude Code refused before its hooks (InputValidationError) are left out.
 */
export function guardCoverage(all: WorldCall[], records: readonly LedgerRecord[]): Coverage {
  // A call Claude Code refused before any hook ran owes the guard nothing.
  const calls = all.filter((c) => !c.refused);
  const withIds = calls.some((c) => c.id);
  // A pre on Claude Code's own tools (GUARD-01's refusals) covers no χ-World call and is no orphan.
  const own = new Set<string>(WRITING_TOOLS);
  const worldPres = records.filter((r) => r.event === "pre" && !own.has(r.tool ?? ""));
  const pres = pair(calls, worldPres, withIds, () => true);
  const postDue = (i: number) =>
    pres.matched[i] !== null && pres.matched[i]!.decision !== "deny" && calls[i].answered;
  const posts = pair(
    calls,
    records.filter((r) => r.event === "post" || r.event === "post-fail"),
    withIds,
    postDue,
  );
  const ok = calls.map((_, i) => pres.matched[i] !== null && (!postDue(i) || posts.matched[i] !== null));
  const covered = ok.filter(Boolean).length;
  const match: Match | null = pres.byId && pres.byOrder
    ? "tool_use_id+order"
    : pres.byId
    ? "tool_use_id"
    : pres.byOrder
    ? "order"
    : null;
  return {
    calls: calls.length,
    pre: pres.byId + pres.byOrder,
    post_due: calls.filter((_, i) => postDue(i)).length,
    post: posts.byId + posts.byOrder,
    covered,
    coverage: calls.length ? covered / calls.length : 1,
    match,
    orphans: pres.orphans,
    first_uncovered: ok.indexOf(false),
    last_covered: ok.lastIndexOf(true),
  };
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

function coverageProblems(f: TrialFacts, c: Coverage, hookRecords: LedgerRecord[]): string[] {
  const calls = f.calls!.filter((x) => !x.refused);
  const out: string[] = [];
  if (c.calls && !hookRecords.some((r) => r.event === "pre")) {
    out.push(
      `Cannot trust ${f.dir} as guarded: none of its ${c.calls} χ-World tool calls (named like ` +
        `${calls[0].raw}) has a pre record in ${f.ledgerDir}: the hooks matched none of them, or the guard ` +
        `never answered. Check the hook matchers in ${f.settings?.path ?? "agent/sessions/settings.json"} ` +
        "against the MCP server name, and guard-serve.log.",
    );
  } else if (c.covered < c.calls) {
    const first = calls[c.first_uncovered];
    const missingPre = c.calls - c.pre, missingPost = c.post_due - c.post;
    const what = [
      missingPre ? `${missingPre} have no pre record` : "",
      missingPost ? `${missingPost} that went through have no post record` : "",
    ].filter(Boolean).join(" and ");
    const stopped = c.first_uncovered > c.last_covered
      ? `; the guard stopped answering after call ${c.last_covered + 1}`
      : "";
    out.push(
      `Cannot trust ${f.dir} as guarded: guard coverage is ${pct(c.coverage)} — of ${c.calls} χ-World tool ` +
        `calls, ${what} (first: ${first.tool}${first.id ? ` ${first.id}` : ""}, trajectory step ${
          first.step + 1
        })` +
        `${stopped}. Check guard-serve.log in ${f.ledgerDir}.`,
    );
  }
  if (c.orphans) {
    out.push(
      `Cannot match ${c.orphans} pre record${
        c.orphans > 1 ? "s" : ""
      } in ${f.ledgerDir} to ${f.trajectory}: ` +
        "their tool_use_ids are not in the trajectory. The ledger may belong to another run, or the " +
        "trajectory is incomplete.",
    );
  }
  return out;
}

/** One trial's integrity: its arm, hook mode, ledger, guard coverage, plan, fail-open errors and verdict. */
export function trialIntegrity(f: TrialFacts): TrialIntegrity {
  const problems = [...f.problems];
  const sources = armSources(f);
  const distinct = [...new Set(sources.map(([, arm]) => arm))];
  if (distinct.length > 1) {
    problems.push(
      `Cannot tell the arm of ${f.dir}: ${
        sources.map(([where, arm]) => `${where} says ${arm}`).join(", ")
      }. ` +
        "Re-run it with one arm (agent kwarg arm).",
    );
  }
  const [armSource, arm] = sources[0] ?? [null, null];
  const records = f.ledgers.flatMap((l) => l.records);
  const hookRecords = records.filter((r) => !isGuardRecord(r));
  const guardRecords = records.filter(isGuardRecord);
  const fiable = isFiable(f, sources);
  const unknownArm = records.map((r) => UNKNOWN_ARM.exec(String(r.note ?? ""))?.[1]).find(Boolean);
  if (unknownArm) {
    problems.push(
      `Cannot trust ${f.dir} as arm ${arm ?? "unknown"}: its guard ran with FIABLE_CC_ARM ${unknownArm}, ` +
        `no arm, so it ran as shadow and blocked nothing (ledger notes in ${f.ledgerDir}). Re-run it with ` +
        `FIABLE_CC_ARM one of ${ARMS.join(", ")}.`,
    );
  }
  if (arm !== null && !(ARMS as readonly string[]).includes(arm)) {
    problems.push(
      `Cannot tell the arm of ${f.dir}: "${arm}" (${armSource}) is unknown. Use one of ${ARMS.join(", ")}.`,
    );
  } else if (fiable && arm === null) {
    problems.push(
      `Cannot tell the arm of ${f.dir}: config.json has no agent.kwargs.arm, and there is no harness.json ` +
        "or ledger. Pass the arm as the agent kwarg arm (install.ts experiments does).",
    );
  }
  const kind: TrialKind = !fiable ? "unguarded" : arm === "stock" ? "stock" : "guarded";
  const kwargVersion = obj(obj(f.config?.agent)?.kwargs)?.version;
  const pinned = typeof kwargVersion === "string" && kwargVersion.trim() ? kwargVersion.trim() : null;
  if (pinned && f.agentVersion && f.agentVersion !== pinned) {
    problems.push(
      `Cannot trust ${f.dir} as arm ${arm ?? "unknown"}: it ran Claude Code ${f.agentVersion} ` +
        `(result.json agent_info.version), and its arm pins ${pinned} (config.json agent.kwargs.version). ` +
        "Arms compare only on one CLI: re-run it with the pinned version (install experiments writes it).",
    );
  }
  // A packet keeps result.json and drops the ledgers: the guard's facts there are the evidence then.
  if (!hookRecords.length && !guardRecords.length && f.guardFacts) {
    return factsIntegrity(f, f.guardFacts, { kind, arm, armSource, pinned, problems });
  }
  if (!hookRecords.length && kind === "guarded" && f.guardFactsProblem) problems.push(f.guardFactsProblem);
  const handlers = f.settings?.handlers ?? 0;
  const hooked = f.harness !== null || hookRecords.length > 0 || handlers > 0;
  const hooks = typeof f.harness?.hooks === "string"
    ? f.harness.hooks
    : kind === "guarded" && f.harness === null
    ? "missing"
    : f.harness
    ? "unknown"
    : "none";
  const errors = hookRecords.filter((r) => r.decision === "error").length;
  const calls = f.calls?.length ?? null;
  let coverage: Coverage | null = null;
  let planInjected: boolean | null = null;
  if (kind === "guarded") {
    if (!hookRecords.length && !f.guardFactsProblem) {
      problems.push(
        `Cannot trust ${f.dir} as guarded (arm ${arm ?? "unknown"}): it has no guard ledger (no records in ` +
          `*.jsonl under ${f.ledgerDir}) and its result.json has no guard facts ` +
          "(agent_result.metadata.fiable_guard). The guard never ran or its logs were lost; check that the " +
          "harness uploaded and started it.",
      );
    }
    if (f.settings && !f.settings.handlers) {
      problems.push(
        `Cannot trust ${f.dir} as guarded: ${f.settings.path} registers no hook handlers, so Claude Code never ` +
          "called the guard. fiable-cc writes the hooks there before Claude Code starts.",
      );
    }
    if (f.harness === null && !f.guardFactsProblem && !f.problems.some((p) => p.includes(f.harnessPath))) {
      problems.push(
        `Cannot read ${f.harnessPath}: it is missing, so the hook mode is unknown. fiable-cc writes it ` +
          "before Claude Code starts; without it the harness setup did not finish.",
      );
    }
    if (f.calls) {
      coverage = guardCoverage(f.calls, hookRecords);
      if (hookRecords.length) problems.push(...coverageProblems(f, coverage, hookRecords));
    } else if (!f.trajectory) {
      problems.push(
        `Cannot check guard coverage of ${f.dir}: it has no agent/trajectory.json, so its χ-World tool calls ` +
          "are unknown.",
      );
    }
    if (arm && ENFORCES[arm as keyof typeof ENFORCES]?.plan) {
      planInjected = hookRecords.some((r) =>
        (r.event === "prompt" || r.event === "session-start") && r.decision === "context"
      );
      if (!planInjected && hookRecords.length) {
        problems.push(
          `Cannot trust ${f.dir} as arm ${arm}: the role plan never reached the model (no prompt or ` +
            `session-start record with decision context in ${f.ledgerDir}).`,
        );
      }
    }
  } else if (kind === "stock" && hooked) {
    const what = [
      f.harness ? `${f.harnessPath} says hooks=${String(f.harness.hooks)}` : "",
      hookRecords.length ? `${hookRecords.length} ledger records in ${f.ledgerDir}` : "",
      handlers ? `${f.settings!.path} registers ${handlers} hook handler${handlers > 1 ? "s" : ""}` : "",
    ].filter(Boolean).join("; ");
    problems.push(stockHooked(f, what));
  }
  const { tamper, problem: tampered } = tamperOf(f, hookRecords, guardRecords);
  if (tampered) problems.push(tampered);
  const corrupt = f.ledgers.reduce((n, l) => n + l.corrupt, 0);
  const gaps = guardRecords.filter((r) => (r.decision as string) === "gap");
  const missed = gaps.reduce((n, r) => {
    const m = obj((r as unknown as Record<string, unknown>).gap)?.missed;
    return n + (typeof m === "number" && m > 0 ? m : 0);
  }, 0);
  return {
    dir: f.dir,
    kind,
    agent: f.agentName,
    claude_version: f.agentVersion ?? null,
    pinned_version: pinned,
    arm,
    arm_source: armSource,
    hooks,
    hooked,
    ledger: hookRecords.length > 0,
    sessions: new Set(hookRecords.map((r) => String(r.session))).size,
    records: records.length,
    corrupt_lines: corrupt,
    tool_calls: calls,
    coverage: coverage?.coverage ?? null,
    match: coverage?.match ?? null,
    plan_injected: planInjected,
    fail_open_errors: errors,
    errors_per_100_calls: calls ? 100 * errors / calls : null,
    gaps: gaps.length,
    missed,
    restarts: guardRecords.filter((r) => (r.decision as string) === "restart").length,
    stop_blocks: hookRecords.filter((r) => r.event === "stop" && r.decision === "block").length,
    unknown_arm: unknownArm ?? null,
    source: hookRecords.length ? "ledger" : null,
    ending: kind === "guarded" && hookRecords.length ? endingOf(hookRecords) : null,
    tamper,
    problems,
    verdict: problems.length ? "fail" : kind === "unguarded" ? "n/a" : "pass",
  };
}

/** A record of GUARD-01 refusing (or, in an arm that records, would refuse) a tool call. */
function refusedByGuard01(r: LedgerRecord): boolean {
  return r.event === "pre" && (r.decision === "deny" || r.decision === "shadow") &&
    (r.rules ?? []).some((h) => h.id === "GUARD-01");
}

/**
 * Tampering the trial's ledgers show, and the problem that names it (null when they are as the guard wrote
 * them): lines the chain does not trust, the guard's own tamper reports, and — where harness.json says the guard
 * chains — a ledger with no chain, or a trial key that is gone.
 */
function tamperOf(f: TrialFacts, hookRecords: LedgerRecord[], guardRecords: LedgerRecord[]) {
  const refused = hookRecords.filter(refusedByGuard01).length;
  const reports = guardRecords.filter((r) => (r.decision as string) === "tamper");
  const parts: string[] = [];
  let untrusted = 0;
  for (const l of f.ledgers) {
    if (!l.chain) continue;
    const broken = brokenLines(l.chain);
    untrusted += broken;
    if (broken) parts.push(`${l.path}: ${describeBreaks(l.chain.breaks)}`);
  }
  if (reports.length) {
    parts.push(
      `the guard found ${reports.length} change${reports.length > 1 ? "s" : ""} behind it and kept its own ` +
        `evidence (${String(reports[0].note ?? "").replace(/^tampering: /, "").slice(0, 200)})`,
    );
  }
  if (Number(f.harness?.ledger_format) >= CHAINED_FORMAT) {
    for (const l of f.ledgers) {
      if (l.chain && !l.chain.chained && l.records.length) {
        parts.push(
          `${l.path} has no chained line, though this trial's guard chains every record (rewritten whole)`,
        );
      }
    }
    if (f.ledgers.length && f.keyFile === false) {
      parts.push(`${f.ledgerDir}/guard.key is gone, so the chain shows order, not who wrote it`);
    }
  }
  const tamper: Tamper = { refused, reported: reports.length, untrusted, tampered: parts.length > 0 };
  const problem = parts.length
    ? `Cannot trust ${f.dir} as guarded: its ledger was tampered with — ${parts.join("; ")}. The lines the ` +
      "chain does not trust are left out of every count here (docs/internals.md, threat model)."
    : null;
  return { tamper, problem };
}

/** `tampering attempted: 3 (GUARD-01 refused 2; the guard reported 1)`, or null when there was none. */
export function tamperLine(t: Tamper): string | null {
  const n = t.refused + t.reported;
  if (!n && !t.untrusted) return null;
  const parts = [
    t.refused ? `GUARD-01 refused ${t.refused}` : "",
    t.reported ? `the guard reported ${t.reported}` : "",
    t.untrusted ? `${t.untrusted} ledger line${t.untrusted > 1 ? "s" : ""} not trusted` : "",
  ].filter(Boolean);
  return `tampering attempted: ${n}${parts.length ? ` (${parts.join("; ")})` : ""}`;
}

function stockHooked(f: TrialFacts, what: string): string {
  return `Cannot trust ${f.dir} as stock: it has hooks (${what}). The stock arm runs plain Claude Code; check ` +
    "agent_kwargs.arm and FIABLE_CC_ARM.";
}

/**
 * One trial's integrity from the guard's facts in its result.json (a packet's trial, whose ledgers stayed
 * behind): the same judgements as from a ledger — ledger records, coverage, plan, arm, hooks in a stock trial
 * — on the counts the harness wrote, and the facts tied to the trajectory beside them by its calls' digest.
 */
function factsIntegrity(
  f: TrialFacts,
  facts: GuardFacts,
  at: {
    kind: TrialKind;
    arm: string | null;
    armSource: string | null;
    pinned: string | null;
    problems: string[];
  },
): TrialIntegrity {
  const { kind, arm, problems } = at;
  const where = `${f.dir}/result.json's guard facts`;
  const c = facts.coverage;
  const coverage = c ? (c.calls ? c.covered / c.calls : 1) : null;
  if (kind === "guarded") {
    if (!facts.ledger.records) {
      problems.push(
        `Cannot trust ${f.dir} as guarded (arm ${arm ?? "unknown"}): ${where} count no ledger record. ` +
          "The guard never ran; check that the harness uploaded and started it.",
      );
    }
    if (!c) {
      problems.push(
        `Cannot check guard coverage of ${f.dir}: ${where} have none (the trial had no trajectory when they ` +
          "were written).",
      );
    } else if (c.covered < c.calls && facts.ledger.records) {
      const what = [
        c.calls - c.pre ? `${c.calls - c.pre} have no pre record` : "",
        c.post_due - c.post ? `${c.post_due - c.post} that went through have no post record` : "",
      ].filter(Boolean).join(" and ");
      problems.push(
        `Cannot trust ${f.dir} as guarded: guard coverage is ${
          pct(coverage!)
        } per ${where} — of ${c.calls} ` +
          `χ-World tool calls, ${what}.`,
      );
    }
    if (facts.plan_injected === false) {
      problems.push(`Cannot trust ${f.dir} as arm ${arm}: the role plan never reached the model (${where}).`);
    }
    if (facts.unknown_arm) {
      problems.push(
        `Cannot trust ${f.dir} as arm ${
          arm ?? "unknown"
        }: its guard ran with a FIABLE_CC_ARM it did not know, ` +
          `as shadow, blocking nothing (${where}). Re-run it with FIABLE_CC_ARM one of ${ARMS.join(", ")}.`,
      );
    }
  } else if (kind === "stock" && (facts.hooks !== "none" || facts.ledger.records)) {
    problems.push(
      stockHooked(f, `${where} say hooks=${facts.hooks}, ${facts.ledger.records} ledger records`),
    );
  }
  if (c && f.calls) {
    // The facts must be about the trajectory beside them: same χ-World calls, same tool_use_ids.
    const here = f.calls.filter((x) => !x.refused);
    const digest = callsDigest(here);
    if (here.length !== c.calls || (c.calls_digest && digest && c.calls_digest !== digest)) {
      problems.push(
        `Cannot trust ${where}: they count ${c.calls} χ-World tool calls, and ${f.trajectory} beside them ` +
          `has ${here.length}${
            here.length === c.calls ? " with other tool_use_ids" : ""
          }. They were written for another run; re-run the trial.`,
      );
    }
  }
  const calls = c?.calls ?? f.calls?.length ?? null;
  // Facts of format 1 predate the chain: no tampering known.
  const tamper: Tamper = facts.tamper ?? { refused: 0, reported: 0, untrusted: 0, tampered: false };
  if (tamper.tampered) {
    problems.push(
      `Cannot trust ${f.dir} as guarded: ${where} say its ledger was tampered with (${tamper.untrusted} line${
        tamper.untrusted === 1 ? "" : "s"
      } the chain does not trust, ${tamper.reported} change${
        tamper.reported === 1 ? "" : "s"
      } the guard reported).`,
    );
  }
  return {
    dir: f.dir,
    kind,
    agent: f.agentName,
    claude_version: f.agentVersion ?? null,
    pinned_version: at.pinned,
    arm,
    arm_source: at.armSource,
    hooks: facts.hooks,
    hooked: facts.hooks !== "none" || facts.ledger.records > 0,
    ledger: facts.ledger.records > 0,
    sessions: facts.ledger.sessions,
    records: facts.ledger.records,
    corrupt_lines: facts.ledger.corrupt_lines,
    tool_calls: calls,
    coverage: kind === "guarded" ? coverage : null,
    match: c && kind === "guarded" ? (c.calls_digest ? "tool_use_id" : "order") : null,
    plan_injected: facts.plan_injected,
    fail_open_errors: facts.fail_open,
    errors_per_100_calls: calls ? 100 * facts.fail_open / calls : null,
    gaps: facts.gaps,
    missed: facts.missed,
    restarts: facts.restarts,
    stop_blocks: facts.stop_gate.holds,
    unknown_arm: facts.unknown_arm ? JSON.stringify("(named in result.json's facts)") : null,
    source: kind === "unguarded" ? null : "result.json",
    ending: kind === "guarded" && facts.ledger.records ? facts.ending : null,
    tamper,
    problems,
    verdict: problems.length ? "fail" : kind === "unguarded" ? "n/a" : "pass",
  };
}

/** The agent of a trial whose result.json names none (unreadable): it makes no arm mixed. */
const UNKNOWN_AGENT = "(agent unknown)";

/** How a trial ran: its arm, or `unguarded <agent>` for another harness. */
export function trialArmLabel(t: TrialIntegrity): string {
  return t.kind === "unguarded" ? `unguarded ${t.agent ?? UNKNOWN_AGENT}` : t.arm ?? "unknown";
}

/** Rolls trials up into one arm's integrity (contract 5). */
export function armIntegrity(trials: readonly TrialIntegrity[]): ArmIntegrity {
  const guarded = trials.filter((t) => t.kind === "guarded");
  const full = guarded.filter((t) => t.coverage === 1).length;
  const coverages = guarded.map((t) => t.coverage).filter((c): c is number => c !== null);
  const count = (keys: string[]) => {
    const out: Record<string, number> = {};
    for (const k of keys) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  const sum = (f: (t: TrialIntegrity) => number) => trials.reduce((n, t) => n + f(t), 0);
  const errors = sum((t) => t.fail_open_errors);
  const calls = guarded.reduce((n, t) => n + (t.tool_calls ?? 0), 0);
  const per100 = calls ? 100 * errors / calls : null;
  const trialArms = count(trials.map(trialArmLabel));
  const problems = trials.flatMap((t) => t.problems);
  const warnings: string[] = [];
  const known = Object.entries(trialArms).filter(([a]) => !a.endsWith(UNKNOWN_AGENT));
  if (known.length > 1) {
    const mix = known.map(([a, n]) => `${a} (${n})`).join(", ");
    // Other harnesses only (a packet of two agents, or packets read as one arm): no guard ran to fail.
    const unguarded = known.every(([a]) => a.startsWith("unguarded "));
    (unguarded ? warnings : problems).push(
      `Cannot treat these trials as one arm: they ran as ${mix}. Give each arm its own trials dir.`,
    );
  }
  const flag = per100 !== null && per100 > ERRORS_FLAG_PER_100;
  if (flag) {
    problems.push(
      `Cannot trust the guard's decisions: fail-open errors are ${per100!.toFixed(2)} per 100 χ-World tool ` +
        `calls (${errors} in ${calls}), above the protocol's flag of ${ERRORS_FLAG_PER_100}. Read the error ` +
        "notes in the ledgers.",
    );
  }
  const withLedger = trials.filter((t) => t.ledger).length;
  const proven: ArmIntegrity["proven"] = {};
  for (const t of guarded) {
    if (t.verdict === "pass" && t.source) proven[t.source] = (proven[t.source] ?? 0) + 1;
  }
  return {
    trials: trials.length,
    with_ledger: withLedger,
    without_ledger: trials.length - withLedger,
    full_coverage: full,
    below_coverage: guarded.length - full,
    coverage_min: coverages.length ? Math.min(...coverages) : null,
    hook_modes: count(trials.map((t) => t.hooks)),
    fail_open_errors: errors,
    tool_calls: calls,
    errors_per_100_calls: per100,
    errors_flag: flag,
    gaps: sum((t) => t.gaps),
    restarts: sum((t) => t.restarts),
    plan_injected: trials.filter((t) => t.plan_injected).length,
    stop_blocks: sum((t) => t.stop_blocks),
    tampered: trials.filter((t) => t.tamper.tampered).length,
    tamper_attempts: sum((t) => t.tamper.refused + t.tamper.reported),
    marked: (guarded.length > 0 && (full < guarded.length || guarded.some((t) => !t.ledger))) ||
      trials.some((t) => t.kind === "stock" && t.hooked) || trials.some((t) => t.unknown_arm) ||
      trials.some((t) => t.tamper.tampered),
    problems,
    warnings,
    trial_arms: trialArms,
    guarded: guarded.length,
    proven,
    endings: count(guarded.map((t) => t.ending).filter((e): e is Ending => e !== null)),
  };
}
