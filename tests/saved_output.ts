/**
 * Claude Code's saved-output notice: the two shapes the real CLIs write, the session's own tool-results file
 * only, the bounded read the live guard does, and replay taking what the agent read of the file — on the
 * real packets, no unseen-id rule fires on an id the agent read there.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isSessionToolResult,
  savedOutputPath,
  savedOutputResponse,
} from "../lib/guard/engine/saved_output.ts";
import { readSavedOutput } from "../lib/guard/saved_output.ts";
import { withSavedReads } from "../lib/trajectories/saved_reads.ts";
import { readTrajectory, type ToolEvent, toolEvents } from "../lib/trajectories/atif.ts";
import { replayArm } from "../lib/trajectories/replay.ts";
import { findTrials } from "../lib/results/trials.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";

const s = suite("saved output");
const root = mkdtempSync(join(tmpdir(), "saved-output-"));
s.after(() => rmSync(root, { recursive: true, force: true }));

const SESSION = "d2fcffdb-2a5f-4efd-bb72-64d3910247b9";
const DIR = join(root, "projects", "-workspace", SESSION, "tool-results");
const TRANSCRIPT = join(root, "projects", "-workspace", `${SESSION}.jsonl`);
const FILE = join(DIR, "mcp-healthverse-payer_intake_hub_list_intake_queue-1796422913694-7zfz0g.txt");
mkdirSync(DIR, { recursive: true });

/** The notice 2.1.332 passes the hook and the model (measured, path replaced). */
const NOTICE_332 = (path: string) =>
  `Error: result (418,034 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to ${path}.\n` +
  "Format: Plain text\nSearch within the file for specific content, and use jq if the content is JSON.";
/** The notice 2.1.139 / 2.1.219 show the model. */
const NOTICE_219 = (path: string) =>
  `<persisted-output>\nOutput too large (554.8KB). Full output saved to: ${path}\n\nPreview (first 2KB):\n[`;
/** The notice of the recorded packets (Claude Code 2.1.19x). */
const NOTICE_PACKET =
  "Error: result (54,820 characters) exceeds maximum allowed tokens. Output has been saved to /logs/agent/" +
  "sessions/projects/-workspace/1cd41804-73c1-404f-b282-03728f8ffe99/tool-results/mcp-healthverse-cm_chart_" +
  "get_chart_data-1780646642250.txt.\nFormat: JSON with schema: {conditions: [{...}]}";

const PATHS: [string, string, string | null][] = [
  ["2.1.332's notice", NOTICE_332(FILE), FILE],
  ["2.1.219's persisted output", NOTICE_219(`${DIR}/toolu_e2e_bundle.json`), `${DIR}/toolu_e2e_bundle.json`],
  [
    "a packet's notice",
    NOTICE_PACKET,
    "/logs/agent/sessions/projects/-workspace/1cd41804-73c1-404f-b282-03728f8ffe99/tool-results/" +
    "mcp-healthverse-cm_chart_get_chart_data-1780646642250.txt",
  ],
  ["an ordinary result", '{"result":[{"case_id":"CASE-3903B8ED"}]}', null],
  ["a result quoting a notice further in", `{"note":"x"}\n${NOTICE_332(FILE)}`, null],
];
for (const [name, text, path] of PATHS) {
  s(`savedOutputPath: ${name}`, () => assert.is(savedOutputPath(text), path));
}

const SESSION_FILES: [string, string, string | undefined, boolean][] = [
  ["this session's file, beside its transcript", FILE, TRANSCRIPT, true],
  ["this session's file, no transcript path", FILE, undefined, true],
  ["another session's file", FILE.replace(SESSION, "other-session"), TRANSCRIPT, false],
  ["a transcript elsewhere", FILE, "/elsewhere/x.jsonl", false],
  ["a path that climbs", `${DIR}/../../../../etc/passwd`, TRANSCRIPT, false],
  ["not in tool-results", join(root, "projects", "-workspace", SESSION, "secret.txt"), TRANSCRIPT, false],
  ["any file", "/etc/passwd", undefined, false],
];
for (const [name, path, transcript, ok] of SESSION_FILES) {
  s(`isSessionToolResult: ${name}`, () => assert.is(isSessionToolResult(path, SESSION, transcript), ok));
}

const where = { session: SESSION, transcriptPath: TRANSCRIPT };

