/** guard.ts as Claude Code runs it: real processes, real stdin payloads, under Deno and the Node bundle. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { type GuardRun, runGuard, runtimes, tempLedger } from "./support/guard_process.ts";
import { post, pre, prompt, PROVIDER_PROMPT, stop } from "./support/payloads.ts";
import { slowdown } from "./support/slowdown.ts";

const SUBMIT = ["auth_submit_authorization", { case_id: "CASE-ACT-001" }] as const;

function ledgerOf(dir: string, session: string) {
  const file = join(dir, `${session}.jsonl`);
  return existsSync(file) ? parseLedger(readFileSync(file, "utf8")) : { records: [], corrupt: 0 };
}

function decision(run: GuardRun): string {
  const reply = run.reply() as { hookSpecificOutput?: { permissionDecision?: string } };
  return reply.hookSpecificOutput?.permissionDecision ?? "";
}

for (const runtime of await runtimes()) {
  const s = suite(`guard (${runtime.name})`);
  const env = (dir: string, extra: Record<string, string> = {}) => ({
    FIABLE_LEDGER_DIR: dir,
    FIABLE_CC_ARM: "checklist",
    ...extra,
  });

  s("denies a premature submission with the rule ID and the fix, exit 0", async () => {
    const dir = tempLedger();
    const run = await runGuard(runtime, "pre", pre("s1", ...SUBMIT), env(dir));
    assert.is(run.code, 0);
    assert.is(decision(run), "deny");
    const reason =
      (run.reply().hookSpecificOutput as { permissionDecisionReason: string }).permissionDecisionReason;
    assert.match(reason, "[PP-01]");
    assert.match(reason, "auth_finalize_provider_determination");
    const { records } = ledgerOf(dir, "s1");
    assert.is(records.length, 1);
    assert.is(records[0].decision, "deny");
    assert.equal(
      records[0].rules?.find((h) => h.id === "PP-01")?.checks.includes(
        "provider_pre_submission.provider_determination_present",
      ),
      true,
    );
  });

  s("allows the submission once the determination result is in the ledger", async () => {
    const dir = tempLedger();
    const decided = {
      case_id: "CASE-ACT-001",
      final_action: "submit_pa",
      override_reason: "All criteria met.",
    };
    // The happy path's earlier steps: the case and its bundle (other rules want them before a submission).
    const created = { case: { id: "CASE-ACT-001", status: "draft" } };
    await runGuard(
      runtime,
      "post",
      post("s2", "cases_create_from_order", { patient_id: "PAT-1" }, created),
      env(dir),
    );
    const bundle = { document: { id: "DOC-BUNDLE-c77bc09c", case_id: "CASE-ACT-001" } };
    await runGuard(
      runtime,
      "post",
      post("s2", "docs_create_submission_bundle", { case_id: "CASE-ACT-001" }, bundle),
      env(dir),
    );
    await runGuard(
      runtime,
      "post",
      post("s2", "auth_finalize_provider_determination", decided, { case_id: "CASE-ACT-001" }),
      env(dir),
    );
    const run = await runGuard(runtime, "pre", pre("s2", ...SUBMIT), env(dir));
    assert.is(decision(run), "allow");
  });

  s("releases after the block budget and records the release", async () => {
    const dir = tempLedger();
    const runs = [];
    for (let i = 0; i < 3; i++) {
      runs.push(decision(await runGuard(runtime, "pre", pre("s3", ...SUBMIT), env(dir))));
    }
    assert.equal(runs, ["deny", "deny", "allow"]);
    assert.equal(ledgerOf(dir, "s3").records.map((r) => r.decision), ["deny", "deny", "release"]);
  });

  s("shadow arm records the would-be deny and allows", async () => {
    const dir = tempLedger();
    const run = await runGuard(runtime, "pre", pre("s4", ...SUBMIT), env(dir, { FIABLE_CC_ARM: "shadow" }));
    assert.is(decision(run), "allow");
    assert.is(ledgerOf(dir, "s4").records[0].decision, "shadow");
  });

  s("stock arm allows and records nothing", async () => {
    const dir = tempLedger();
    const run = await runGuard(runtime, "pre", pre("s5", ...SUBMIT), env(dir, { FIABLE_CC_ARM: "stock" }));
    assert.is(decision(run), "allow");
    assert.is(existsSync(join(dir, "s5.jsonl")), false);
  });

  s("an unknown arm behaves as shadow, says so in one stderr line and in the ledger", async () => {
    const dir = tempLedger();
    const run = await runGuard(runtime, "pre", pre("s6", ...SUBMIT), env(dir, { FIABLE_CC_ARM: "critc" }));
    assert.is(run.code, 0);
    assert.is(decision(run), "allow");
    const warning = 'fiable-guard: unknown FIABLE_CC_ARM "critc"; running as shadow (records, blocks ' +
      "nothing). Use one of: stock, shadow, plan, checklist, critic";
    assert.equal(run.stderr.split("\n").filter(Boolean), [warning]);
    const [record] = ledgerOf(dir, "s6").records;
    assert.is(record.decision, "shadow");
    assert.ok((record.note ?? "").includes(warning), record.note);
  });

  s("a known arm writes nothing to stderr", async () => {
    const run = await runGuard(runtime, "pre", pre("s6b", ...SUBMIT), env(tempLedger()));
    assert.is(run.stderr, "");
  });

  s("plan arm answers the task prompt with the role plan as additionalContext", async () => {
    const dir = tempLedger();
    const run = await runGuard(
      runtime,
      "prompt",
      prompt("s7", PROVIDER_PROMPT),
      env(dir, { FIABLE_CC_ARM: "plan" }),
    );
    const out = run.reply().hookSpecificOutput as { hookEventName: string; additionalContext: string };
    assert.is(out.hookEventName, "UserPromptSubmit");
    assert.match(out.additionalContext, "provider");
    assert.is(ledgerOf(dir, "s7").records[0].seat, "provider");
  });

  s("the stop gate blocks with open obligations, then releases after its budget", async () => {
    const dir = tempLedger();
    await runGuard(runtime, "prompt", prompt("s8", PROVIDER_PROMPT), env(dir));
    const replies = [];
    for (let i = 0; i < 4; i++) {
      replies.push(((await runGuard(runtime, "stop", stop("s8"), env(dir))).reply()).decision);
    }
    assert.equal(replies, ["block", "block", "block", undefined]);
    const stops = ledgerOf(dir, "s8").records.filter((r) => r.event === "stop");
    assert.equal(stops.map((r) => r.decision), ["block", "block", "block", "release"]);
    assert.match(stops[0].reason ?? "", "cases_create_from_order");
  });

  const BAD_INPUT: [string, string, string][] = [
    ["empty stdin", "", "stdin was empty"],
    ["not JSON", "{not json", "not JSON"],
    ["an object for another event", stop("s9"), "registered for PreToolUse"],
    ["missing fields", JSON.stringify({ session_id: "s9", hook_event_name: "PreToolUse" }), "tool_name"],
    ["a JSON array", "[1,2,3]", "Cannot read the hook input"],
  ];
  for (const [name, stdin, why] of BAD_INPUT) {
    s(`bad input (${name}): allow, one JSON object, exit 0, error recorded`, async () => {
      const dir = tempLedger();
      const run = await runGuard(runtime, "pre", stdin, env(dir));
      assert.is(run.code, 0);
      assert.is(decision(run), "allow");
      const records = ledgerOf(dir, "s9").records.concat(ledgerOf(dir, "unknown-session").records);
      assert.is(records.length, 1);
      assert.is(records[0].decision, "error");
      assert.match(records[0].note ?? "", why);
    });
  }

  s("a 10 MB tool_input is answered within the budget and stored capped", async () => {
    const dir = tempLedger();
    const big = pre("s10", "auth_submit_authorization", {
      case_id: "CASE-ACT-001",
      blob: "x".repeat(10_000_000),
    });
    const run = await runGuard(runtime, "pre", big, env(dir));
    assert.is(run.code, 0);
    assert.ok(["allow", "deny"].includes(decision(run)));
    const line = readFileSync(join(dir, "s10.jsonl"), "utf8");
    assert.ok(line.length < 100_000, `ledger line is ${line.length} characters`);
  });

  s("a crash inside the guard allows the call and records why", async () => {
    const dir = tempLedger();
    const run = await runGuard(runtime, "pre", pre("s11", ...SUBMIT), env(dir, { FIABLE_FAULT: "crash" }));
    assert.is(decision(run), "allow");
    const [record] = ledgerOf(dir, "s11").records;
    assert.is(record.decision, "error");
    assert.match(record.note ?? "", "fault injected: crash");
  });

  s("an error in command mode before its event starts still answers allow, once, with exit 0", async () => {
    const dir = tempLedger();
    const run = await runGuard(
      runtime,
      "pre",
      pre("s11b", ...SUBMIT),
      env(dir, { FIABLE_FAULT: "crash-command" }),
    );
    assert.is(decision(run), "allow");
    assert.is(run.code, 0);
    assert.is(run.stdout.trim().split("\n").length, 1, run.stdout);
    assert.match(run.stderr, "crash-command");
  });

  s("a hung decision is cut off by the time budget: allow, error recorded", async () => {
    const dir = tempLedger();
    const profile = join(dir, "profile.yaml");
    writeFileSync(profile, "budgets:\n  decision_ms: 300\n");
    const before = slowdown();
    const run = await runGuard(
      runtime,
      "pre",
      pre("s12", ...SUBMIT),
      env(dir, { FIABLE_FAULT: "hang", FIABLE_PROFILE: profile }),
    );
    assert.is(decision(run), "allow");
    // Cut off, not hung: within 5 s of an idle machine (the run's time over the slowdown around it).
    const load = Math.max(before, slowdown());
    assert.ok(run.ms / load < 5000, `took ${Math.round(run.ms)} ms at ${load.toFixed(1)}x slowdown`);
    const records = ledgerOf(dir, "s12").records;
    assert.is(records[0]?.decision, "error");
    assert.match(records[0]?.note ?? "", "time budget of 300 ms overrun");
  });

  s(
    "a SIGTERM mid-hook (Claude Code giving up on it) still answers allow, exits 0 and records why",
    async () => {
      const dir = tempLedger();
      const profile = join(dir, "profile.yaml");
      writeFileSync(profile, "budgets:\n  decision_ms: 20000\n");
      // Deno.Command, not node:child_process: Deno's child_process reports a signalled child's own exit 0 as
      // "killed by SIGTERM".
      const [cmd, ...args] = runtime.argv("pre");
      const child = new Deno.Command(cmd, {
        args,
        env: {
          ...env(dir, { FIABLE_FAULT: "hang", FIABLE_PROFILE: profile }),
          PATH: Deno.env.get("PATH") ?? "",
        },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(pre("s12t", ...SUBMIT)));
      await writer.close();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while (!seen.includes("fault injected: hang")) {
        const { value, done } = await stderr.read();
        if (done) break;
        seen += value;
      }
      child.kill("SIGTERM");
      const [status, stdout] = await Promise.all([child.status, new Response(child.stdout).text()]);
      await stderr.cancel();
      assert.is(status.code, 0, seen);
      assert.equal(JSON.parse(stdout).hookSpecificOutput.permissionDecision, "allow");
      const [record] = ledgerOf(dir, "s12t").records;
      assert.is(record?.decision, "error");
      assert.match(record?.note ?? "", "SIGTERM received mid-hook; allowed");
    },
  );

  s("a profile holding a literal secret is refused without echoing it; the guard still answers", async () => {
    const dir = tempLedger();
    const profile = join(dir, "profile.yaml");
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    writeFileSync(profile, `live_token: ${secret}\n`);
    const run = await runGuard(runtime, "pre", pre("s13", ...SUBMIT), env(dir, { FIABLE_PROFILE: profile }));
    assert.is(decision(run), "deny");
    const text = readFileSync(join(dir, "s13.jsonl"), "utf8");
    assert.match(text, "live_token: Anthropic key");
    assert.not.match(text, secret);
    assert.not.match(run.stderr + run.stdout, secret);
  });

  s("32 concurrent hook processes on one session: every record present, every line valid", async () => {
    const dir = tempLedger();
    // This test is about concurrent appends, not the time budget: give 32 processes on 2 cores room to finish.
    const profile = join(dir, "profile.yaml");
    writeFileSync(profile, "budgets:\n  decision_ms: 30000\n");
    const runs = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        runGuard(
          runtime,
          "post",
          post("s14", "chart_get_patient_chart_by_patient", { patient_id: "PAT-c7e617a246b7" }, {
            patient: { id: "PAT-c7e617a246b7" },
            note: "y".repeat(2000 + i),
          }, `toolu_${i}`),
          env(dir, { FIABLE_PROFILE: profile }),
        )),
    );
    assert.ok(runs.every((r) => r.code === 0));
    const { records, corrupt } = ledgerOf(dir, "s14");
    assert.is(corrupt, 0);
    assert.is(records.length, 32);
    assert.is(new Set(records.map((r) => r.tool_use_id)).size, 32);
  });

  s(
    "a corrupt ledger line is skipped, not fatal, and what it held may be missing: rules from absence record",
    async () => {
      const dir = tempLedger();
      writeFileSync(join(dir, "s15.jsonl"), '{"v":1,"event":"pre","decis\n');
      const run = await runGuard(runtime, "pre", pre("s15", ...SUBMIT), env(dir));
      assert.is(decision(run), "allow");
      const last = parseLedger(readFileSync(join(dir, "s15.jsonl"), "utf8")).records.at(-1)!;
      assert.is(last.decision, "shadow");
      assert.match(last.note ?? "", "evidence degraded");
    },
  );

  s.run();
}
