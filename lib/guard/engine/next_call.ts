/**
 * The next call a block reason names, written the one way every reason writes it: the tool as the model sees
 * it and each argument `name=value`, e.g. `determination_finalize(case_id=CASE-3903B8ED, decision=denied)`.
 * A list is `[a, b]`, an object `{key: value}`; a value with a space, comma, bracket or quote is a JSON string; a value the model must
 * still write (a rationale, a slot) is `<what to write>`, never an id the record already holds. Replay grades
 * reasons by reading this form back (lib/trajectories/next_call.ts).
 */
import { shownName } from "./names.ts";

/** A value as a reason writes it. */
function valueText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(valueText).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${k}: ${valueText(v)}`).join(", ")}}`;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (/^<[^<>]*>$/.test(text)) return text;
  return /^[^\s,()[\]"'=]+$/.test(text) ? text : JSON.stringify(text);
}

/** `tool_name(arg=value, …)`: the call as a block reason names it (arguments in the order given). */
export function callText(tool: string, args: Record<string, unknown> = {}): string {
  const list = Object.entries(args).filter(([, v]) => v !== undefined);
  return `${shownName(tool)}(${list.map(([k, v]) => `${k}=${valueText(v)}`).join(", ")})`;
}
