/** The guard engine: one pure decision per hook event, from the event, the session's ledger and the config. */
import type { HookInput } from "./hook.ts";
import {
  allowReply,
  contextReply,
  denyReply,
  type HookReply,
  parseResult,
  responseText,
  stopBlockReply,
} from "./events.ts";
import { type Arm, CAPS, capValue, type LedgerRecord, type RuleHit, type Vote } from "./record.ts";
import { caseKeyOf, emptyEvidence, type Evidence, foldEvidence, heldHex, signature } from "./evidence.ts";
import { isTerminal, normalizeToolName, shownName } from "./names.ts";
import { renderMessage, type Rule } from "./rule.ts";
import { closureMessage, openObligations } from "./closure.ts";
import { criticHits, judgeVotes, panel } from "./critic.ts";
import { JUDGE_BUDGET } from "./judge.ts";
import { judgeOf } from "./judges/mod.ts";
import { type HandbookLookup, rolePlan } from "./plan.ts";
import { extractIds, normalizeId } from "./ids.ts";
import { detectPhase, detectSeat } from "./seat.ts";
import { KEEP_HEX, MAX_DEPTH, redactCapped, type RedactState, redactText } from "./secrets.ts";
import { RULES } from "../../../rules/mod.ts";
import { type GuardPlaces, rule as GUARD_UNTOUCHED } from "../../../rules/guard_untouched.ts";

/** A hook event, already parsed and reduced to what the engine needs. */
export type GuardEvent =
  | {
    word: "pre";
    session: string;
    tool: string;
    input: Record<string, unknown>;
    toolUseId: string;
    agentId?: string;
    /** The agent's last text messages before the call (best effort, for the critic's judges); never recorded. */
    recentText?: string[];
    /** Claude Code's working directory, where a relative path in a Bash command starts. */
    cwd?: string;
  }
  | {
    word: "post";
    session: string;
    tool: string;
    input: Record<string, unknown>;
    toolUseId: string;
    response: unknown;
    agentId?: string;
    durationMs?: number;
  }
  | {
    word: "post-fail";
    session: string;
    tool: string;
    input: Record<string, unknown>;
    toolUseId: string;
    error: string;
    agentId?: string;
    durationMs?: number;
  }
  | { word: "stop"; session: string; subagent: boolean }
  | { word: "stop-fail"; session: string; error: string; details?: string }
  | { word: "prompt"; session: string; prompt: string }
  | { word: "session-start"; session: string; source: string };

/** The guard event for a parsed hook input. */
export function toGuardEvent(input: HookInput): GuardEvent {
  const session = input.session_id;
  switch (input.hook_event_name) {
    case "PreToolUse":
      return {
        word: "pre",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        agentId: input.agent_id,
        ...(input.cwd ? { cwd: input.cwd } : {}),
      };
    case "PostToolUse":
      return {
        word: "post",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        response: input.tool_response,
        agentId: input.agent_id,
        durationMs: input.duration_ms,
      };
    case "PostToolUseFailure":
      return {
        word: "post-fail",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        error: input.error,
        agentId: input.agent_id,
        durationMs: input.duration_ms,
      };
    case "Stop":
    case "SubagentStop":
      return { word: "stop", session, subagent: input.hook_event_name === "SubagentStop" };
    case "StopFailure":
      return { word: "stop-fail", session, error: input.error, details: input.error_details };
    case "UserPromptSubmit":
      return { word: "prompt", session, prompt: input.prompt };
    case "SessionStart":
      return { word: "session-start", session, source: input.source };
  }
}

/** Limits that keep the guard from trapping a run. */
export interface Bounds {
  /** Blocks per (rule, tool, case) signature before the call is released. */
  blockBudget: number;
  /** Stop-gate blocks per session (Claude Code overrides hooks after 8). */
  stopBlocks: number;
}

/** What the engine is configured with. */
export interface EngineConfig {
  arm: Arm;
  bounds: Bounds;
  /** Rule IDs to run; all when absent. */
  rules?: string[];
  /** Finds handbook pages for the plan (it does its own I/O and fails open); no pages when absent. */
  handbook?: HandbookLookup;
  /** The guard's own folders, settings files and ports (GUARD-01); the trial's defaults when absent. */
  places?: GuardPlaces;
}

