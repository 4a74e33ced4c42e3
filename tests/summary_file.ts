/**
 * The contract between replay and the dashboard (lib/trajectories/summary_file.ts): the summary.json replay
 * writes is the schema's, with its version and each trial's key; a file of another version, or one that is
 * not what replay writes, is refused in one line that says what to run; and `trialKey` names a trial the same
 * wherever its tree is read, apart from a same-named trial of another packet or job.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { parseSummaryFile, SUMMARY_FILE, SUMMARY_VERSION } from "../lib/trajectories/summary_file.ts";
import { findTrials, trialKey } from "../lib/results/trials.ts";
import { writeTrials } from "./support/atif_fixture.ts";
import { Store } from "../dashboard/read/store.ts";

const s = suite("summary.json");
const root = mkdtempSync(join(tmpdir(), "fiable-summary-"));
s.after(() => rmSync(root, { recursive: true, force: true }));
const trials = join(root, "packet");
writeTrials(trials);
const out = join(root, "replay");
const report = await replayTrees([trials], { arms: ["checklist"], out, workers: 0, columnar: false });
const path = join(out, SUMMARY_FILE);
const text = readFileSync(path, "utf8");

s("replay writes the schema's file: its version, and every trial with its key", () => {
  const file = parseSummaryFile(text, path);
  if ("why" in file) throw new Error(file.why);
  assert.is(file.version, SUMMARY_VERSION);
  assert.is(file.trials.length, report.trials.length);
  for (const t of file.trials) assert.is(t.key, trialKey(t.dir));
  assert.equal(file.arms, ["checklist"]);
});

const refused = (edit: (data: Record<string, unknown>) => void) => {
  const data = JSON.parse(text);
  edit(data);
  const got = parseSummaryFile(JSON.stringify(data), path);
  return "why" in got ? got.why : null;
};

for (
  const [name, edit, says] of [
    ["no version (a replay before it had one)", (d) => delete d.version, "without a version (written before"],
    ["another version", (d) => (d.version = 1), "summary.json version 1, and this dashboard reads version 2"],
    [
      "a trial without its key",
      (d) => delete (d.trials as Record<string, unknown>[])[0].key,
      "it is not what replay writes (✖",
    ],
    [
      "an arm replay does not have",
      (d) => (d.arms = ["sloppy"]),
      "it is not what replay writes (✖",
    ],
  ] as [string, (d: Record<string, unknown>) => void, string][]
) {
  s(`refused in one line that says what to run: ${name}`, () => {
    const why = refused(edit);
    assert.ok(why, "refused");
    assert.match(why!, `Cannot read ${path}: `);
    assert.match(why!, says);
    assert.match(why!, /Run deno task replay again with the same --out$/);
    assert.not.match(why!, "\n");
  });
}

s("not JSON is refused too", () => {
  const got = parseSummaryFile("{ cut sho", path);
  assert.ok("why" in got && got.why.startsWith(`Cannot read ${path}: it is not JSON`));
});

s("a trial's key: its packet and its name, the same wherever the tree is read, apart across jobs", () => {
  const [one] = findTrials([trials]);
  const copy = join(root, "elsewhere");
  cpSync(trials, copy, { recursive: true });
  const moved = findTrials([copy]).find((t) => t.name === one.name)!;
  assert.is(trialKey(moved.dir), trialKey(one.dir), "a copy keeps its keys");
  const jobs = join(root, "jobs");
  for (const job of ["job-a", "job-b"]) {
    mkdirSync(join(jobs, job, "t__Same001"), { recursive: true });
    writeFileSync(join(jobs, job, "t__Same001", "trial.log"), "");
  }
  assert.is.not(trialKey(join(jobs, "job-a", "t__Same001")), trialKey(join(jobs, "job-b", "t__Same001")));
});

s("the dashboard says why it cannot read a summary.json, and shows its trials without verdicts", () => {
  const old = join(root, "old");
  cpSync(out, old, { recursive: true });
  const data = JSON.parse(text);
  delete data.version;
  writeFileSync(join(old, SUMMARY_FILE), JSON.stringify(data));
  const store = new Store({ logs: [trials], results: [old], duckdb: false });
  store.refresh({ scanMs: 0, tailMs: 0 });
  assert.ok(
    store.summaryNotes().some((n) => n.includes("without a version")),
    store.summaryNotes().join(" "),
  );
  assert.ok(store.rows().every((r) => r.replays.every((m) => !m.verdict)));
  const fresh = new Store({ logs: [trials], results: [out], duckdb: false });
  fresh.refresh({ scanMs: 0, tailMs: 0 });
  assert.ok(fresh.rows().some((r) => r.replays.some((m) => m.verdict)), "the current file gives verdicts");
});

s.run();
