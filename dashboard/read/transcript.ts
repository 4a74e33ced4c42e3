/**
 * A trial as a transcript: the trajectory's steps in order (task prompt, the agent's text, each tool call with
 * its key arguments and result), the guard's ledger records placed on the same timeline (its decision on each
 * call by tool_use_id, the stop gate, lifecycle events), a replay's would-be decisions as an overlay, and
 * links from each failed check to the steps that touched its tool or case. Pure: no I/O.
 */
import {
  asInput,
  codexOutput,
  messageText,
  resultText,
  type ToolEvent,
  type Trajectory,
} from "../../lib/trajectories/atif.ts";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { isMutating, normalizeToolName } from "../../lib/guard/engine/names.ts";
import type { RuleMeta } from "../../lib/guard/engine/rule.ts";
import { KEEP_HEX, type KeepHex, redact, redactText } from "../../lib/guard/engine/secrets.ts";
import { extractIds, normalizeId } from "../../lib/guard/engine/ids.ts";

/** Token and cost figures of one step, where the trajectory has them. */
export interface StepMetrics {
  prompt: number | null;
  completion: number | null;
  cached: number | null;
  cost: number | null;
}

/** One tool call on the transcript. */
export interface CallItem {
  id: string;
  /** The name as the harness wrote it. */
  raw: string;
  /** Registered `namespace.method`, or null for a harness-local tool. */
  tool: string | null;
  input: Record<string, unknown>;
  /** The arguments a reader scans for first (case_id, decision, final_action, codes…). */
  keyArgs: [string, string][];
  result: string;
  isError: boolean;
  answered: boolean;
  /** The guard's pre-call record, and its post record. */
  guard: LedgerRecord | null;
  post: LedgerRecord | null;
  /** The replay's would-be pre-call record. */
  would: LedgerRecord | null;
  /** The codex script the call came from (once, on its first call). */
  script: string | null;
  sidechain: boolean;
}

/** One entry on the transcript. */
export type Item =
  | { kind: "prompt"; step: number; t: string | null; text: string }
  | { kind: "system"; step: number; t: string | null; text: string }
  | { kind: "user"; step: number; t: string | null; text: string; feedback: boolean }
  | {
    kind: "agent";
    step: number;
    t: string | null;
    text: string;
    reasoning: string;
    metrics: StepMetrics | null;
    calls: CallItem[];
  }
  | { kind: "record"; record: LedgerRecord; would: boolean };

/** The arguments shown inline, in this order first. */
export const KEY_ARGS = [
  "case_id",
  "referral_id",
  "request_id",
  "session_id",
  "patient_id",
  "decision",
  "final_action",
  "disposition",
  "determination",
  "recommendation",
  "outcome",
  "status",
  "route",
  "lane",
  "letter_type",
  // harness-local tools: what they read or ran
  "file_path",
  "path",
  "command",
  "cmd",
  "pattern",
  "query",
  "name",
];

function scalar(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === "string" || typeof x === "number")) {
    return v.join(", ");
  }
  return null;
}

function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

/** Key arguments of a call: the known ones first, then ids and codes; at most six, values clipped. */
export function keyArgs(input: Record<string, unknown>): [string, string][] {
  const keys = Object.keys(input);
  const picked = [
    ...KEY_ARGS.filter((k) => keys.includes(k)),
    ...keys.filter((k) => !KEY_ARGS.includes(k) && (/_id$|code/.test(k))),
  ];
  const out: [string, string][] = [];
  for (const k of picked) {
    const v = scalar(input[k]);
    if (v !== null && v !== "") out.push([k, clip(v, 80)]);
    if (out.length >= 6) break;
  }
  return out;
}

