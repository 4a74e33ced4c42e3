/**
 * Two trials side by side, the pure part: the steps of each trial's transcript (transcript.ts, the Trial
 * page's own model) with the key they are aligned on (align.ts), why two trials cannot be compared, the
 * pair a Matrix cell stands for, and the checks either failed.
 */
import type { LedgerRecord } from "../../../lib/guard/engine/record.ts";
import type { CallItem, Item } from "../../read/transcript.ts";

/**
 * What a trial did that the Compare page aligns, with where it sits on its transcript (the item's index, for
 * a link to the Trial page) and the key it is aligned on: each tool call, and each time the stop gate held
 * the agent back (the guard's, or a replay's would-be one).
 */
export type TrialStep =
  & { index: number; key: string }
  & (
    | {
      kind: "call";
      step: number;
      call: CallItem;
      /** Every argument, flattened (`a.b[0]`), ids given as the order they appeared in (as in the key). */
      args: Map<string, string>;
    }
    | { kind: "stop"; record: LedgerRecord; would: boolean }
  );

/** An argument that names a record (`case_id`, `request_ids`…): its value differs from one run to the next. */
function isId(name: string): boolean {
  return /(?:^|_)ids?$/.test(name);
}

/** The longest argument value kept for comparing (a longer one is compared on this much). */
const ARG_CHARS = 200;

/** A call's arguments flattened to `path → value`, an id argument's values through `id`. */
export function flatArgs(input: unknown, id: (value: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (v: unknown, path: string, ids: boolean) => {
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}[${i}]`, ids));
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k, isId(k));
    } else {
      const text = typeof v === "string" ? v : JSON.stringify(v) ?? "";
      out.set(path, ids && typeof v === "string" ? id(v) : text.slice(0, ARG_CHARS));
    }
  };
  visit(input, "", false);
  return out;
}

/** The arguments two aligned calls give differently: `[path, a's value, b's value]` (absent: null). */
export function argumentDiff(
  a: ReadonlyMap<string, string>,
  b: ReadonlyMap<string, string>,
): [string, string | null, string | null][] {
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  return paths.filter((p) => a.get(p) !== b.get(p)).map((p) => [p, a.get(p) ?? null, b.get(p) ?? null]);
}

/**
 * A transcript's calls and non-allowing stop-gate decisions, in order, each with its key: a call's tool (or
 * the harness's name for it) and key arguments, an id given as the order in which it first appeared in this trial
 * (the simulator names each run's cases, requests and letters afresh, so `case_id=CASE-B5F0` in one trial
 * is `case_id=CASE-90A9` in the other, and both are "the first case"); a stop gate's decision and whether
 * the guard made it or a replay would have.
 */
export function stepsOf(items: readonly Item[]): TrialStep[] {
  const ids = new Map<string, number>();
  const id = (value: string) => {
    if (!ids.has(value)) ids.set(value, ids.size + 1);
    return `#${ids.get(value)}`;
  };
  return items.flatMap((item, index): TrialStep[] => {
    if (item.kind === "agent") {
      return item.calls.map((call) => ({
        kind: "call",
        index,
        step: item.step,
        call,
        args: flatArgs(call.input, id),
        key: ["call", call.tool ?? call.raw, ...call.keyArgs.map(([k, v]) => `${k}=${isId(k) ? id(v) : v}`)]
          .join("\u0000"),
      }));
    }
    if (item.kind === "record" && item.record.event === "stop" && String(item.record.decision) !== "allow") {
      const key = `stop\u0000${item.would ? "would" : "guard"}\u0000${String(item.record.decision)}`;
      return [{ kind: "stop", index, record: item.record, would: item.would, key }];
    }
    return [];
  });
}

/**
 * True for a step that is part of the work on the case (a call to a registered tool, a stop-gate hold); false
 * for a harness-local call (Read, Bash, ToolSearch, TaskCreate…), which agents make in their own ways.
 */
export function isCaseStep(s: TrialStep): boolean {
  return s.kind === "stop" || s.call.tool !== null;
}

/** The key a step is aligned on (see `stepsOf`). */
export function stepKey(s: TrialStep): string {
  return s.key;
}

/** What the Compare page needs of a trial to decide whether two can be compared. */
export interface Comparable {
  id: string;
  name: string;
  task: string;
}

