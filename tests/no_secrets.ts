/**
 * No secret reaches anything fiable writes: credentials of every common shape (the ones below, and every
 * shape of `tests/support/credentials.ts`: secretlint's preset, gitleaks' and #32's) are planted in prompts, tool
 * inputs (plain, under secret-named keys, in rule-quoted arguments), results, errors, a crashed post and an
 * oversized one; the guard runs under Deno and the Node bundle, then replay, aggregate and the dashboard's
 * transcript run end to end on a one-trial packet. Every file written and every reply is searched: zero hits.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { loadEvidence, writeCheckpoint } from "../lib/guard/ledger/checkpoint.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGuard, runtimes, tempLedger } from "./support/guard_process.ts";
import { post, postFail, pre, prompt, PROVIDER_PROMPT, stop } from "./support/payloads.ts";
import { claudeV12, mcpJson, PROMPTS, writeTrials } from "./support/atif_fixture.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { main as aggregateMain } from "../aggregate.ts";
import { quietly } from "./support/quiet.ts";
import { createApp } from "../dashboard/app.tsx";
import { CREDENTIALS } from "./support/credentials.ts";

/** Credential-shaped values (made up), one per kind. */
const SECRETS: Record<string, string> = {
  anthropic: `sk-ant-api03-${"q7Rt2LmX9vBn4KpW".repeat(4)}`,
  openaiProject: `sk-proj-${"Hq3Lm9Xv2Rt7Bn4K".repeat(3)}`,
  aws: "AKIAQ3EGRTXL7HZK2M4P",
  github: `ghp_${"aB3dE5fG7hJ9kL1mN2pQ".repeat(2)}`,
  githubPat: `github_pat_11AAAAAAA0${"xY7kQ2".repeat(6)}`,
  huggingFace: "hf_QwErTyUiOp1234567890AsDfGh",
  jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ." +
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  hex40: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
  base64: "Q2xhdWRlIGlzIGFuIEFJIGFzc2lzdGFudCBtYWRlIGJ5IEFudGhyb3BpYw9x",
};
/** A plain-looking value that is secret only by its key (`auth`, `Authorization`, `cookie`). */
const BY_KEY = "session-value-for-member-portal";
/** Each planted value as it is planted (a key with its name, URL or PEM lines) and the part that must not leak. */
const PLANTED: { kind: string; text: string; secret: string }[] = [
  ...Object.entries(SECRETS).map(([kind, value]) => ({ kind, text: value, secret: value })),
  ...CREDENTIALS.map((c) => ({ kind: c.name, text: c.text, secret: c.secret })),
];
const ALL = PLANTED.map((p) => p.text).join(" and ");

/** Every way a secret could show: as planted, upper-cased (ids are normalised), or a 12-character piece of it. */
function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const { kind, secret: value } of PLANTED) {
    const piece = value.slice(Math.floor(value.length / 2) - 6, Math.floor(value.length / 2) + 6);
    for (const form of [value, value.toUpperCase(), piece]) if (text.includes(form)) found.push(kind);
  }
  if (text.includes(BY_KEY)) found.push("value under a secret-named key");
  return [...new Set(found)];
}