/** What a codex script ran, for a script without healthverse calls: its shell command, else its first line. */
export function scriptArgs(script: string): [string, string][] {
  const cmd = /\bcmd\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)/.exec(script)?.[1];
  if (cmd) {
    let value = cmd.slice(1, -1);
    try {
      if (cmd.startsWith('"')) value = JSON.parse(cmd);
    } catch {
      // kept as written
    }
    return [["cmd", clip(value, 80)]];
  }
  const first = script.split("\n").map((l) => l.trim()).find((l) => l && !l.startsWith("//")) ?? "";
  return first ? [["script", clip(first, 80)]] : [];
}

function metricsOf(step: Record<string, unknown>): StepMetrics | null {
  const m = step.metrics as Record<string, unknown> | undefined;
  if (!m || typeof m !== "object") return null;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  const out = {
    prompt: n(m.prompt_tokens),
    completion: n(m.completion_tokens),
    cached: n(m.cached_tokens),
    cost: n(m.cost_usd),
  };
  return Object.values(out).some((v) => v !== null) ? out : null;
}

/** A message that only stood for its tool calls (Claude Code, codex: `Executed Read toolu_…`; hermes: `[tool call]`). */
const PLACEHOLDER = /^(?:Executed \S+ \S+|\[tool call\])$/;

function byToolUse(records: readonly LedgerRecord[], events: string[]): Map<string, LedgerRecord> {
  const out = new Map<string, LedgerRecord>();
  for (const r of records) {
    if (!events.includes(String(r.event)) || typeof r.tool_use_id !== "string") continue;
    // The decision that stands is the last pre record for a call (a retried call reuses no id, but be safe).
    out.set(r.tool_use_id, r);
  }
  return out;
}

function placed(records: readonly LedgerRecord[], used: Set<LedgerRecord>, would: boolean): Item[] {
  return records.filter((r) =>
    !used.has(r) && r.event !== "post" && r.event !== "post-fail" &&
    // A replay's own bookkeeping (its prompt, an allowed stop) says nothing the trial did not; its blocks do.
    (!would || (String(r.decision) !== "allow" && String(r.decision) !== "record" &&
      String(r.decision) !== "context"))
  ).map((record) => ({ kind: "record" as const, record, would }));
}

/** Puts unattached records on the timeline by time; without times, prompt-time records first, others last. */
function interleave(steps: Item[], extra: Item[]): Item[] {
  if (!extra.length) return steps;
  const at = (i: Item) => (i.kind === "record" ? (typeof i.record.t === "string" ? i.record.t : null) : i.t);
  const timed = steps.some((s) => at(s));
  const early = (i: Item) =>
    i.kind === "record" && ["prompt", "session-start"].includes(String(i.record.event));
  const out: Item[] = [];
  const head = extra.filter((e) => early(e) && (!timed || !at(e)));
  const rest = extra.filter((e) => !head.includes(e));
  const timedRest = timed
    ? rest.filter((e) => at(e) && !(e.kind === "record" && e.would && e.record.event === "stop"))
    : [];
  const tail = rest.filter((e) => !timedRest.includes(e));
  out.push(...head);
  let k = 0;
  const sorted = [...timedRest].sort((a, b) => (at(a)! < at(b)! ? -1 : at(a)! > at(b)! ? 1 : 0));
  for (const s of steps) {
    const t = at(s);
    while (t && k < sorted.length && at(sorted[k])! < t) out.push(sorted[k++]);
    out.push(s);
  }
  out.push(...sorted.slice(k), ...tail);
  return out;
}

/** A call with its texts, arguments and records redacted; its result keeps its own hex ids (`KEEP_HEX`). */
function redactCall(c: CallItem, keep: KeepHex): CallItem {
  const state = () => ({ deep: false, keep });
  const record = (r: LedgerRecord | null) => (r ? redact(r, "", state()) as LedgerRecord : null);
  return {
    ...c,
    input: redact(c.input, "", state()) as Record<string, unknown>,
    keyArgs: c.keyArgs.map((
      [k, v],
    ) => [k, String((redact({ [k]: v }, "", state()) as Record<string, unknown>)[k])]),
    result: redactText(c.result, KEEP_HEX),
    script: c.script === null ? null : redactText(c.script, keep),
    guard: record(c.guard),
    post: record(c.post),
    would: record(c.would),
  };
}

