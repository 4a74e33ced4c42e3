/** The transcript tail: Claude Code JSONL → the agent's recent text; bounded, and silent on any failure. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRecentText, TRANSCRIPT_TAIL_BYTES, transcriptTexts } from "../lib/guard/transcript.ts";
import { RECENT_TEXT } from "../lib/guard/engine/judge.ts";
import { slowdown } from "./support/slowdown.ts";

const s = suite("transcript");
const dir = mkdtempSync(join(tmpdir(), "transcript-"));
s.after(() => rmSync(dir, { recursive: true, force: true }));

/** One transcript line as Claude Code writes it (one content block per assistant line). */
function line(type: string, content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, uuid: crypto.randomUUID(), message: { role: type, content }, ...extra });
}

const SESSION = [
  line("user", "# Clinical Intake — MRI"),
  line("assistant", [{ type: "text", text: "Reading the chart." }]),
  line("assistant", [{
    type: "tool_use",
    id: "toolu_1",
    name: "mcp__healthverse__cases_get_case",
    input: {},
  }]),
  line("user", [{ type: "tool_result", tool_use_id: "toolu_1", content: "assistant text in a result" }]),
  line("assistant", [{ type: "text", text: "A subagent's note." }], { isSidechain: true }),
  "not json at all",
  line("assistant", "Counseling has not yet been completed; I will disclose it and submit."),
].join("\n");

s("assistant text blocks, in order; tool calls, results, sidechains and junk skipped", () => {
  assert.equal(transcriptTexts(SESSION), [
    "Reading the chart.",
    "Counseling has not yet been completed; I will disclose it and submit.",
  ]);
});

s("a tail read keeps the last messages only, each capped at its end", async () => {
  const path = join(dir, "long.jsonl");
  const filler = Array.from(
    { length: 400 },
    (_, i) => line("assistant", [{ type: "text", text: `note ${i} ${"x".repeat(900)}` }]),
  );
  const last = `${"y".repeat(5000)} the end`;
  writeFileSync(path, [...filler, line("assistant", [{ type: "text", text: last }])].join("\n") + "\n");
  const read = await readRecentText(path);
  assert.is(read.note, undefined);
  assert.is(read.texts.length, RECENT_TEXT.messages);
  assert.ok(read.texts.at(-1)!.endsWith("the end"));
  assert.is(read.texts.at(-1)!.length, RECENT_TEXT.chars);
  assert.ok(read.texts[0].startsWith("note 398"), read.texts[0].slice(0, 20));
});

s("a tail that starts mid-line skips the cut line", async () => {
  const path = join(dir, "cut.jsonl");
  const kept = line("assistant", "kept");
  writeFileSync(path, `${line("assistant", [{ type: "text", text: "z".repeat(600) }])}\n${kept}\n`);
  assert.equal((await readRecentText(path, { bytes: kept.length + 40 })).texts, ["kept"]);
});

s("the tail is bounded whatever the file size", () => assert.ok(TRANSCRIPT_TAIL_BYTES <= 1 << 20));

s("a missing file gives no text and says why, never throws", async () => {
  const read = await readRecentText(join(dir, "absent.jsonl"), { toolUseId: "toolu_9", waitMs: 50 });
  assert.equal(read.texts, []);
  assert.match(read.note ?? "", /transcript not read \(ENOENT\)/);
});

s("a file Claude Code has not created yet is waited for, like a lagging one", async () => {
  const path = join(dir, "late.jsonl");
  setTimeout(() => {
    writeFileSync(
      path,
      line("assistant", [{ type: "text", text: "Counseling has not yet been completed." }]) + "\n" +
        line("assistant", [{ type: "tool_use", id: "toolu_late", name: "x", input: {} }]) + "\n",
    );
  }, 60);
  const read = await readRecentText(path, { toolUseId: "toolu_late", waitMs: 2000 });
  assert.is(read.note, undefined);
  assert.equal(read.texts, ["Counseling has not yet been completed."]);
});

s("a directory instead of a file gives no text", async () => {
  assert.equal((await readRecentText(dir)).texts, []);
});

s("waits for the pending call to be written, then reads the text before it", async () => {
  const path = join(dir, "lag.jsonl");
  writeFileSync(path, line("assistant", [{ type: "text", text: "Earlier turn." }]) + "\n");
  setTimeout(() => {
    appendFileSync(
      path,
      line("assistant", [{ type: "text", text: "Counseling has not yet been completed." }]) + "\n",
    );
    appendFileSync(
      path,
      line("assistant", [{ type: "tool_use", id: "toolu_lag", name: "x", input: {} }]) + "\n",
    );
  }, 60);
  const read = await readRecentText(path, { toolUseId: "toolu_lag", waitMs: 2000 });
  assert.is(read.note, undefined);
  assert.equal(read.texts, ["Earlier turn.", "Counseling has not yet been completed."]);
});

s("a transcript that never catches up is judged on what it has, with a note, within the cap", async () => {
  const path = join(dir, "stale.jsonl");
  writeFileSync(path, line("assistant", [{ type: "text", text: "Earlier turn." }]) + "\n");
  const before = slowdown();
  const started = Date.now();
  const read = await readRecentText(path, { toolUseId: "toolu_never", waitMs: 80 });
  const load = Math.max(before, slowdown());
  assert.ok(
    (Date.now() - started) / load < 1000,
    `${Date.now() - started} ms at ${load.toFixed(1)}x slowdown`,
  );
  assert.equal(read.texts, ["Earlier turn."]);
  assert.match(read.note ?? "", /lagged the call after 80 ms/);
});

s.run();
