/** Guard lifecycle records: the calls a restarted guard missed, counted from the session transcript. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { bySession, guardRecord, missedCalls, transcriptCalls } from "../lib/guard/resident/gap.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";

const s = suite("gap");

/** A Claude Code transcript line: an assistant message with tool_use blocks, written at `t`. */
function assistant(t: string, uses: [string, string][]): string {
  const content = uses.map(([id, name]) => ({ type: "tool_use", id, name, input: {} }));
  return JSON.stringify({ type: "assistant", timestamp: t, message: { role: "assistant", content } });
}

function record(t: string, event: LedgerRecord["event"], toolUseId?: string): LedgerRecord {
  return {
    v: 1,
    t,
    session: "s",
    event,
    arm: "checklist",
    decision: "allow",
    ...(toolUseId ? { tool_use_id: toolUseId } : {}),
  };
}

const T = (sec: number) => `2026-12-01T10:00:${String(sec).padStart(2, "0")}.000Z`;

const TRANSCRIPT = [
  JSON.stringify({ type: "user", timestamp: T(0), message: { role: "user", content: "# MD Review" } }),
  assistant(T(1), [["toolu_a", "mcp__healthverse__payer_intake_hub_list_intake_queue"]]),
  "{not json",
  assistant(T(5), [["toolu_b", "mcp__chi-bench-payer__determination_get_summary"], ["toolu_bash", "Bash"]]),
  assistant(T(6), [["toolu_c", "mcp__healthverse__determination_finalize"]]),
  assistant(T(9), [["toolu_d", "mcp__healthverse__triage_get"]]),
  JSON.stringify({
    type: "user",
    timestamp: T(9),
    message: { content: [{ type: "tool_result", tool_use_id: "toolu_d" }] },
  }),
].join("\n");

s(
  "transcriptCalls: χ-World tool_use blocks of any server, with their times; other tools and bad lines skipped",
  () => {
    assert.equal(transcriptCalls(TRANSCRIPT), [
      { id: "toolu_a", tool: "payer_intake_hub.list_intake_queue", t: T(1) },
      { id: "toolu_b", tool: "determination.get_summary", t: T(5) },
      { id: "toolu_c", tool: "determination.finalize", t: T(6) },
      { id: "toolu_d", tool: "triage.get", t: T(9) },
    ]);
    assert.equal(transcriptCalls(""), []);
  },
);

const CALLS = transcriptCalls(TRANSCRIPT);
const ROWS: [
  string,
  LedgerRecord[],
  { since: string; until: string },
  { missed: number; tools: string[] },
][] = [
  [
    "calls after the last record and within the gap, with no pre, are missed",
    [record(T(1), "pre", "toolu_a"), record(T(2), "post", "toolu_a")],
    { since: T(4), until: T(7) },
    { missed: 2, tools: ["determination.get_summary", "determination.finalize"] },
  ],
  [
    "a call the guard decided is not missed",
    [record(T(2), "post", "toolu_a"), record(T(5), "pre", "toolu_b")],
    { since: T(5), until: T(7) },
    { missed: 1, tools: ["determination.finalize"] },
  ],
  [
    "calls after the gap ended are not counted",
    [record(T(2), "post", "toolu_a")],
    { since: T(3), until: T(5) },
    { missed: 1, tools: ["determination.get_summary"] },
  ],
  [
    "a call before the guard's last record (a fail-open error has no tool_use_id) is not blamed on the gap",
    [record(T(7), "pre")],
    { since: T(8), until: T(9) },
    { missed: 1, tools: ["triage.get"] },
  ],
  [
    "with no records at all, every call up to the end of the gap",
    [],
    { since: T(4), until: T(5) },
    { missed: 2, tools: ["payer_intake_hub.list_intake_queue", "determination.get_summary"] },
  ],
  ["nothing happened in the gap", [record(T(9), "stop")], { since: T(9), until: T(9) }, {
    missed: 0,
    tools: [],
  }],
];
for (const [name, records, gap, expected] of ROWS) {
  s(`missedCalls: ${name}`, () => assert.equal(missedCalls(CALLS, records, gap), expected));
}

s("guardRecord: event guard, the decision, note and gap as the ledger contract has them", () => {
  const gap = { since: T(1), until: T(2), missed: 1, tools: ["triage.get"] };
  assert.equal(guardRecord("s", "critic", "gap", { t: T(2), note: "down", gap }), {
    v: 1,
    t: T(2),
    session: "s",
    event: "guard",
    arm: "critic",
    decision: "gap",
    note: "down",
    gap,
  });
  assert.not.ok("gap" in guardRecord("s", "critic", "restart", { t: T(2), note: "back" }));
});

s("bySession groups records by their session field, in order", () => {
  const a = { ...record(T(1), "pre"), session: "a" };
  const b = { ...record(T(2), "pre"), session: "b" };
  const a2 = { ...record(T(3), "post"), session: "a" };
  assert.equal([...bySession([a, b, a2])], [["a", [a, a2]], ["b", [b]]]);
});

s.run();