/** The guard's places in a trial: `/logs/agent/fiable` and `$CLAUDE_CONFIG_DIR/settings.json` as Harbor sets them. */
export const TRIAL_PLACES: GuardPlaces = {
  dirs: ["/logs/agent/fiable"],
  files: ["/logs/agent/sessions/settings.json"],
  ports: [],
  env: { FIABLE_LEDGER_DIR: "/logs/agent/fiable", CLAUDE_CONFIG_DIR: "/logs/agent/sessions" },
};

/** The default bounds: 2 blocks per signature, 3 stop blocks. */
export const DEFAULT_BOUNDS: Bounds = { blockBudget: 2, stopBlocks: 3 };

/** The engine's answer: the reply for Claude Code and the ledger record to append (null: record nothing). */
export interface Outcome {
  reply: HookReply;
  record: LedgerRecord | null;
}

/** What each arm enforces: rules, critic, closure gate, role plan. */
export const ENFORCES: Record<Arm, { rules: boolean; critic: boolean; gate: boolean; plan: boolean }> = {
  stock: { rules: false, critic: false, gate: false, plan: false },
  shadow: { rules: false, critic: false, gate: false, plan: false },
  plan: { rules: false, critic: false, gate: false, plan: true },
  checklist: { rules: true, critic: false, gate: true, plan: true },
  critic: { rules: true, critic: true, gate: true, plan: true },
};

/** The rules that apply to a call for the session's seat. */
export function rulesFor(tool: string, ev: Evidence, enabled?: string[]): Rule[] {
  return RULES.filter((r) =>
    r.meta.triggers.includes(tool) && (r.meta.seat === "all" || !ev.seat || r.meta.seat === ev.seat) &&
    (!enabled || enabled.includes(r.meta.id))
  );
}

/** Rule IDs whose blocks rest on something not observed (`RuleMeta.fromAbsence`). */
const FROM_ABSENCE = new Set(RULES.filter((r) => r.meta.fromAbsence).map((r) => r.meta.id));

/** What a degraded-evidence shadow says in the record. */
const DEGRADED_NOTE =
  "evidence degraded (a record was lost or cut): rules that reason from absence recorded, " +
  "not enforced";

/** Runs every applicable rule on the call; each that fires becomes a hit with its rendered message. */
export function checkCall(
  tool: string,
  input: Record<string, unknown>,
  ev: Evidence,
  enabled?: string[],
): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const rule of rulesFor(tool, ev, enabled)) {
    const data = rule.check({ tool, input }, ev);
    if (data) {
      hits.push({
        id: rule.meta.id,
        checks: rule.meta.protects,
        // Messages quote the call's arguments: a secret the model pasted into one must not reach the ledger.
        // Redacted as rendered, ids joined in (`case_id=<key>`), not value by value.
        message: redactText(renderMessage(rule.meta.message, data), heldHex(ev)),
      });
    }
  }
  return hits;
}

/** The deny reason the model reads: the call, then each rule or critic block with its message and fix. */
export function denyReason(tool: string, hits: RuleHit[]): string {
  return `fiable-guard blocked ${shownName(tool)}.\n${hits.map((h) => `[${h.id}] ${h.message}`).join("\n")}`;
}

/**
 * True while a hit may still block on this case: a rule spends its budget per (rule, tool, case) signature; a
 * decision-point judge asks once per case, whichever of its decision points it asked at.
 */
function withinBudget(
  hit: RuleHit,
  tool: string,
  caseKey: string | null,
  ev: Evidence,
  bounds: Bounds,
): boolean {
  const judge = judgeOf(hit.id);
  if (!judge) return (ev.denies.get(signature(hit.id, tool, caseKey)) ?? 0) < bounds.blockBudget;
  let asked = 0;
  for (const t of judge.meta.triggers) asked += ev.denies.get(signature(hit.id, t, caseKey)) ?? 0;
  return asked < Math.min(JUDGE_BUDGET, bounds.blockBudget);
}