/**
 * The items with every text they show redacted: the trajectory is the agent's raw record, so a key the model
 * was given or pasted would otherwise reach the page (ledger records are redacted when written; older ones
 * are redacted here too). A bare hex id is kept where the trial's prompt or a result showed it, as the guard
 * keeps what its evidence holds.
 */
function redactItems(items: Item[]): Item[] {
  const held = new Set<string>();
  for (const item of items) {
    if (item.kind === "prompt") { for (const id of extractIds(item.text)) held.add(id); }
    if (item.kind === "agent") {
      for (const c of item.calls) for (const id of extractIds(c.result)) held.add(id);
    }
  }
  const keep: KeepHex = (hex) => held.has(normalizeId(hex));
  return items.map((item) => {
    switch (item.kind) {
      case "record":
        return { ...item, record: redact(item.record, "", { deep: false, keep }) as LedgerRecord };
      case "agent":
        return {
          ...item,
          text: redactText(item.text, keep),
          reasoning: redactText(item.reasoning, keep),
          calls: item.calls.map((c) => redactCall(c, keep)),
        };
      case "prompt":
        return { ...item, text: redactText(item.text, KEEP_HEX) };
      default:
        return { ...item, text: redactText(item.text, keep) };
    }
  });
}

/** The transcript of a trial: trajectory steps with the ledger and a replay overlay on the same timeline. */
export function buildTranscript(input: {
  trajectory: Trajectory | null;
  calls: readonly ToolEvent[];
  records: readonly LedgerRecord[];
  overlay?: readonly LedgerRecord[];
}): Item[] {
  const { trajectory, calls, records } = input;
  const overlay = input.overlay ?? [];
  const pres = byToolUse(records, ["pre"]);
  const posts = byToolUse(records, ["post", "post-fail"]);
  const wouldPres = byToolUse(overlay, ["pre"]);
  const used = new Set<LedgerRecord>();
  const usedWould = new Set<LedgerRecord>();
  const callItem = (c: {
    id: string;
    raw: string;
    tool: string | null;
    input: Record<string, unknown>;
    result: string;
    isError: boolean;
    answered: boolean;
    script?: string | null;
    sidechain?: boolean;
  }): CallItem => {
    const guard = pres.get(c.id) ?? null;
    const post = posts.get(c.id) ?? null;
    const would = wouldPres.get(c.id) ?? null;
    if (guard) used.add(guard);
    if (post) used.add(post);
    if (would) usedWould.add(would);
    return {
      ...c,
      keyArgs: c.script && !Object.keys(c.input).length ? scriptArgs(c.script) : keyArgs(c.input),
      guard,
      post,
      would,
      script: c.script ?? null,
      sidechain: c.sidechain ?? false,
    };
  };
  if (!trajectory) return redactItems(ledgerTranscript(records, overlay));
  const results = new Map<string, unknown>();
  for (const s of trajectory.steps) {
    for (const r of s.observation?.results ?? []) {
      if (r.source_call_id && !results.has(r.source_call_id)) results.set(r.source_call_id, r.content);
    }
  }
  const byStep = new Map<number, ToolEvent[]>();
  for (const c of calls) byStep.set(c.step, [...(byStep.get(c.step) ?? []), c]);
  const echoes = new Set([...results.values()].map((v) => messageText(v).trim()).filter(Boolean));
  const steps: Item[] = [];
  let seenAgent = false;
  trajectory.steps.forEach((step, index) => {
    const t = typeof step.timestamp === "string" ? step.timestamp : null;
    const message = messageText(step.message);
    if (step.source === "system" || message.trimStart().startsWith("<environment_context>")) {
      steps.push({ kind: "system", step: index, t, text: message });
      return;
    }
    if (step.source === "user" || (step.source !== "agent" && !step.tool_calls?.length)) {
      if (!seenAgent) {
        steps.push({ kind: "prompt", step: index, t, text: message });
      } else if (!echoes.has(message.trim())) {
        steps.push({
          kind: "user",
          step: index,
          t,
          text: message,
          feedback: /^Stop hook feedback/i.test(message.trimStart()),
        });
      }
      return;
    }
    seenAgent = true;
    const mine = byStep.get(index) ?? [];
    const items: CallItem[] = [];
    for (const raw of step.tool_calls ?? []) {
      const id = String(raw.tool_call_id ?? `step${index}`);
      const expanded = mine.filter((c) => c.id === id || c.id.startsWith(`${id}#`));
      const name = String(raw.function_name ?? "");
      const script = name === "exec" && typeof asInput(raw.arguments).input === "string"
        ? String(asInput(raw.arguments).input)
        : null;
      if (expanded.length) {
        expanded.forEach((c, n) =>
          items.push(callItem({
            id: c.id,
            raw: c.raw,
            tool: c.tool,
            input: c.input,
            result: c.text,
            isError: c.isError,
            answered: c.answered,
            script: n === 0 && c.id !== id ? script : null,
            sidechain: c.sidechain,
          }))
        );
        continue;
      }
      const content = results.get(id);
      const text = content === undefined
        ? ""
        : script
        ? codexOutput(messageText(content))
        : resultText(content);
      items.push(callItem({
        id,
        raw: name,
        tool: normalizeToolName(name),
        input: script ? {} : asInput(raw.arguments),
        result: text,
        isError: /\[error\] tool reported failure\s*$/.test(text),
        answered: content !== undefined,
        script,
        sidechain: step.extra?.is_sidechain === true,
      }));
    }
    steps.push({
      kind: "agent",
      step: index,
      t,
      text: items.length && PLACEHOLDER.test(message.trim()) ? "" : message,
      reasoning: messageText(step.reasoning_content),
      metrics: metricsOf(step as Record<string, unknown>),
      calls: items,
    });
  });
  return redactItems(
    interleave(steps, [...placed(records, used, false), ...placed(overlay, usedWould, true)]),
  );
}

