/**
 * The guard's facts about one trial, as fiable-cc stores them in Harbor's `result.json`
 * (`agent_result.metadata.fiable_guard`, written by the harness's `populate_context_post_run` from
 * `guard.ts facts`): one zod schema that the writer (lib/results/guard_summary.ts) and every reader
 * (verify, aggregate, the dashboard, `deno task packet`) share, versioned by `v`. A leaderboard packet keeps
 * result.json and drops the ledgers, so these facts are what proves the guard ran there.
 *
 * Bounded and safe to publish: counts, digests, rule ids, versions and enum words only; no secret, no
 * session or case id, no tool argument, no free text from the run (`FACTS_MAX_BYTES`).
 */
import * as z from "zod/mini";
import en from "zod/locales/en";
import { ARMS } from "../guard/engine/record.ts";
import { FACTS_KEY } from "./guard_facts_key.ts";

z.config(en());

export { FACTS_KEY };
/**
 * The facts' format version. 2 adds `tamper` (issue 40); a reader reads 1 as well (no tampering known then)
 * and refuses any other.
 */
export const FACTS_VERSION = 2;
/** The versions a reader reads. */
export const FACTS_READ = [1, 2] as const;
/** The facts' size cap as JSON: a few KB, whatever the run. */
export const FACTS_MAX_BYTES = 8192;

const count = z.int().check(z.minimum(0));
const hex64 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** A rule, judge or panel id as the ledger quotes it (`GLOBAL-01`, `CRITIC-02`, `CHECKPOINT-01`, `CRITIC`). */
const ruleId = z.string().check(z.regex(/^[A-Z][A-Z0-9]*(?:-[0-9]{2})?$/), z.maxLength(24));
/** An API error's kind as Claude Code names it (`rate_limit`, `server_error`, …). */
const errorKind = z.string().check(z.regex(/^[a-z_]{1,40}$/));

/** How the hooks reached the guard, and why: the resident guard answered, was reused, or command hooks. */
export const HOOK_REASONS = ["answered", "reused", "foreign", "no_answer", "stock", "unknown"] as const;

/** The guard's facts about one trial (format v2; v1 has no `tamper`). */
export const GuardFacts = z.object({
  v: z.union([z.literal(1), z.literal(FACTS_VERSION)]),
  /** The arm the guard ran (harness.json, else the ledger). */
  arm: z.enum(ARMS),
  /** harness.json's hook mode: `http`, `command`, `none` (stock) or `missing`. */
  hooks: z.enum(["http", "command", "none", "missing", "unknown"]),
  hooks_reason: z.enum(HOOK_REASONS),
  /** The guard's version: the commit the bundle was built from (`-dirty` when uncommitted) and its digest. */
  guard: z.object({
    commit: z.nullable(z.string().check(z.regex(/^[0-9a-f]{7,40}(?:-dirty)?$/))),
    bundle_sha256: z.nullable(hex64),
  }),
  /** The rule set: every rule and judge id the guard carried, and a digest of their metadata. */
  rules: z.object({ ids: z.array(ruleId).check(z.maxLength(80)), digest: hex64 }),
  /** The Claude Code version harness.json names. */
  claude_code: z.nullable(z.string().check(z.regex(/^\d+\.\d+\.\d+[\w.+-]{0,20}$/))),
  /** The ledgers: files, records, sessions, lines that were not records, and a digest of their bytes. */
  ledger: z.object({
    files: count,
    records: count,
    sessions: count,
    corrupt_lines: count,
    digest: z.nullable(hex64),
  }),
  /**
   * Guard coverage of the trajectory's χ-World calls (pre records, post records for calls that went through)
   * and a digest of the calls' tool_use_ids, so a reader can tell the facts belong to the trajectory beside
   * them; null when the trial had no trajectory.
   */
  coverage: z.nullable(z.object({
    calls: count,
    pre: count,
    post_due: count,
    post: count,
    covered: count,
    calls_digest: z.nullable(hex64),
  })),
  /** A role plan reached the model; null when the arm injects none. */
  plan_injected: z.nullable(z.boolean()),
  /** Enforced denies per rule, judge or panel id. */
  blocks_by_rule: z.record(ruleId, count),
  /** Calls released after the block budget was spent. */
  releases: count,
  /** Stop-gate holds (blocked stops) and stops released with obligations open. */
  stop_gate: z.object({ holds: count, released: count }),
  /** Hook events the guard failed open on, and records it could not keep whole. */
  fail_open: count,
  degraded: count,
  /** Intervals no guard answered, hook events missed in them, and resident-guard restarts. */
  gaps: count,
  missed: count,
  restarts: count,
  /** The guard ran with a FIABLE_CC_ARM it did not know, as shadow (blocking nothing). */
  unknown_arm: z.boolean(),
  /** How the run ended: the agent stopped, an API error ended it (StopFailure), or no ending was recorded. */
  ending: z.enum(["stop", "api_error", "none"]),
  /** StopFailure endings by error kind. */
  api_errors: z.record(errorKind, count),
  /** Claude Code's duration_ms of the χ-World calls that went through (post records); null when none. */
  tool_ms: z.nullable(z.object({
    calls: count,
    median: z.number().check(z.minimum(0)),
    p95: z.number().check(z.minimum(0)),
    max: z.number().check(z.minimum(0)),
    total: z.number().check(z.minimum(0)),
  })),
  /**
   * Tampering with the guard (v2): GUARD-01's refusals, the guard's own tamper reports, ledger lines the chain
   * does not trust, and whether the ledgers are not as the guard wrote them.
   */
  tamper: z.optional(z.object({ refused: count, reported: count, untrusted: count, tampered: z.boolean() })),
});
/** The guard's facts about one trial (format v2; v1 has no `tamper`). */
export type GuardFacts = z.infer<typeof GuardFacts>;

/** What a result.json says of the guard: its facts, a problem with them, or nothing (no facts there). */
export type FactsRead = { facts: GuardFacts } | { problem: string } | null;

/**
 * The guard's facts in a parsed result.json (`agent_result.metadata.fiable_guard`), checked against the
 * schema; `path` names the file in the problem.
 */
export function factsIn(result: unknown, path: string): FactsRead {
  const agent = (result as { agent_result?: { metadata?: Record<string, unknown> | null } } | null)
    ?.agent_result;
  const raw = agent?.metadata && typeof agent.metadata === "object" ? agent.metadata[FACTS_KEY] : undefined;
  if (raw === undefined || raw === null) return null;
  const version = (raw as { v?: unknown }).v;
  if (!(FACTS_READ as readonly unknown[]).includes(version)) {
    return {
      problem:
        `Cannot read the guard's facts in ${path}: agent_result.metadata.${FACTS_KEY} has format v${
          String(version)
        }, and this fiable-agent reads v${
          FACTS_READ.join(" and v")
        }. Read the packet with the fiable-agent ` +
        "that wrote it.",
    };
  }
  const parsed = GuardFacts.safeParse(raw);
  if (!parsed.success) {
    return {
      problem: `Cannot trust the guard's facts in ${path}: agent_result.metadata.${FACTS_KEY} is not what ` +
        `fiable-cc writes (${
          z.prettifyError(parsed.error).replace(/\n\s*/g, " ")
        }). Re-run the trial with the installed harness.`,
    };
  }
  return { facts: parsed.data };
}
