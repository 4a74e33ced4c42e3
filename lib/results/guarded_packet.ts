/**
 * A prepared leaderboard packet (`cb submission prepare`) of a guarded arm, checked from what the packet keeps
 * (each trial's result.json with the guard's facts, and its trajectory): every trial proves the guard in the
 * declared arm, at full coverage, under one guard, one rule set and one Claude Code version. Then the scaffold
 * disclosure the community asks of custom scaffolds, written beside chi-bench's README: what the guard adds
 * to the model, that it makes no model calls, its versions, the integrity figures and how to reproduce it.
 */
import { relative } from "node:path";
import { ENFORCES } from "../guard/engine/decide.ts";
import type { Arm } from "../guard/engine/record.ts";
import { RULES } from "../../rules/mod.ts";
import { JUDGES } from "../guard/engine/judges/mod.ts";
import type { GuardFacts } from "./guard_facts.ts";
import type { TrialIntegrity } from "./integrity.ts";
import { readFacts } from "./trial_facts.ts";
import { trialRef } from "./trials.ts";
import { isWarning } from "./severity.ts";
import { verifyTrees } from "./verify.ts";

/** One trial of the packet: where it is (relative to the packet), its integrity and its facts. */
export interface PacketTrial {
  path: string;
  integrity: TrialIntegrity;
  facts: GuardFacts | null;
}

/** The packet as checked: its trials, the declared arm, and each reason a trial does not prove the guard. */
export interface GuardedPacket {
  dir: string;
  arm: string;
  trials: PacketTrial[];
  /** Trials that do not prove the guard in the declared arm, each with why. */
  refused: { path: string; why: string }[];
  /** What must be one value across the packet, when it is not: guard, rule set, Claude Code version. */
  mixed: string[];
  /** The packet's own bookkeeping that contradicts its trial folders (verify's warnings): said, not refused. */
  warnings: string[];
}

/** Reads and checks every trial of a packet against the declared arm, with verify's verdicts. */
export function checkPacket(dir: string, arm: string): GuardedPacket {
  const report = verifyTrees([dir]);
  const trials: PacketTrial[] = report.arms.flatMap((a) => a.trials).map((integrity) => ({
    path: relative(dir, integrity.dir) || ".",
    integrity,
    facts: readFacts(trialRef(integrity.dir), null).guardFacts ?? null,
  })).sort((a, b) => a.path < b.path ? -1 : 1);
  const refused: GuardedPacket["refused"] = [];
  for (const t of trials) {
    const i = t.integrity;
    const why = i.kind !== "guarded" && !(arm === "stock" && i.kind === "stock")
      ? `it ran ${i.kind === "unguarded" ? `unguarded (${i.agent ?? "agent unknown"})` : `as ${i.kind}`}` +
        (t.facts ? "" : ", and its result.json carries no guard facts")
      : i.arm !== arm
      ? `it ran arm ${i.arm ?? "unknown"}, and the packet declares ${arm}`
      : i.verdict !== "pass"
      ? i.problems[0] ?? "its integrity failed"
      : !t.facts
      ? "its result.json carries no guard facts (agent_result.metadata.fiable_guard), so the packet cannot show it"
      : null;
    if (why) refused.push({ path: t.path, why });
  }
  const distinct = (label: string, values: (string | null)[]) => {
    const set = [...new Set(values.map((v) => v ?? "unknown"))];
    return set.length > 1 ? [`${label}: ${set.join(", ")}`] : [];
  };
  const facts = trials.map((t) => t.facts).filter((f): f is GuardFacts => f !== null);
  const mixed = [
    ...distinct("guard", facts.map((f) => `${f.guard.commit ?? "?"} (${f.guard.bundle_sha256 ?? "?"})`)),
    ...distinct("rule set", facts.map((f) => f.rules.digest)),
    ...distinct("Claude Code", facts.map((f) => f.claude_code)),
  ];
  const warnings = report.problems.filter((x) => isWarning(x)).map((x) => x.message);
  return { dir, arm, trials, refused, mixed, warnings };
}