/** A transcript from ledger records alone (a live trial before its trajectory exists). */
export function ledgerTranscript(
  records: readonly LedgerRecord[],
  overlay: readonly LedgerRecord[] = [],
): Item[] {
  const posts = byToolUse(records, ["post", "post-fail"]);
  const wouldPres = byToolUse(overlay, ["pre"]);
  const out: Item[] = [];
  const seen = new Set<string>();
  records.forEach((r, i) => {
    if (r.event === "pre") {
      const id = typeof r.tool_use_id === "string" ? r.tool_use_id : `rec${i}`;
      seen.add(id);
      const post = posts.get(id) ?? null;
      const input = r.input && typeof r.input === "object" && !Array.isArray(r.input)
        ? r.input as Record<string, unknown>
        : {};
      const result = post ? messageText(post.event === "post-fail" ? post.error : post.result) : "";
      out.push({
        kind: "agent",
        step: i,
        t: typeof r.t === "string" ? r.t : null,
        text: "",
        reasoning: "",
        metrics: null,
        calls: [{
          id,
          raw: String(r.tool ?? ""),
          tool: typeof r.tool === "string" ? normalizeToolName(r.tool) ?? r.tool : null,
          input,
          keyArgs: keyArgs(input),
          result,
          isError: post?.event === "post-fail",
          answered: !!post,
          guard: r,
          post,
          would: wouldPres.get(id) ?? null,
          script: null,
          sidechain: typeof r.agent_id === "string",
        }],
      });
    } else if ((r.event === "post" || r.event === "post-fail") && seen.has(String(r.tool_use_id))) {
      // shown with its call
    } else out.push({ kind: "record", record: r, would: false });
  });
  for (const r of overlay) {
    if (r.event === "stop" && String(r.decision) !== "allow") {
      out.push({ kind: "record", record: r, would: true });
    }
  }
  return out;
}

