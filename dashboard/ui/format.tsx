/** Formatting the pages share: rates, money, sizes, times, truncated text, outcome and decision badges. */
import type { FC } from "hono/jsx";
import type { FireCounts } from "../../lib/trajectories/verdict.ts";

/** Formats a 0–1 rate as a percentage. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? "—" : `${(v * 100).toFixed(1)}%`;
}

export function usd(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined ? "—" : `$${v.toFixed(digits)}`;
}

export function num(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? "—" : v.toFixed(digits);
}

export function kilo(v: number | null): string {
  return v === null ? "—" : v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(v);
}

export function json(v: unknown, max = 8000): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? "";
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max) + `… (${s.length - max} more characters)` : s;
}

export function firstLines(text: string, lines = 3, chars = 280): string {
  const cut = text.split("\n").slice(0, lines).join("\n");
  return cut.length > chars ? cut.slice(0, chars) + "…" : cut;
}

export function cls(v: unknown): string {
  return String(v ?? "").replace(/[^A-Za-z0-9-]/g, "").slice(0, 24);
}

export function time(t: unknown): string {
  return typeof t === "string" ? t.slice(11, 19) : "";
}

export const Outcome: FC<{ value: string }> = ({ value }) => (
  <span class={`badge ${cls(value)}`}>{value}</span>
);

export const Decision: FC<{ value: unknown }> = ({ value }) => (
  <span class={`badge d-${cls(value)}`}>{String(value ?? "")}</span>
);

/** A protector's replay cell: fires in failed (in time / too late) / in passed. */
export function fireCell(r: FireCounts): string {
  return `${r.fires_failed} (${r.in_time} / ${r.too_late}) / ${r.fires_passed}`;
}

/**
 * A name (a trial's, a task's, a check id) that wraps only after a `_`, `.`, `-` or `/`, never inside a word:
 * `cm_afib_moderate…` breaks between its parts, `md.signed_off` after its stage.
 */
export const Name: FC<{ text: string }> = ({ text }) => (
  // deno-lint-ignore jsx-key -- hono's JSX renders a key as an attribute; the parts never reorder.
  <>{text.split(/(?<=[_./-])(?![_./-])/).flatMap((part, i) => (i ? [<wbr />, part] : [part]))}</>
);

/**
 * How the Trials table names a trial beside its task: its attempt suffix (`…__Hx7aB2c`) when its name is its
 * task's (cut at 32 characters, as Harbor names trials) and that suffix; else the whole name.
 */
export function attemptLabel(name: string, task: string): string {
  const at = name.lastIndexOf("__");
  return at > 0 && task.startsWith(name.slice(0, at)) ? `…${name.slice(at)}` : name;
}

/** A trial's cost, or why there is none: still running, or its model has no price (never shown as $0). */
export const Cost: FC<{ value: number | null; model: string | null; known: boolean; digits?: number }> = (
  { value, model, known, digits },
) =>
  value !== null ? <>{usd(value, digits)}</> : !known ? <>—</> : (
    <span
      class="muted unpriced"
      title={`No price for ${
        model ?? "its model (result.json names none)"
      } in the prices (data/prices.yaml, ` +
        "or --prices FILE): its cost is unknown, never $0. Add the model's price and pass --prices FILE."}
    >
      unpriced
    </span>
  );
