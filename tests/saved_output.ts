/**
 * Claude Code's saved-output notice: the two shapes the real CLIs write, the session's own tool-results file
 * only, the bounded read the live guard does, and replay taking what the agent read of the file — on the
 * real packets, no unseen-id rule fires on an id the agent read there.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isSessionToolResult,
  savedOutputPath,
  savedOutputResponse,
} from "../lib/guard/engine/saved_output.ts";
import { readSavedOutput } from "../lib/guard/saved_output.ts";
import { withSavedReads } from "../lib/trajectories/saved_reads.ts";
import { projectDir, readsPath, resolvePath, type Shell } from "../lib/trajectories/shell_paths.ts";
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

const where = {
  session: SESSION,
  transcriptPath: TRANSCRIPT,
  tool: "mcp__healthverse__payer_intake_hub_list_intake_queue",
  toolUseId: "toolu_big_queue",
};
/** A file name Claude Code 2.1.332 would give this call's result, at `ms` (a fresh suffix each time). */
let suffix = 0;
const named = (ms = Date.now()) =>
  `mcp-healthverse-payer_intake_hub_list_intake_queue-${ms}-a${(suffix++).toString(36)}.txt`;

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
  const big = join(DIR, named());
  writeFileSync(big, "H".repeat(1024 * 1024) + "M".repeat(300_000) + "CASE-TAIL0001");
  const read = readSavedOutput(NOTICE_332(big), where);
  assert.ok(read && "response" in read);
  const text = read.response as string;
  assert.ok(text.length < 1024 * 1024 + 70_000 && text.endsWith("CASE-TAIL0001") && !text.includes("HM"));
});

s("readSavedOutput: missing, foreign, or no notice", () => {
  assert.equal(readSavedOutput(NOTICE_332(join(DIR, named(1796422913000))), where), {
    ignored: "saved-output notice ignored: the file was not read (ENOENT)",
  });
  assert.ok("ignored" in readSavedOutput(NOTICE_332("/etc/passwd.txt"), where)!);
  assert.is(readSavedOutput('{"ok":true}', where), null);
});

// What an agent's shell can do to the folder or the file (issue 40): each is ignored and noted, never read,
// and never degrades the session ("ignored", not "degraded").
const HOSTILE_SAVED: [string, () => string][] = [
  ["a hard link to a file elsewhere", () => {
    const outside = join(root, "outside-secret.txt");
    writeFileSync(outside, "root:SECRET-HASH");
    const path = join(DIR, named());
    linkSync(outside, path);
    return path;
  }],
  ["a symbolic link at the file's name", () => {
    writeFileSync(join(root, "outside-2.txt"), "root:SECRET-HASH");
    const path = join(DIR, named());
    symlinkSync(join(root, "outside-2.txt"), path);
    return path;
  }],
  ["a session folder that is a link to elsewhere", () => {
    const session = "linked-session";
    const elsewhere = join(root, "elsewhere", "tool-results");
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, named()), "root:SECRET-HASH");
    symlinkSync(join(root, "elsewhere"), join(root, "projects", "-workspace", session));
    return join(root, "projects", "-workspace", session, "tool-results", named());
  }],
  ["a file the agent named itself", () => {
    const path = join(DIR, "notes-by-the-agent.txt");
    writeFileSync(path, '{"case_id":"CASE-FORGED01"}');
    return path;
  }],
  ["a name older than the call", () => {
    const path = join(DIR, named(Date.now() - 3_600_000));
    writeFileSync(path, '{"case_id":"CASE-FORGED02"}');
    return path;
  }],
];
for (const [name, plant] of HOSTILE_SAVED) {
  s(`readSavedOutput ignores ${name}, and says so`, () => {
    const path = plant();
    const session = path.includes("linked-session") ? "linked-session" : SESSION;
    const transcript = join(root, "projects", "-workspace", `${session}.jsonl`);
    const read = readSavedOutput(NOTICE_332(path), {
      ...where,
      session,
      transcriptPath: transcript,
      startedMs: Date.now() - 60_000,
    });
    assert.ok(read && "ignored" in read, JSON.stringify(read));
    assert.match(read.ignored, "saved-output notice ignored");
  });
}

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
    assert.is(out[0].saved, path);
    assert.equal(withSavedReads([calls[0]])[0], { ...calls[0], saved: path });
  },
);

