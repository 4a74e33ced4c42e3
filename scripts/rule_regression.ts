/**
 * Rule regression on real packets: replays every trial's MCP calls through the contract rules (each call
 * checked against the evidence of the calls before it) and the closure gate (at the end), and counts per
 * rule the failed trials it fires in (ff), those where a protected check failed (ffc) and the PASSING
 * trials it would block (fp). First-fire semantics: a block changes everything after it, so a trial
 * counts once per rule.
 *
 *   deno run -A scripts/rule_regression.ts [roots…] [--json] [--list]
 *
 * Roots default to ../shared/leaderboard (relative to the repo). Read-only.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readTrajectory, taskPrompt, toolEvents, UNRESOLVED } from "../lib/atif.ts";
import { foldEvidence } from "../lib/evidence.ts";
import { stringsIn } from "../lib/facts.ts";
import { parseResult } from "../lib/hook.ts";
import { extractIds } from "../lib/ids.ts";
import type { LedgerRecord } from "../lib/ledger.ts";
import { checkCall } from "../lib/decide.ts";
import { openObligations } from "../lib/closure.ts";
import { judgeVotes, panel, panelObjects } from "../lib/critic.ts";
import { isTerminal } from "../lib/names.ts";
import { findTrials, readScorecard, readTrial } from "../lib/trials.ts";
import { RULES } from "../rules/mod.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");

/** One trial's replay: the rules that fired (first fire, with the call) and the obligations open at stop. */
export interface TrialReplay {
  name: string;
  domain: string;
  passed: boolean;
  failedChecks: string[];
  fires: Map<string, { tool: string; message: string }>;
  open: string[];
}

/** Per-rule tallies over the replayed trials. */
export interface RuleTally {
  id: string;
  ff: number;
  ffc: number;
  fp: number;
  passing: string[];
}

/**
 * The result text Claude Code's hook would see: openai-agents wraps each result as one escaped
 * `{"type":"text","text":"…"}` object, which hides `"status": "approved"` from literal matching.
 */
export function unwrapText(text: string): string {
  const t = text.trimStart();
  if (!t.startsWith('{"type"')) return text;
  try {
    const value = JSON.parse(t);
    return value && value.type === "text" && typeof value.text === "string" ? value.text : text;
  } catch {
    return text;
  }
}

/** Replays one trajectory's calls through the rules and the closure gate. */
export function replayCalls(
  prompt: string,
  calls: {
    tool: string | null;
    input: Record<string, unknown>;
    text: string;
    isError: boolean;
    answered: boolean;
    batch: number;
    sidechain: boolean;
    id: string;
  }[],
): { fires: Map<string, { tool: string; message: string }>; open: string[] } {
  const base = { v: 1 as const, t: "", session: "replay", arm: "shadow" as const };
  const records: (LedgerRecord & { batch?: number })[] = [
    { ...base, event: "prompt", decision: "record", prompt, ids: extractIds(prompt) },
  ];
  const fires = new Map<string, { tool: string; message: string }>();
  for (const raw of calls) {
    if (!raw.tool) continue;
    const text = unwrapText(raw.text);
    const call = {
      ...raw,
      tool: raw.tool,
      text,
      isError: raw.isError || /^\s*Error executing tool /.test(text),
    };
    const unresolved = stringsIn(call.input).some((s) => s.includes(UNRESOLVED));
    if (!unresolved) {
      const before = records.filter((r) => r.batch === undefined || r.batch < call.batch);
      const ev = foldEvidence(before);
      const hits = checkCall(call.tool, call.input, ev);
      for (const hit of hits) {
        if (!fires.has(hit.id)) fires.set(hit.id, { tool: call.tool, message: hit.message });
      }
      for (const v of judgeVotes({ tool: call.tool, input: call.input }, ev)) {
        const id = `JUDGE-${v.judge}`;
        if (v.object && !fires.has(id)) fires.set(id, { tool: call.tool, message: v.reason });
      }
      if (isTerminal(call.tool, call.input)) {
        const votes = panel({ tool: call.tool, input: call.input }, ev, hits);
        for (const v of votes) {
          const id = `JUDGE-${v.judge}`;
          if (v.object && !fires.has(id)) fires.set(id, { tool: call.tool, message: v.reason });
        }
        if (panelObjects(votes) && !fires.has("CRITIC")) {
          fires.set("CRITIC", {
            tool: call.tool,
            message: votes.filter((v) => v.object).map((v) => v.reason).join("; "),
          });
        }
      }
    }
    if (!call.answered) continue;
    const parsed = parseResult(call.text);
    records.push({
      ...base,
      event: call.isError ? "post-fail" : "post",
      decision: "record",
      tool: call.tool,
      tool_use_id: call.id,
      input: call.input,
      result: call.isError ? undefined : parsed ?? call.text,
      error: call.isError ? call.text : undefined,
      ids: call.isError ? [] : extractIds(call.text),
      ...(call.sidechain ? { agent_id: "sidechain" } : {}),
      batch: call.batch,
    });
  }
  const open = openObligations(foldEvidence(records)).map((o) => o.id);
  return { fires, open };
}