function base(
  event: GuardEvent,
  config: EngineConfig,
  now: string,
): Omit<LedgerRecord, "event" | "decision"> {
  return { v: 1, t: now, session: event.session, arm: config.arm };
}

function decidePre(
  event: Extract<GuardEvent, { word: "pre" }>,
  ev: Evidence,
  config: EngineConfig,
  now: string,
): Outcome {
  const tool = normalizeToolName(event.tool);
  if (!tool) return decideOwnTool(event, ev, config, now);
  // Redacted at the source: it is recorded, quoted by judges and part of the block-budget signature.
  const held = heldHex(ev);
  const rawCase = caseKeyOf(event.input, ev.owners);
  const caseKey = rawCase === null ? null : redactText(rawCase, held);
  const hits = checkCall(tool, event.input, ev, config.rules);
  const call = { tool, input: event.input };
  const all: Vote[] = [
    ...(isTerminal(tool, event.input) ? panel(call, ev, hits) : []),
    ...judgeVotes(call, ev, { recentText: event.recentText ?? [] }, ENFORCES[config.arm].critic),
  ];
  const votes = all.length ? all.map((v) => ({ ...v, reason: redactText(v.reason, held) })) : undefined;
  const criticHit = criticHits(all, call, ev).map((h) => ({ ...h, message: redactText(h.message, held) }));
  const record: LedgerRecord = {
    ...base(event, config, now),
    event: "pre",
    decision: "allow",
    tool,
    tool_use_id: event.toolUseId,
    case: caseKey,
    input: redactCapped(event.input, CAPS.input, { deep: false, keep: held }),
    ...(event.agentId ? { agent_id: event.agentId } : {}),
    ...(votes ? { votes } : {}),
  };
  const enforce = ENFORCES[config.arm];
  const wouldBlock = [...hits, ...criticHit];
  if (!wouldBlock.length) return { reply: allowReply(), record };
  if (!enforce.rules) {
    return { reply: allowReply(), record: { ...record, decision: "shadow", rules: wouldBlock } };
  }
  // On degraded evidence a block from absence may rest on the lost record: recorded, never enforced.
  const unsure = ev.degraded ? hits.filter((h) => FROM_ABSENCE.has(h.id)) : [];
  const enforced = [...hits.filter((h) => !unsure.includes(h)), ...(enforce.critic ? criticHit : [])];
  if (!enforced.length) {
    const shadowed = [...unsure, ...criticHit];
    return {
      reply: allowReply(),
      record: {
        ...record,
        decision: "shadow",
        rules: shadowed,
        ...(unsure.length ? { note: DEGRADED_NOTE } : {}),
      },
    };
  }
  const within = enforced.filter((h) => withinBudget(h, tool, caseKey, ev, config.bounds));
  if (!within.length) {
    return {
      reply: allowReply(),
      record: { ...record, decision: "release", rules: enforced, note: "block budget spent; call released" },
    };
  }
  const reason = redactText(denyReason(tool, within), held);
  const note = unsure.length ? `${DEGRADED_NOTE}: ${unsure.map((h) => h.id).join(", ")}` : undefined;
  return {
    reply: denyReply(reason),
    record: { ...record, decision: "deny", rules: within, reason, ...(note ? { note } : {}) },
  };
}

/**
 * A pre on one of Claude Code's own tools: only GUARD-01 looks at it (a call that writes or deletes the guard's
 * state, writes its hook settings or calls its port), and only a call it refuses is recorded; every other tool
 * passes silently. Denied in the arms that block, recorded as shadow in the others, with no block budget.
 */