/** A saved file in the layout the packets show, and the directory Claude Code started the session in. */
const SAVED = "/logs/agent/sessions/projects/-workspace/5b1d7c2e-9a40-4f7e-8d13-2c6f0e1a7b94/tool-results/" +
  "mcp-healthverse-docs_list_case_documents-1790011122233.txt";
const RESULTS = SAVED.slice(0, SAVED.lastIndexOf("/"));
const BASE = SAVED.slice(SAVED.lastIndexOf("/") + 1);
const bash = (command: string, text = "") => ({ raw: "Bash", input: { command }, text });

const READS: [
  string,
  { raw: string; input: Record<string, unknown>; text?: string },
  string | null,
  boolean,
][] = [
  ["the full path", bash(`jq '.items[].id' ${SAVED}`), "/workspace", true],
  ["relative after cd, in one command", bash(`cd ${RESULTS} && head -c 3000 ${BASE}`), "/workspace", true],
  ["relative to a cwd an earlier command left", bash(`wc -c ./${BASE}`), RESULTS, true],
  [
    "a variable holding the name",
    bash(`cd ${RESULTS}\nN="${BASE}"\njq -r '.items[] | .id' "$N"`),
    null,
    true,
  ],
  [
    "${braced} variable and a parent directory",
    bash(`D=${RESULTS}/../tool-results; cat \${D}/${BASE}`),
    null,
    true,
  ],
  ["a glob", bash(`cd ${RESULTS}/.. && cat tool-results/mcp-*docs_list_case_documents*.txt`), null, true],
  [
    "a here-document script opening it",
    bash(
      `pushd ${RESULTS} >/dev/null\npython3 <<'PY'\nimport json\nwith open("${BASE}") as fh:\n  print(json.load(fh))\nPY`,
    ),
    null,
    true,
  ],
  [
    "a recursive search of its folder",
    bash(`grep -rho 'DOC-[A-Za-z0-9-]*' ${RESULTS}/.. | sort -u`),
    null,
    true,
  ],
  ["a Read by path", { raw: "Read", input: { file_path: SAVED, offset: 1, limit: 200 } }, null, true],
  [
    "a Grep over its folder by glob",
    { raw: "Grep", input: { pattern: "DOC-", path: RESULTS, glob: "*.txt" } },
    null,
    true,
  ],
  [
    "a codex command with its own workdir",
    { raw: "exec_command", input: { cmd: ["bash", "-lc", `sed -n 1,40p ${BASE}`], workdir: RESULTS } },
    null,
    true,
  ],
  ["another file in the folder", bash(`cd ${RESULTS} && cat other.txt`), null, false],
  ["the same name relative to another directory", bash(`cat ${BASE}`), "/workspace", false],
  ["a listing that does not name it", bash(`ls -la ${RESULTS}`), null, false],
  ["a relative name with no known directory", bash(`cat ${BASE}`), null, false],
  ["a non-recursive grep of the folder", bash(`grep DOC- ${RESULTS}`), null, false],
];
for (const [name, call, cwd, reads] of READS) {
  s(`readsPath: ${name}`, () => assert.is(readsPath(call, SAVED, { cwd }).reads, reads));
}