/** Tool namespaces behind a check's stage (`cm.care_plan.*` → cm_care_plan, `outcome.*` → determination…). */
const STAGE_NAMESPACES: [RegExp, string[]][] = [
  [/^new_referral\./, ["cases", "chart"]],
  [/^provider_pre_submission\./, ["auth", "docs", "forms"]],
  [/^intake\./, ["payer_intake_hub"]],
  [/^triage\./, ["triage"]],
  [/^(nurse|md)\./, ["review"]],
  [/^outcome\.(letter|.*letter)/, ["payer_letter_center"]],
  [/^outcome\./, ["determination", "payer_letter_center"]],
  [/^p2p\./, ["p2p", "p2p_session"]],
  [/^cm\.chart_review\./, ["cm_chart"]],
  [/^cm\.assessment\./, ["cm_assessment"]],
  [/^cm\.care_plan\./, ["cm_care_plan"]],
  [/^cm\.outreach\./, ["cm_outreach"]],
  [/^cm\.intake\./, ["cm_intake"]],
];

/** The registered tools a check is about: the triggers of rules that protect it, and its stage's namespaces. */
export function checkTools(
  check: string,
  rules: readonly RuleMeta[],
): { tools: Set<string>; namespaces: string[] } {
  const id = check.replace(/^judge\./, "");
  const tools = new Set<string>();
  for (const r of rules) {
    if (r.protects.includes(check) && r.triggers.length < 20) { for (const t of r.triggers) tools.add(t); }
  }
  const namespaces = STAGE_NAMESPACES.find(([re]) => re.test(id))?.[1] ?? [];
  return { tools, namespaces };
}

/** The case a call acted on: the guard's reading of it, else its case or referral argument. */
function caseOf(c: CallItem): string | null {
  if (typeof c.guard?.case === "string" && c.guard.case) return c.guard.case;
  for (const k of ["case_id", "referral_id"]) if (typeof c.input[k] === "string") return c.input[k] as string;
  return null;
}

/** The case a trial worked on: the case most of its mutating calls acted on. */
export function targetCase(items: readonly Item[]): string | null {
  const counts = new Map<string, number>();
  for (const i of items) {
    if (i.kind !== "agent") continue;
    for (const c of i.calls) {
      const id = caseOf(c);
      if (id && c.tool && isMutating(c.tool)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** A link from a failed check to a transcript entry: its index in `items` and how to name it. */
export interface CheckLink {
  index: number;
  label: string;
}

/**
 * For each failed check, the transcript entries with the calls that touched its tool; for a check no tool
 * names (cross-stage, forbidden mutations), the mutating calls — those on another case than the trial's
 * first, since touching a non-target case is what such checks fail on.
 */
export function checkLinks(
  items: readonly Item[],
  failed: readonly string[],
  rules: readonly RuleMeta[],
): Map<string, CheckLink[]> {
  const out = new Map<string, CheckLink[]>();
  const target = targetCase(items);
  const label = (index: number) => {
    const item = items[index];
    return item.kind === "agent" ? `step ${item.step + 1}` : `#${index + 1}`;
  };
  for (const check of failed) {
    const { tools, namespaces } = checkTools(check, rules);
    const byTool: number[] = [];
    const other: number[] = [];
    const mutating: number[] = [];
    items.forEach((item, index) => {
      if (item.kind !== "agent") return;
      const calls = item.calls.filter((c) => c.tool);
      if (
        calls.some((c) => tools.has(c.tool!) || namespaces.includes(c.tool!.slice(0, c.tool!.indexOf("."))))
      ) {
        byTool.push(index);
      }
      const mut = calls.filter((c) => isMutating(c.tool!));
      if (mut.length) mutating.push(index);
      if (mut.some((c) => target && caseOf(c) && caseOf(c) !== target)) other.push(index);
    });
    const picked = byTool.length ? byTool : other.length ? other : mutating;
    out.set(check, picked.map((index) => ({ index, label: label(index) })));
  }
  return out;
}