s("readSavedOutput: the file's text replaces the notice, and says so", () => {
  writeFileSync(FILE, '{"result":[{"case_id":"CASE-3903B8ED"}]}');
  const read = readSavedOutput([{ type: "text", text: NOTICE_332(FILE) }], where);
  assert.ok(read && "response" in read);
  assert.is(read.response, '{"result":[{"case_id":"CASE-3903B8ED"}]}');
  assert.match(read.note, /read from Claude Code's saved output \(\d+ bytes\)/);
});

s("readSavedOutput: a 2.1.2xx content-block file reads as the blocks", () => {
  const blocks = [{ type: "text", text: '{"id":"DOC-BUNDLE-7a1c9e42"}' }];
  assert.equal(savedOutputResponse(JSON.stringify(blocks)), blocks);
  assert.is(savedOutputResponse('["CASE-1"]'), '["CASE-1"]');
});

s("readSavedOutput: a file over the input limit is read as its first 1 MB and last 64 KB", () => {
  const big = join(DIR, "big.txt");
  writeFileSync(big, "H".repeat(1024 * 1024) + "M".repeat(300_000) + "CASE-TAIL0001");
  const read = readSavedOutput(NOTICE_332(big), where);
  assert.ok(read && "response" in read);
  const text = read.response as string;
  assert.ok(text.length < 1024 * 1024 + 70_000 && text.endsWith("CASE-TAIL0001") && !text.includes("HM"));
});

s("readSavedOutput: missing, foreign, or no notice", () => {
  assert.equal(readSavedOutput(NOTICE_332(join(DIR, "gone.txt")), where), {
    degraded: "saved output not read (ENOENT); the result's ids are lost",
  });
  assert.ok("degraded" in readSavedOutput(NOTICE_332("/etc/passwd.txt"), where)!);
  assert.is(readSavedOutput('{"ok":true}', where), null);
});

const event = (step: number, raw: string, tool: string | null, input: object, text: string): ToolEvent => ({
  id: `c${step}`,
  step,
  raw,
  tool,
  input: input as Record<string, unknown>,
  text,
  isError: false,
  answered: true,
  sidechain: false,
  batch: step,
});

s(
  "withSavedReads: what the agent read of the file follows the notice; unread or other files leave it",
  () => {
    const path = "/logs/s/projects/-w/S/tool-results/q.txt";
    const calls = [
      event(
        1,
        "mcp__healthverse__payer_intake_hub_list_intake_queue",
        "payer_intake_hub.list_intake_queue",
        {},
        NOTICE_332(path),
      ),
      event(2, "Bash", null, { command: `jq '.result[-1]' ${path}` }, '{"case_id":"CASE-3903B8ED"}'),
      event(3, "Read", null, { file_path: "/other.txt" }, "CASE-99999999"),
      event(4, "Read", null, { file_path: path, offset: 10 }, "PAT-968308DB"),
    ];
    const out = withSavedReads(calls);
    assert.equal(extractIds(out[0].text).filter((id) => /^(CASE|PAT)-/.test(id)).sort(), [
      "CASE-3903B8ED",
      "PAT-968308DB",
    ]);
    assert.ok(out[0].text.startsWith("Error: result"));
    assert.equal(out.slice(1), calls.slice(1));
    assert.is(withSavedReads([calls[0]])[0], calls[0]);
  },
);

const ROOTS = ["leaderboard", "leaderboard-extra"].map((p) =>
  join(import.meta.dirname ?? ".", "..", "..", "shared", p)
);

s("the real packets: no unseen-id rule fires on an id the agent read from a saved result", () => {
  const roots = ROOTS.filter(existsSync);
  if (!roots.length) throw new Error(`Cannot check saved outputs: ${ROOTS.join(" and ")} are absent.`);
  let read = 0;
  const wrong: string[] = [];
  for (const ref of findTrials(roots)) {
    if (!ref.trajectory) continue;
    const calls = toolEvents(readTrajectory(ref.trajectory)).calls;
    const joined = withSavedReads(calls);
    const seen = joined.filter((c, i) => c !== calls[i]).map((c) => c.text).join("\n");
    if (!seen) continue;
    read++;
    const { records } = replayArm(ref.name, "", joined, "checklist");
    for (const r of records) {
      if (!r.rules?.some((hit) => /^GLOBAL-0[245]$/.test(hit.id))) continue;
      // The message names the unseen id: "Cannot call <tool> with <arg>=<id>: …".
      for (const [, id] of (r.reason ?? "").matchAll(/ with [\w.]+=([^\s:]+):/g)) {
        if (seen.includes(id)) wrong.push(`${ref.name}: ${r.tool} on ${id}`);
      }
    }
  }
  assert.ok(read >= 20, `only ${read} trials read a saved result`);
  assert.equal(wrong, []);
});

s.run();