/** The refusal, naming every trial that does not prove the guard; null when the packet may be published. */
export function refusal(p: GuardedPacket): string | null {
  if (!p.trials.length) {
    return `Cannot publish ${p.dir} as a guarded packet: it holds no trials. Pass the folder cb submission ` +
      "prepare printed.";
  }
  if (!p.refused.length && !p.mixed.length) return null;
  const lines = [
    `Cannot publish ${p.dir} as a guarded packet in arm ${p.arm}: ` +
    [
      p.refused.length ? `${p.refused.length} of ${p.trials.length} trials do not prove the guard` : "",
      p.mixed.length ? "its trials ran under more than one version" : "",
    ].filter(Boolean).join(", and ") + ". Re-run or remove them, then prepare the packet again.",
    ...p.refused.map((r) => `  ${r.path}: ${r.why}`),
    ...p.mixed.map((m) => `  more than one ${m}`),
  ];
  return lines.join("\n");
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** What an arm adds to Claude Code, in the disclosure's words. */
function armAdds(arm: Arm): string[] {
  const e = ENFORCES[arm];
  if (arm === "stock") {
    return ["nothing: the stock arm writes no hooks (plain Claude Code under the same harness)."];
  }
  return [
    "Hooks on every χ-World tool call (PreToolUse, PostToolUse, PostToolUseFailure), the task prompt, the stop " +
    "and an API-error ending, answered by a local process; every decision is recorded in an evidence ledger.",
    e.plan
      ? "A role plan at the task prompt: answer-blind operating principles for the seat and phase, and the " +
        "handbook pages for the case (UserPromptSubmit / SessionStart context)."
      : "",
    e.rules
      ? `Contract rules: ${RULES.length} deterministic checks on mutating calls, each traced to the verifier ` +
        "check ids it protects; a failing call is denied with a message naming the exact next call (at most 2 " +
        "blocks per rule, tool and case, then the call is released)."
      : "Contract rules run in shadow: would-be blocks are recorded, never shown to the model.",
    e.gate
      ? "A stop gate: a stop while the seat's obligations are open is refused, listing each with the tool that " +
        "closes it (at most 3 times per session)."
      : "",
    e.critic
      ? `A critic panel: three deterministic judges on terminal calls (two objections block) and ${JUDGES.length} ` +
        "decision-point judges that block alone and ask once."
      : "",
  ].filter(Boolean);
}

/** The scaffold disclosure (FIABLE_GUARD.md) for a packet that proves the guard in every trial. */
export function disclosure(p: GuardedPacket): string {
  const facts = p.trials.map((t) => t.facts!).filter(Boolean);
  const first = facts[0];
  const calls = sum(facts.map((f) => f.coverage?.calls ?? 0));
  const covered = sum(facts.map((f) => f.coverage?.covered ?? 0));
  const count = (pick: (f: GuardFacts) => string) => {
    const out = new Map<string, number>();
    for (const f of facts) out.set(pick(f), (out.get(pick(f)) ?? 0) + 1);
    return [...out].map(([k, n]) => `${k} ${n}`).join(", ");
  };
  const blocks = new Map<string, number>();
  for (const f of facts) {
    for (const [id, n] of Object.entries(f.blocks_by_rule)) blocks.set(id, (blocks.get(id) ?? 0) + n);
  }
  const topBlocks = [...blocks].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([id, n]) => `${id} ${n}`).join(", ") || "none";
  const ms = facts.map((f) => f.tool_ms).filter((t) => t !== null);
  const commit = first?.guard.commit ?? null;
  const cli = first?.claude_code ?? "unknown";
  const rows: [string, string][] = [
    ["trials", `${p.trials.length}, every one proving the guard from its result.json`],
    [
      "guard coverage",
      `${covered} of ${calls} χ-World tool calls had their pre and post records (${
        pct(calls ? covered / calls : 1)
      })`,
    ],
    ["hook mode", count((f) => `${f.hooks} (${f.hooks_reason})`)],
    [
      "role plan reached the model",
      p.arm === "stock" ? "n/a" : `${facts.filter((f) => f.plan_injected).length} of ${facts.length}`,
    ],
    ["blocks by rule", topBlocks],
    ["calls released after the block budget", String(sum(facts.map((f) => f.releases)))],
    ["stop-gate holds", String(sum(facts.map((f) => f.stop_gate.holds)))],
    ["fail-open events", String(sum(facts.map((f) => f.fail_open)))],
    ["guard gaps / restarts", `${sum(facts.map((f) => f.gaps))} / ${sum(facts.map((f) => f.restarts))}`],
    [
      "endings",
      count((f) =>
        f.ending === "api_error"
          ? "API error (StopFailure)"
          : f.ending === "stop"
          ? "agent stop"
          : "none recorded"
      ),
    ],
    [
      "χ-World call time (Claude Code's duration_ms)",
      ms.length
        ? `median of trial medians ${median(ms.map((t) => t!.median))} ms, max ${
          Math.max(...ms.map((t) => t!.max))
        } ms`
        : "not recorded",
    ],
  ];
  return [
    `# Scaffold disclosure: fiable-cc, arm ${p.arm}`,
    "",
    `This packet's agent is Claude Code ${cli}, unchanged, run with the fiable-agent guard in the \`${p.arm}\` ` +
    "arm. Written by fiable-agent's `deno task packet` from the packet itself: each trial's `result.json` " +
    "carries the guard's facts (`agent_result.metadata.fiable_guard`), checked against the trajectory beside it.",
    "",
    "## What the guard adds to the model",
    "",
    ...armAdds(p.arm as Arm).map((line) => `- ${line}`),
    "",
    "## What it does not do",
    "",
    "- **Zero extra model calls.** Every decision is deterministic code over the calls and results the trial " +
    "already has; the guard calls no model and no network service.",
    "- It changes neither Claude Code, its model, its tools nor the task; it sees no verifier file and no " +
    "expected answer.",
    "",
    "## Versions",
    "",
    `- Guard: fiable-agent commit \`${commit ?? "unknown"}\`, bundle SHA-256 \`${
      first?.guard.bundle_sha256 ?? "unknown"
    }\`.`,
    `- Rule set: ${first?.rules.ids.length ?? 0} rules and judges (${first?.rules.ids.join(", ") ?? ""}), ` +
    `metadata digest \`${first?.rules.digest ?? "unknown"}\`.`,
    `- Claude Code: ${cli}.`,
    "",
    "## Integrity",
    "",
    "| figure | value |",
    "| ------ | ----- |",
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    "",
    "## How to reproduce",
    "",
    "```sh",
    `# in a clone of fiable-agent beside your chi-bench checkout${
      commit ? `, at the guard's commit:\ngit checkout ${commit.replace(/-dirty$/, "")}` : ""
    }`,
    "npx -y deno@2.9.6 task install --chi-bench ../chi-bench --apply",
    `npx -y deno@2.9.6 task install submission --chi-bench ../chi-bench --arm ${p.arm} --id <team> ` +
    `${cli !== "unknown" ? `--claude-version ${cli} ` : ""}--apply`,
    `(cd ../chi-bench && FIABLE_CC_ARM=${p.arm} uv run cb submission run -f configs/submissions/<team>-fiable-cc-${p.arm}.yaml)`,
    `(cd ../chi-bench && uv run cb submission prepare -f configs/submissions/<team>-fiable-cc-${p.arm}.yaml)`,
    "npx -y deno@2.9.6 task packet <the packet dir>   # this check, and this file",
    "```",
    "",
  ].join("\n");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}