s("readsPath: the working directory carries over, and Claude Code's reset brings it back", () => {
  let shell: Shell = { cwd: projectDir(SAVED) };
  assert.is(shell.cwd, "/workspace");
  shell = readsPath(bash(`cd ${RESULTS}`), SAVED, shell).shell;
  assert.is(shell.cwd, RESULTS);
  assert.ok(readsPath(bash(`tail -c 2000 ${BASE}`), SAVED, shell).reads);
  shell =
    readsPath(bash(`cd ${RESULTS} && ls`, "Shell cwd was reset to /workspace\n\n[stdout]\nx"), SAVED, shell)
      .shell;
  assert.is(shell.cwd, "/workspace");
  assert.not.ok(readsPath(bash(`tail -c 2000 ${BASE}`), SAVED, shell).reads);
  assert.is(resolvePath("a/./b/../c", "/x"), "/x/a/c");
  assert.is(resolvePath("~/a", "/x"), null);
});

/** A provider trial: the case's documents saved to a file, part of it read after a `cd`, then a bundle. */
function bundleTrial(read: string, documents: string[]): ToolEvent[] {
  const notice = NOTICE_332(SAVED);
  return [
    event(1, "mcp__healthverse__docs_list_case_documents", "docs.list_case_documents", {
      case_id: "CASE-ACT-001",
    }, notice),
    event(2, "Bash", null, { command: `cd ${RESULTS}` }, ""),
    event(3, "Bash", null, { command: read }, '"DOC-4f1e2a9b"\n"DOC-77c0d3e1"'),
    event(4, "mcp__healthverse__docs_create_submission_bundle", "docs.create_submission_bundle", {
      case_id: "CASE-ACT-001",
      document_ids: documents,
    }, '{"bundle_document":{"id":"DOC-BUNDLE-0a1b2c3d"}}'),
  ];
}
const PROVIDER = "# Clinical Intake\n- Use only provider namespaces: `cases`, `docs`, `auth`\nCASE-ACT-001";

s(
  "replay: a saved result read by a name relative to the directory a cd left grounds its ids: no GLOBAL-05",
  () => {
    for (const arm of ["checklist", "critic"] as const) {
      const calls = withSavedReads(bundleTrial(`jq '.items[].id' ${BASE}`, ["DOC-4f1e2a9b", "DOC-77c0d3e1"]));
      const { records, result } = replayArm("t", PROVIDER, calls, arm);
      assert.not.ok(
        records.some((r) => r.rules?.some((h) => h.id === "GLOBAL-05" || h.id === "CRITIC")),
        arm,
      );
      assert.is(result.unobservable, undefined, arm);
    }
  },
);

s("replay: an id a saved result may hold but the agent did not read is not observable, never a block", () => {
  const calls = withSavedReads(
    bundleTrial(`jq '.items[0:2][].id' ${BASE}`, ["DOC-4f1e2a9b", "DOC-c3d9e0f7"]),
  );
  const { records, result } = replayArm("t", PROVIDER, calls, "checklist");
  const pre = records.find((r) => r.event === "pre" && r.tool === "docs.create_submission_bundle")!;
  assert.is(pre.decision, "allow");
  assert.match(pre.note ?? "", /not observable in replay: GLOBAL-05 .* docs\.list_case_documents \(step 1\)/);
  assert.equal(Object.keys(result.unobservable ?? {}), ["GLOBAL-05"]);
  assert.equal(result.rules, {});
  // An id the simulator said does not exist could not have been in the saved result: a block.
  const refused = event(5, "mcp__healthverse__docs_get_document", "docs.get_document", {
    document_id: "DOC-c3d9e0f7",
  }, "Error executing tool docs.get_document: No document found with id 'DOC-c3d9e0f7'.");
  const known = replayArm("t", PROVIDER, [...calls, { ...refused, isError: true }], "checklist");
  assert.equal(Object.keys(known.result.rules), ["GLOBAL-05"]);
  assert.is(known.result.unobservable, undefined);
  // Without a saved result before it, the same unseen id is a block.
  const plain = calls.map((c) =>
    c.tool === "docs.list_case_documents" ? { ...c, text: "{}", saved: undefined } : c
  );
  const direct = replayArm("t", PROVIDER, plain, "checklist");
  assert.equal(Object.keys(direct.result.rules), ["GLOBAL-05"]);
  assert.is(direct.result.unobservable, undefined);
});

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
