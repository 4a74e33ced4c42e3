/**
 * Records about the guard itself (`event: "guard"`): a resident guard came back up (`restart`), and the hook
 * events missed while no guard answered (`gap`). The missed calls are counted from the session's transcript:
 * a χ-World tool call Claude Code made after the guard's last record, with no `pre` record of its own.
 */
import { normalizeToolName } from "../engine/names.ts";
import type { Arm, Gap, GuardDecision, LedgerRecord } from "../engine/record.ts";

/** A `guard` record for a session. */
export function guardRecord(
  session: string,
  arm: Arm,
  decision: GuardDecision,
  options: { t: string; note: string; gap?: Gap },
): LedgerRecord {
  return {
    v: 1,
    t: options.t,
    session,
    event: "guard",
    arm,
    decision,
    note: options.note,
    ...(options.gap ? { gap: options.gap } : {}),
  };
}

/** One χ-World tool call in a Claude Code transcript: its id, catalog name and when it was written. */
export interface TranscriptCall {
  id: string;
  tool: string;
  t: string;
}

/** The χ-World tool calls of a Claude Code session transcript (JSONL), in order; bad lines are skipped. */
export function transcriptCalls(text: string): TranscriptCall[] {
  const calls: TranscriptCall[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"tool_use"')) continue;
    let entry: { type?: unknown; timestamp?: unknown; message?: { content?: unknown } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type !== "assistant" || !Array.isArray(entry.message?.content)) continue;
    for (const block of entry.message.content as Record<string, unknown>[]) {
      if (block?.type !== "tool_use" || typeof block.id !== "string") continue;
      const tool = normalizeToolName(String(block.name ?? ""));
      if (tool) calls.push({ id: block.id, tool, t: String(entry.timestamp ?? "") });
    }
  }
  return calls;
}

/**
 * The calls missed in a gap: transcript calls written after the session's last record before `since` (the
 * guard answered everything up to then) and no later than `until`, that have no `pre` record.
 */
export function missedCalls(
  calls: readonly TranscriptCall[],
  records: readonly LedgerRecord[],
  gap: { since: string; until: string },
): { missed: number; tools: string[] } {
  const seen = new Set(records.filter((r) => r.event === "pre" && r.tool_use_id).map((r) => r.tool_use_id));
  const from = records.map((r) => r.t).filter((t) => t <= gap.since).sort().at(-1) ?? "";
  const missed = calls.filter((c) => !seen.has(c.id) && c.t > from && c.t <= gap.until);
  return { missed: missed.length, tools: [...new Set(missed.map((c) => c.tool))] };
}

/** Every record of a ledger dir's files grouped by session (ledger file names are not relied on). */
export function bySession(records: readonly LedgerRecord[]): Map<string, LedgerRecord[]> {
  const sessions = new Map<string, LedgerRecord[]>();
  for (const r of records) {
    if (typeof r.session !== "string") continue;
    const list = sessions.get(r.session) ?? [];
    list.push(r);
    sessions.set(r.session, list);
  }
  return sessions;
}