function decideOwnTool(
  event: Extract<GuardEvent, { word: "pre" }>,
  ev: Evidence,
  config: EngineConfig,
  now: string,
): Outcome {
  if (!GUARD_UNTOUCHED.meta.tools.includes(event.tool)) return { reply: allowReply(), record: null };
  const places = config.places ?? TRIAL_PLACES;
  const data = GUARD_UNTOUCHED.check(
    { tool: event.tool, input: event.input },
    { ...places, cwd: event.cwd ?? places.cwd },
  );
  if (!data) return { reply: allowReply(), record: null };
  const held = heldHex(ev);
  const hit: RuleHit = {
    id: GUARD_UNTOUCHED.meta.id,
    checks: [],
    message: redactText(renderMessage(GUARD_UNTOUCHED.meta.message, data), held),
  };
  const record: LedgerRecord = {
    ...base(event, config, now),
    event: "pre",
    decision: "shadow",
    tool: event.tool,
    tool_use_id: event.toolUseId,
    case: null,
    input: redactCapped(event.input, CAPS.input, { deep: false, keep: held }),
    ...(event.agentId ? { agent_id: event.agentId } : {}),
    rules: [hit],
  };
  if (!ENFORCES[config.arm].rules) return { reply: allowReply(), record };
  const reason = redactText(denyReason(event.tool, [hit]), held);
  return { reply: denyReply(reason), record: { ...record, decision: "deny", reason } };
}

function decidePost(
  event: Extract<GuardEvent, { word: "post" | "post-fail" }>,
  ev: Evidence | null,
  config: EngineConfig,
  now: string,
): Outcome {
  const tool = normalizeToolName(event.tool);
  if (!tool) return { reply: {}, record: null };
  // The result is where ids come from: it keeps its own hex ids, and the arguments keep those it or the
  // evidence holds (a command-mode post reads no evidence, so there only those of the result itself).
  const resultCut: RedactState = { deep: false, keep: KEEP_HEX };
  const text = redactText(event.word === "post" ? responseText(event.response) : event.error, KEEP_HEX);
  const ids = extractIds(text);
  const own = new Set(ids);
  const held = ev ? heldHex(ev) : null;
  const cut: RedactState = {
    deep: false,
    keep: (hex) => own.has(normalizeId(hex)) || (held?.(hex) ?? false),
  };
  const common = {
    ...base(event, config, now),
    decision: "record" as const,
    tool,
    tool_use_id: event.toolUseId,
    input: redactCapped(event.input, CAPS.input, cut),
    ...(event.agentId ? { agent_id: event.agentId } : {}),
    ...durationOf(event.durationMs),
  };
  let record: LedgerRecord;
  if (event.word === "post-fail") {
    record = { ...common, event: "post-fail", error: capValue(text, CAPS.text) as string };
  } else {
    const parsed = parseResult(text);
    const result = parsed === undefined
      ? capValue(text, CAPS.result)
      : redactCapped(parsed, CAPS.result, resultCut);
    record = { ...common, event: "post", result, ids };
  }
  if (cut.deep || resultCut.deep) {
    record.degraded = true;
    record.note = `nesting deeper than ${MAX_DEPTH} levels was cut from the recorded call; evidence degraded`;
  }
  return { reply: {}, record };
}

/** A call's `duration_ms` for its record: a finite, non-negative number of milliseconds, else nothing. */
function durationOf(ms: number | undefined): { duration_ms?: number } {
  return typeof ms === "number" && Number.isFinite(ms) && ms >= 0 ? { duration_ms: ms } : {};
}

/**
 * A run that ended on an API error (StopFailure): recorded, never decided (Claude Code ignores the reply), so
 * run integrity tells it from the agent's own stop. The error's kind is kept whole; its text redacted and cut.
 */
function decideStopFailure(
  event: Extract<GuardEvent, { word: "stop-fail" }>,
  config: EngineConfig,
  now: string,
): Outcome {
  const details = event.details ? capValue(redactText(event.details), CAPS.text) as string : undefined;
  return {
    reply: {},
    record: {
      ...base(event, config, now),
      event: "stop-fail",
      decision: "record",
      error: capValue(redactText(event.error), 200) as string,
      ...(details ? { note: details } : {}),
    },
  };
}