/** Why two trials cannot be compared, with the status to answer: 404 for an unknown id, else 400. */
export interface CompareProblem {
  status: 400 | 404;
  message: string;
}

/**
 * Why two trials cannot be compared (`Cannot compare …: … . <next step>.`), or null when they can: both
 * found, not the same trial, the same task.
 */
export function compareProblem(
  ids: { a: string; b: string },
  a: Comparable | undefined,
  b: Comparable | undefined,
): CompareProblem | null {
  if (!ids.a || !ids.b) {
    return {
      status: 400,
      message: "Cannot compare: two trial ids are needed, as /compare?a=<id>&b=<id>. " +
        "Open a trial and pick one under Compare with.",
    };
  }
  for (const [side, id, row] of [["a", ids.a, a], ["b", ids.b, b]] as const) {
    if (!row) {
      return {
        status: 404,
        message: `Cannot compare ${side}=${JSON.stringify(id.slice(0, 40))}: no trial has that id. ` +
          "Pick one from the Trials page.",
      };
    }
  }
  if (a!.id === b!.id) {
    return {
      status: 400,
      message: `Cannot compare ${a!.name} with ${b!.name}: it is the same trial. ` +
        `Pick another attempt or arm of ${a!.task} under Compare with.`,
    };
  }
  if (a!.task !== b!.task) {
    return {
      status: 400,
      message:
        `Cannot compare ${a!.name} with ${b!.name}: they ran different tasks (${a!.task}, ${b!.task}). ` +
        `Pick two trials of one task: open ${a!.name} and use Compare with.`,
    };
  }
  return null;
}

/** What picking a pair needs of a row. */
export interface Pickable {
  id: string;
  arm: string;
  task: string;
  outcome: string;
}

/**
 * Two trials of `task` to compare, one of `arm` (A) and one of `with` (B; the same arm: two attempts): a
 * pair whose outcomes differ when there is one (a passed beside a failed), else the first of each; or why
 * there is none.
 */
export function pickPair(
  rows: readonly Pickable[],
  task: string,
  arms: { arm: string; with: string },
): { a: string; b: string } | string {
  const of = (arm: string) => rows.filter((r) => r.task === task && r.arm === arm);
  const as = of(arms.arm), bs = of(arms.with);
  for (const [arm, found] of [[arms.arm, as], [arms.with, bs]] as const) {
    if (!found.length) {
      return `Cannot compare task ${JSON.stringify(task.slice(0, 100))}: arm ${
        JSON.stringify(arm.slice(0, 40))
      } has no trial of it. Pick a cell with trials on the Matrix page.`;
    }
  }
  const pairs = as.flatMap((a) => bs.filter((b) => b.id !== a.id).map((b) => ({ a, b })));
  const pick = pairs.find((p) => p.a.outcome !== p.b.outcome) ?? pairs[0];
  if (!pick) {
    return `Cannot compare task ${JSON.stringify(task.slice(0, 100))}: arm ${
      JSON.stringify(arms.arm.slice(0, 40))
    } has one trial of it, nothing to compare it with. Pick another arm.`;
  }
  return { a: pick.a.id, b: pick.b.id };
}

/** A check on either side: passed, failed, or not scored there (null). */
export interface CheckPair {
  id: string;
  a: boolean | null;
  b: boolean | null;
}

/**
 * The checks that failed on at least one side, with each side's verdict (a check's absence from a side's
 * scorecard is null), in the order of `a`'s scorecard then `b`'s; and how many passed on both.
 */
export function checkPairs(
  a: readonly { id: string; passed: boolean | null }[],
  b: readonly { id: string; passed: boolean | null }[],
): { failed: CheckPair[]; passedBoth: number } {
  const va = new Map(a.map((c) => [c.id, c.passed]));
  const vb = new Map(b.map((c) => [c.id, c.passed]));
  const ids = [...new Set([...va.keys(), ...vb.keys()])];
  const pairs = ids.map((id) => ({ id, a: va.get(id) ?? null, b: vb.get(id) ?? null }));
  return {
    failed: pairs.filter((p) => p.a === false || p.b === false),
    passedBoth: pairs.filter((p) => p.a === true && p.b === true).length,
  };
}
