/**
 * fiable-cc's `populate_context_post_run` under the real Harbor 0.20 (../shared/sources/harbor, run with
 * `sh ../shared/tools/chi-bench-python.sh`): on a finished guarded trial it adds the guard's facts to the agent
 * context, and Harbor's own `TrialResult` writes them into result.json as `agent_result.metadata.fiable_guard`;
 * without node on the host it says why instead, and the trial still gets its result.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { factsIn } from "../lib/results/guard_facts.ts";
import { findTrials } from "../lib/results/trials.ts";
import { writeSamples } from "../lib/samples/trials.ts";
import { testBundle } from "./support/guard_process.ts";
import { chiBenchPython } from "./support/chibench_python.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const DRIVER = join(ROOT, "tests", "support", "harness_facts_drive.py");
const s = suite("harness_facts");
const py = chiBenchPython();
const work = mkdtempSync(join(tmpdir(), "fiable-harness-facts-"));
s.after(() => rmSync(work, { recursive: true, force: true }));

/** The harness as install.ts installs it: the template beside the guard bundle. */
async function module(): Promise<string> {
  const dir = join(work, "module");
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(ROOT, "templates", "fiable_cc.py"), join(dir, "fiable_cc_harness.py"));
  copyFileSync(await testBundle(), join(dir, "fiable_guard.cjs"));
  return dir;
}

/** A finished guarded sample trial, copied (the driver writes its result.json). */
function guardedTrial(name: string): string {
  const samples = join(work, "samples");
  writeSamples(samples);
  const ref = findTrials([join(samples, "checklist")])[0];
  const dir = join(work, name, "pa_um", ref.name);
  cpSync(ref.dir, dir, { recursive: true });
  return dir;
}

function drive(mod: string, trial: string, path: string) {
  return spawnSync((py as { python: string }).python, [DRIVER, trial, "checklist"], {
    encoding: "utf8",
    env: { PATH: path, HOME: work, PYTHONPATH: mod },
  });
}

s(
  "Harbor's TrialResult writes the facts into result.json as agent_result.metadata.fiable_guard",
  async () => {
    if ("why" in py) return console.warn(`  (skipped: ${py.why})`);
    const trial = guardedTrial("with-node");
    const run = drive(await module(), trial, Deno.env.get("PATH") ?? "");
    assert.is(run.status, 0, run.stderr);
    const result = JSON.parse(readFileSync(join(trial, "result.json"), "utf8"));
    assert.equal(Object.keys(result.agent_result.metadata), ["fiable_guard"]);
    assert.equal(JSON.parse(run.stdout), result.agent_result.metadata, "the context Harbor serialised");
    const read = factsIn(result, join(trial, "result.json"));
    assert.ok(read && "facts" in read, JSON.stringify(read));
    const facts =
      (read as { facts: { arm: string; coverage: { calls: number; covered: number } | null } }).facts;
    assert.is(facts.arm, "checklist");
    assert.ok(facts.coverage && facts.coverage.calls > 0 && facts.coverage.covered === facts.coverage.calls);
  },
);

s("without node on the host the trial still gets its result.json, saying why it has no facts", async () => {
  if ("why" in py) return console.warn(`  (skipped: ${py.why})`);
  const trial = guardedTrial("without-node");
  const bare = join(work, "bin");
  mkdirSync(bare, { recursive: true });
  // A PATH with nothing on it: the interpreter is run by its path, and node is nowhere to be found.
  const run = drive(await module(), trial, bare);
  assert.is(run.status, 0, run.stderr);
  const result = JSON.parse(readFileSync(join(trial, "result.json"), "utf8"));
  assert.equal(result.agent_result.metadata, {
    fiable_guard_error:
      "node is not on the PATH of the host Harbor runs on; fiable-cc needs Node >= 20 there",
  });
});

s.run();