function decideStop(
  event: Extract<GuardEvent, { word: "stop" }>,
  ev: Evidence,
  config: EngineConfig,
  now: string,
): Outcome {
  const rec = { ...base(event, config, now), event: "stop" as const };
  if (event.subagent) return { reply: {}, record: { ...rec, decision: "allow", note: "subagent stop" } };
  const open = openObligations(ev);
  const held = heldHex(ev);
  const obligations = open.map((o) => redactText(`${o.id}: ${o.text}`, held));
  if (!open.length) return { reply: {}, record: { ...rec, decision: "allow" } };
  const reason = redactText(closureMessage(open), held);
  if (!ENFORCES[config.arm].gate || ev.degraded) {
    const note = ev.degraded
      ? "evidence degraded (a record was lost or cut): the stop gate recorded, not enforced"
      : undefined;
    return {
      reply: {},
      record: { ...rec, decision: "shadow", obligations, reason, ...(note ? { note } : {}) },
    };
  }
  if (ev.stopBlocks >= config.bounds.stopBlocks) {
    return {
      reply: {},
      record: {
        ...rec,
        decision: "release",
        obligations,
        note: "stop-gate budget spent; released with obligations open",
      },
    };
  }
  return { reply: stopBlockReply(reason), record: { ...rec, decision: "block", obligations, reason } };
}

function decideContext(
  event: Extract<GuardEvent, { word: "prompt" | "session-start" }>,
  known: Evidence,
  config: EngineConfig,
  now: string,
): Outcome {
  const isTaskPrompt = event.word === "prompt" && !known.prompt;
  const prompt = isTaskPrompt ? event.prompt : known.prompt;
  const seat = isTaskPrompt ? detectSeat(prompt) : known.seat;
  const phase = isTaskPrompt ? detectPhase(prompt) : known.phase;
  const wantsPlan = ENFORCES[config.arm].plan;
  const found = wantsPlan && config.handbook ? config.handbook({ prompt, seat, phase }) : undefined;
  const plan = wantsPlan ? rolePlan(seat, phase, { pages: found?.pages }) : "";
  // Ids come from the redacted prompt, so a key in the prompt never lands (upper-cased) in `ids`.
  const redacted = isTaskPrompt ? redactText(prompt, KEEP_HEX) : "";
  const rec: LedgerRecord = {
    ...base(event, config, now),
    event: event.word,
    decision: plan ? "context" : "record",
    seat,
    phase,
    ...(isTaskPrompt ? { prompt: capValue(redacted, CAPS.prompt) as string, ids: extractIds(redacted) } : {}),
    ...(event.word === "session-start" ? { note: `source=${event.source}` } : {}),
    ...(plan ? { reason: plan } : {}),
    ...(found ? { handbook: found.record } : {}),
  };
  const hookEvent = event.word === "prompt" ? "UserPromptSubmit" : "SessionStart";
  return { reply: plan ? contextReply(hookEvent, plan) : {}, record: rec };
}

/** Whether deciding this event reads the session's evidence (a post or an API error only records; stock decides nothing). */
export function readsEvidence(word: GuardEvent["word"], arm: Arm): boolean {
  return arm !== "stock" && word !== "post" && word !== "post-fail" && word !== "stop-fail";
}

/**
 * Decides one event. Pure: `records` is the session's ledger so far and `now` the time to stamp; the
 * caller appends the returned record and prints the reply. The stock arm answers neutrally and records nothing.
 */
export function decide(
  event: GuardEvent,
  records: readonly LedgerRecord[],
  config: EngineConfig,
  now: string,
): Outcome {
  return decideOn(event, readsEvidence(event.word, config.arm) ? foldEvidence(records) : null, config, now);
}

/**
 * Decides one event against evidence already folded from the session's ledger (a resident guard keeps it
 * running, folding each appended record once). Pure apart from reading `ev`; null evidence is an empty
 * session. Same answers as `decide` on the records `ev` was folded from.
 */
export function decideOn(
  event: GuardEvent,
  ev: Evidence | null,
  config: EngineConfig,
  now: string,
): Outcome {
  if (config.arm === "stock") return { reply: event.word === "pre" ? allowReply() : {}, record: null };
  switch (event.word) {
    case "pre":
      return decidePre(event, ev ?? emptyEvidence(), config, now);
    case "post":
    case "post-fail":
      return decidePost(event, ev, config, now);
    case "stop":
      return decideStop(event, ev ?? emptyEvidence(), config, now);
    case "stop-fail":
      return decideStopFailure(event, config, now);
    case "prompt":
    case "session-start":
      return decideContext(event, ev ?? emptyEvidence(), config, now);
  }
}
