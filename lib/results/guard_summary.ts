/**
 * The guard's summary of itself for one trial (lib/results/guard_facts.ts): what run integrity reads from a
 * trial dir (lib/results/trial_facts.ts, lib/results/integrity.ts), reduced to counts, digests, rule ids
 * and versions. Pure apart from hashing; `guard.ts facts` does the reading and prints it for the harness.
 */
import { createHash } from "node:crypto";
import { callsDigest, sha256 } from "./calls_digest.ts";
import { RULES } from "../../rules/mod.ts";
import { JUDGES } from "../guard/engine/judges/mod.ts";
import { type Arm, ARMS } from "../guard/engine/record.ts";
import { FACTS_MAX_BYTES, FACTS_VERSION, GuardFacts, HOOK_REASONS } from "./guard_facts.ts";
import { endingOf, guardCoverage, type TrialFacts, trialIntegrity } from "./integrity.ts";

/** The guard's build: the commit its bundle was made from and the bundle's SHA-256 (null when unknown). */
export interface GuardBuild {
  commit: string | null;
  bundle_sha256: string | null;
}

/** The panel's id (two objecting judges block as one) beside the rules' and the judges'. */
const PANEL = "CRITIC";

/** Every rule and judge id the guard carries, in the order the engine runs them, and the panel's. */
export function ruleSetIds(): string[] {
  return [...RULES.map((r) => r.meta.id), ...JUDGES.map((j) => j.meta.id), PANEL];
}

/** The rule set's version: a digest of every rule's and judge's metadata (ids, triggers, checks, messages). */
export function ruleSetDigest(): string {
  const meta = [...RULES.map((r) => r.meta), ...JUDGES.map((j) => j.meta)];
  return sha256(JSON.stringify(meta));
}

/** The ledger files' digest: each file's name and bytes, in name order. */
export function ledgerDigest(files: { name: string; bytes: Uint8Array }[]): string | null {
  if (!files.length) return null;
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => a.name < b.name ? -1 : 1)) {
    hash.update(`${f.name}\n${f.bytes.length}\n`).update(f.bytes);
  }
  return hash.digest("hex");
}

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

/** The `max - 1` largest counts and the rest summed as `other`, so a record's size stays bounded. */
function boundedCounts(counts: Record<string, number>, max: number): Record<string, number> {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (entries.length <= max) return counts;
  const kept = Object.fromEntries(entries.slice(0, max - 1));
  kept.other = (kept.other ?? 0) + entries.slice(max - 1).reduce((n, [, c]) => n + c, 0);
  return kept;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** harness.json's reason word for the hook mode; older harness.json files have none. */
function hooksReason(harness: Record<string, unknown> | null, arm: Arm): GuardFacts["hooks_reason"] {
  if (arm === "stock") return "stock";
  const word = harness?.hooks_reason;
  return typeof word === "string" && (HOOK_REASONS as readonly string[]).includes(word)
    ? word as GuardFacts["hooks_reason"]
    : harness?.reused === true
    ? "reused"
    : "unknown";
}

/** What the summary needs beside the trial dir's facts. */
export interface SummaryInputs {
  build: GuardBuild;
  /** The ledgers' digest (`ledgerDigest`). */
  ledgerDigest: string | null;
  /** The arm the harness ran, for a trial that names none itself (a stock trial of a submission run). */
  arm?: Arm;
}

/**
 * The facts for one trial: `f` as lib/results/trial_facts.ts reads the trial dir, and what it cannot read
 * there. Throws when the trial names no arm the guard knows (there is nothing to summarise).
 */
export function summariseGuard(f: TrialFacts, inputs: SummaryInputs): GuardFacts {
  const t = trialIntegrity(f);
  const arm = t.arm ?? inputs.arm ?? null;
  if (!arm || !(ARMS as readonly string[]).includes(arm)) {
    throw new Error(
      `Cannot summarise the guard of ${f.dir}: it names no arm (config.json, harness.json or a ledger). ` +
        "Run it through the fiable-cc harness.",
    );
  }
  const records = f.ledgers.flatMap((l) => l.records);
  const hookRecords = records.filter((r) => (r.event as string) !== "guard");
  const known = new Set(ruleSetIds());
  const denied = hookRecords.filter((r) => r.event === "pre" && r.decision === "deny")
    .flatMap((r) => (r.rules ?? []).map((h) => h.id)).filter((id) => known.has(id));
  const coverage = f.calls ? guardCoverage(f.calls, hookRecords) : null;
  const durations = hookRecords.filter((r) => (r.event === "post" || r.event === "post-fail"))
    .map((r) => r.duration_ms).filter((ms): ms is number => typeof ms === "number" && ms >= 0)
    .sort((a, b) => a - b);
  const kinds = hookRecords.filter((r) => r.event === "stop-fail")
    .map((r) => /^[a-z_]{1,40}$/.test(r.error ?? "") ? r.error! : "unknown");
  const version = typeof f.harness?.claude_version === "string" ? f.harness.claude_version : null;
  const hooks = ["http", "command", "none", "missing"].includes(t.hooks)
    ? t.hooks as GuardFacts["hooks"]
    : "unknown";
  const facts: GuardFacts = {
    v: FACTS_VERSION,
    arm: arm as Arm,
    hooks,
    hooks_reason: hooksReason(f.harness, arm as Arm),
    guard: inputs.build,
    rules: { ids: ruleSetIds(), digest: ruleSetDigest() },
    claude_code: version && /^\d+\.\d+\.\d+[\w.+-]{0,20}$/.test(version) ? version : null,
    ledger: {
      files: f.ledgers.length,
      records: records.length,
      sessions: t.sessions,
      corrupt_lines: t.corrupt_lines,
      digest: inputs.ledgerDigest,
    },
    coverage: coverage
      ? {
        calls: coverage.calls,
        pre: coverage.pre,
        post_due: coverage.post_due,
        post: coverage.post,
        covered: coverage.covered,
        calls_digest: callsDigest(f.calls!),
      }
      : null,
    plan_injected: t.plan_injected,
    blocks_by_rule: countBy(denied),
    releases: hookRecords.filter((r) => r.event === "pre" && r.decision === "release").length,
    stop_gate: {
      holds: t.stop_blocks,
      released: hookRecords.filter((r) => r.event === "stop" && r.decision === "release").length,
    },
    fail_open: t.fail_open_errors,
    degraded: hookRecords.filter((r) => r.degraded).length,
    gaps: t.gaps,
    missed: t.missed,
    restarts: t.restarts,
    unknown_arm: t.unknown_arm !== null,
    ending: endingOf(hookRecords),
    api_errors: boundedCounts(countBy(kinds), 16),
    tamper: t.tamper,
    tool_ms: durations.length
      ? {
        calls: durations.length,
        median: quantile(durations, 0.5),
        p95: quantile(durations, 0.95),
        max: durations.at(-1)!,
        total: durations.reduce((a, b) => a + b, 0),
      }
      : null,
  };
  const checked = GuardFacts.parse(facts);
  const size = JSON.stringify(checked).length;
  if (size > FACTS_MAX_BYTES) {
    throw new Error(
      `Cannot summarise the guard of ${f.dir}: the facts are ${size} bytes, over ${FACTS_MAX_BYTES}.`,
    );
  }
  return checked;
}