/** Every file below a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function assertClean(what: string, text: string): void {
  const leaks = leaksIn(text);
  assert.equal(leaks, [], `${what} holds ${leaks.join(", ")}`);
}

function assertFilesClean(dir: string): number {
  const files = filesUnder(dir);
  for (const file of files) assertClean(file, readFileSync(file, "latin1") + readFileSync(file, "utf8"));
  return files.length;
}

const INPUT = {
  case_id: SECRETS.aws,
  note: `pasted ${ALL}`,
  auth: BY_KEY,
  Authorization: `Bearer ${SECRETS.anthropic}`,
  nested: { cookie: BY_KEY, list: [SECRETS.jwt, `token ${SECRETS.hex40}`] },
};
const RESULT = { case: { id: "CASE-ACT-001" }, token: BY_KEY, api_key: SECRETS.openaiProject, text: ALL };

const s = suite("no secrets");

s("the leak check itself finds every planted kind", () => {
  assert.is(leaksIn(`${ALL} ${BY_KEY}`).length, new Set(PLANTED.map((p) => p.kind)).size + 1);
  assert.is(leaksIn(SECRETS.github.toUpperCase()).length, 1);
});

for (const runtime of await runtimes()) {
  s(`guard (${runtime.name}): ledger, replies and stderr hold no secret`, async () => {
    const dir = tempLedger();
    const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" };
    const session = "leak";
    const runs = [
      await runGuard(
        runtime,
        "prompt",
        prompt(session, `${PROVIDER_PROMPT}\n${ALL}\nauth: ${SECRETS.hex40}`),
        env,
      ),
      await runGuard(runtime, "pre", pre(session, "auth_submit_authorization", INPUT), env),
      await runGuard(runtime, "post", post(session, "cases_create_from_order", INPUT, RESULT), env),
      await runGuard(runtime, "post", post(session, "chart_search_patients", {}, `plain text ${ALL}`), env),
      await runGuard(
        runtime,
        "post-fail",
        postFail(session, "docs_create_submission_bundle", INPUT, ALL),
        env,
      ),
      await runGuard(runtime, "post", post(session, "cases_create_from_order", INPUT, RESULT), {
        ...env,
        FIABLE_FAULT: "crash",
      }),
      await runGuard(
        runtime,
        "post",
        post(session, "cases_create_from_order", INPUT, { ...RESULT, blob: "x ".repeat(700_000) }),
        env,
      ),
      await runGuard(runtime, "stop", stop(session), env),
    ];
    for (const run of runs) {
      assert.is(run.code, 0);
      assertClean("a reply", run.stdout);
      assertClean("stderr", run.stderr);
    }
    const ledger = readFileSync(join(dir, "leak.jsonl"), "utf8");
    // The planted events were recorded (a vacuous pass would find no secret in an empty ledger).
    assert.ok(ledger.split("\n").filter(Boolean).length >= 8, ledger.slice(0, 400));
    assert.match(ledger, "[redacted]");
    // The session's checkpoint (written here in-process: eight events are too few for a hook to write one).
    const loaded = loadEvidence(dir, session);
    writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
    assert.ok(readdirSync(dir).some((f) => f.includes(".fold-")), "no checkpoint was written");
    assertFilesClean(dir);
  });
}

s("replay, aggregate and the dashboard transcript of a trial full of secrets hold none", async () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-secrets-"));
  const packet = join(root, "packet");
  const trajectory = claudeV12(`${PROMPTS.provider}\nKeys: ${ALL}\n`, [
    {
      name: "cases_create_from_order",
      args: { patient_id: "PAT-1", auth: BY_KEY },
      result: mcpJson(JSON.stringify(RESULT)),
    },
    { name: "auth_submit_authorization", args: INPUT, result: mcpJson(`submitted with ${ALL}`) },
  ]);
  const trial = {
    domain: "pa_provider",
    name: "pa_t001_new_referral__secrets",
    file: "trajectory.jsonl",
    trajectory,
    reward: 0,
    checks: { "provider_pre_submission.provider_determination_present": false },
  };
  writeTrials(packet, [trial]);
  // The same trial as a guarded arm's, for aggregate to join the replay ledgers to.
  writeTrials(join(root, "guarded"), [trial]);
  writeFileSync(join(packet, "results.csv"), "agent,model\n");
  const replayed = join(root, "replay-out");
  await replayTrees([packet], { arms: ["checklist"], out: replayed, workers: 0 });
  assert.ok(assertFilesClean(replayed) >= 1, "replay wrote no ledger");

  const aggregated = join(root, "aggregate-out");
  const { value: code } = await quietly(() =>
    aggregateMain([
      "--arm",
      `stock=${packet}`,
      "--arm",
      `checklist=${join(root, "guarded")}`,
      "--ledgers",
      `checklist=${join(replayed, "checklist")}`,
      "--out",
      aggregated,
      "--iters",
      "10",
    ])
  );
  assert.is(code, 0);
  assert.ok(assertFilesClean(aggregated) >= 1, "aggregate wrote nothing");

  const { app, store } = createApp({ logs: [root], results: [] }, { scanMs: 0, tailMs: 0 });
  store.refresh({ scanMs: 0, tailMs: 0 });
  const row = store.rows().find((r) => r.name === "pa_t001_new_referral__secrets");
  assert.ok(row, "the dashboard lists the trial");
  const html = await (await app.request(`/trials/${row!.id}`)).text();
  assert.match(html, "cases_create_from_order");
  assertClean("the transcript page", html);
});

s.run();