/**
 * Critic rows: each panel judge's objections, the panel's two-of-three block (terminal calls only), and the
 * decision-point judges (here without the agent's text; replay.ts passes it).
 */
const PANEL_ROWS = [
  "JUDGE-contract",
  "JUDGE-grounding",
  "JUDGE-policy",
  "CRITIC",
  "JUDGE-self-consistency",
  "JUDGE-p2p-contract",
];

/** Tallies ff / ffc / fp per rule (and the closure gate as `CLOSURE`). */
export function tally(trials: TrialReplay[]): RuleTally[] {
  const protects = new Map(RULES.map((r) => [r.meta.id, r.meta.protects]));
  const rows = [...RULES.map((r) => r.meta.id), "CLOSURE", ...PANEL_ROWS].map((id) => ({
    id,
    ff: 0,
    ffc: 0,
    fp: 0,
    passing: [] as string[],
  }));
  for (const t of trials) {
    for (const row of rows) {
      const fired = row.id === "CLOSURE" ? t.open.length > 0 : t.fires.has(row.id);
      if (!fired) continue;
      if (t.passed) {
        row.fp++;
        row.passing.push(t.name);
        continue;
      }
      row.ff++;
      const guarded = row.id === "CLOSURE" || PANEL_ROWS.includes(row.id)
        ? t.failedChecks.length > 0
        : (protects.get(row.id) ?? []).some((c) => t.failedChecks.includes(c));
      if (guarded) row.ffc++;
    }
  }
  return rows;
}

/** Entry: replay every trial under the roots and print the per-rule table. */
export function main(args: string[]): number {
  const json = args.includes("--json");
  const list = args.includes("--list");
  const roots = args.filter((a) => !a.startsWith("--"));
  if (!roots.length) roots.push(join(ROOT, "..", "shared", "leaderboard"));
  for (const r of roots) {
    if (!existsSync(r)) {
      console.error(`Cannot replay ${r}: no such directory. Pass a packet or trials root.`);
      return 1;
    }
  }
  const trials: TrialReplay[] = [];
  let unreadable = 0;
  for (const ref of findTrials(roots)) {
    if (!ref.trajectory) {
      unreadable++;
      continue;
    }
    try {
      const summary = readTrial(ref);
      const card = ref.scorecard ? readScorecard(ref.scorecard) : { checks: [] };
      const trajectory = readTrajectory(ref.trajectory);
      const { calls } = toolEvents(trajectory);
      const { fires, open } = replayCalls(taskPrompt(trajectory), calls);
      trials.push({
        name: `${ref.dir.split("/").slice(-4, -3)[0]}/${ref.name}`,
        domain: summary.domain,
        passed: summary.passed === true,
        failedChecks: card.checks.filter((c) => c.passed === false && c.kind === "deterministic").map((c) =>
          c.id
        ),
        fires,
        open,
      });
    } catch (err) {
      unreadable++;
      console.error(String((err as Error).message));
    }
  }
  const rows = tally(trials);
  const passed = trials.filter((t) => t.passed).length;
  if (json) {
    console.log(JSON.stringify({ trials: trials.length, passed, unreadable, rules: rows }, null, 2));
    return 0;
  }
  console.log(
    `${trials.length} trials (${passed} passed, ${trials.length - passed} failed, ${unreadable} unreadable)`,
  );
  console.log("rule       ff  ffc   fp");
  for (const r of rows) {
    console.log(
      `${r.id.padEnd(9)} ${String(r.ff).padStart(3)} ${String(r.ffc).padStart(4)} ${
        String(r.fp).padStart(4)
      }`,
    );
    if (list) {
      for (const name of r.passing) {
        const fire = trials.find((t) => t.name === name)?.fires.get(r.id);
        console.log(`    pass: ${name}${fire ? ` — ${fire.tool}: ${fire.message.slice(0, 220)}` : ""}`);
      }
    }
  }
  return 0;
}

if (import.meta.main) Deno.exit(main(Deno.args));
