/**
 * The guard under hostile input, as Claude Code runs it (one process per event) under Deno and the Node
 * bundle: huge, deep, truncated and binary inputs, an unbroken 7 MB token, a 100 MB ledger, colliding and
 * path-like session ids, evidence lost to a crash or an overrun. Every case answers one JSON object that
 * allows, exits 0, answers within the 1.5 s budget above the runtime's own start, and records why.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ledgerFileName, parseLedger, readLedger } from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { type GuardRun, runGuard, runtimes, serveGuard, tempLedger } from "./support/guard_process.ts";
import { post, pre, prompt, PROVIDER_PROMPT, stop } from "./support/payloads.ts";
import { slowdown } from "./support/slowdown.ts";

/** The decision budget (the default `decision_ms`). */
const BUDGET_MS = 1500;
const QUEUE_CASE = "CASE-0A1B2C3D";

/** Every record a ledger dir holds, from every file. */
function allRecords(dir: string): LedgerRecord[] {
  return readdirSync(dir).filter((f) => f.endsWith(".jsonl"))
    .flatMap((f) => parseLedger(readFileSync(join(dir, f), "utf8")).records);
}

/** A value nested `depth` levels deep around a leaf. */
function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

/** The queue result that returns a case id, with a hostile extra field. */
function queue(session: string, extra: unknown, id = "toolu_q"): string {
  return post(session, "payer_intake_hub_list_intake_queue", {}, {
    result: [{ case_id: QUEUE_CASE }],
    extra,
  }, id);
}

/** The legitimate next call on the case the queue returned (GLOBAL-02 denies it when the id was never seen). */
const DISPOSE = (session: string) =>
  pre(session, "triage_set_disposition", { case_id: QUEUE_CASE }, "toolu_d");

function permission(run: GuardRun): string | undefined {
  return (run.reply().hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;
}

/** 100 MB hook inputs, written once for both runtimes and given as a file on stdin. */
const HUGE_DIR = tempLedger();
const HUGE_PRE = { path: join(HUGE_DIR, "pre.json") };
const HUGE_POST = { path: join(HUGE_DIR, "post.json") };
writeFileSync(
  HUGE_PRE.path,
  pre("huge-pre", "auth_submit_authorization", { case_id: "CASE-ACT-001", blob: "x".repeat(100_000_000) }),
);
writeFileSync(HUGE_POST.path, queue("huge-post", "y".repeat(100_000_000), "toolu_tail"));

for (const runtime of await runtimes()) {
  const s = suite(`hostile (${runtime.name})`);
  const env = (dir: string, extra: Record<string, string> = {}) => ({
    FIABLE_LEDGER_DIR: dir,
    FIABLE_CC_ARM: "checklist",
    ...extra,
  });
  const profiles = tempLedger();
  /**
   * One guard process, with how loaded the machine was around it (tests/support/slowdown.ts). The guard's own
   * budget is wall-clock: on a loaded machine a 100 MB input outlasts 1.5 s and the overrun is what it records,
   * not what the case is about. So there its budget is stretched as the machine is (a profile's decision_ms):
   * the same CPU time as 1.5 s of an idle machine.
   */
  const timed = async (word: string, stdin: Parameters<typeof runGuard>[2], vars: Record<string, string>) => {
    const before = slowdown();
    let stretched = vars;
    if (before >= 1.2) {
      const decisionMs = Math.min(30_000, Math.round(BUDGET_MS * before));
      const profile = join(profiles, `decision-${decisionMs}.yaml`);
      writeFileSync(profile, `budgets:\n  decision_ms: ${decisionMs}\n`);
      stretched = { FIABLE_PROFILE: profile, ...vars };
    }
    const run = await runGuard(runtime, word, stdin, stretched);
    return { ...run, slowdown: Math.max(before, slowdown()) };
  };
  // The runtime's own start, as on an idle machine: each run's wall time over the slowdown around it, measured
  // when the suite runs (the runner imports every suite before it runs the first).
  let floor = Infinity;
  s.before(async () => {
    for (let i = 0; i < 3; i++) {
      const run = await timed("pre", pre("floor", "chart_search_patients", {}), env(tempLedger()));
      floor = Math.min(floor, run.ms / run.slowdown);
    }
  });

  /**
   * One JSON object that allows, exit 0, within the budget above the runtime's start: the run's wall time
   * over the slowdown around it, so a loaded machine stretches the budget as much as it stretched the run.
   */
  const allowed = (run: GuardRun & { slowdown: number }, word: string, budget = BUDGET_MS) => {
    assert.is(run.code, 0, run.stderr);
    const reply = run.reply();
    if (word === "pre") assert.is(permission(run), "allow", JSON.stringify(reply));
    else assert.not.ok(reply.decision === "block", JSON.stringify(reply));
    const ms = Math.round(run.ms);
    assert.ok(
      run.ms / run.slowdown - floor < budget,
      `answered in ${ms} ms at ${run.slowdown.toFixed(1)}x slowdown (runtime start ${
        Math.round(floor)
      } ms idle)`,
    );
  };
  /** The one record of the session, whose note or reason says why. */
  const recorded = (dir: string, session: string, why: RegExp | string): LedgerRecord => {
    const records = readLedger(dir, session).records;
    assert.ok(records.length >= 1, `no record for ${session}: ${readdirSync(dir).join(", ")}`);
    const last = records.at(-1)!;
    assert.match(`${last.note ?? ""} ${last.reason ?? ""}`, why);
    return last;
  };

  s(
    "a post whose result nests 5,000 deep is recorded degraded; the next call on its case is allowed",
    async () => {
      const dir = tempLedger();
      const posted = await timed("post", queue("deep", nested(5000, "leaf")), env(dir));
      allowed(posted, "post");
      const record = recorded(dir, "deep", "evidence degraded");
      assert.is(record.degraded, true);
      assert.ok(record.ids?.includes(QUEUE_CASE));
      const next = await timed("pre", DISPOSE("deep"), env(dir));
      allowed(next, "pre");
      assert.not.ok(readLedger(dir, "deep").records.at(-1)!.rules?.some((h) => h.id === "GLOBAL-02"));
    },
  );

  for (const [fault, why] of [["crash", "internal error"], ["slow", "time budget"]] as const) {
    s(
      `a post lost to a ${fault} keeps its ids and outcome; the next call on its case is not denied`,
      async () => {
        const dir = tempLedger();
        const faulty = env(dir, { FIABLE_FAULT: fault, FIABLE_FAULT_EVENT: "post" });
        // The overrun answers when the budget runs out: allow for the timer and the exit beyond it.
        const budget = fault === "slow" ? BUDGET_MS + 500 : BUDGET_MS;
        allowed(await timed("post", queue("lost", { note: "ok" }), faulty), "post", budget);
        const record = recorded(dir, "lost", why);
        assert.equal(
          [record.event, record.decision, record.degraded, record.tool, record.tool_use_id],
          ["post", "error", true, "payer_intake_hub.list_intake_queue", "toolu_q"],
        );
        assert.ok(record.ids?.includes(QUEUE_CASE), JSON.stringify(record.ids));
        const next = await timed("pre", DISPOSE("lost"), env(dir));
        allowed(next, "pre");
      },
    );
  }

  s("a rule from absence on degraded evidence is recorded as shadow, not enforced", async () => {
    const dir = tempLedger();
    await runGuard(runtime, "post", queue("shadowed", {}), env(dir, { FIABLE_FAULT: "crash" }));
    // UM-15 would deny this recommendation (no criteria evaluation seen), but the evaluation may be what was lost.
    allowed(
      await timed(
        "pre",
        pre("shadowed", "review_submit_nurse_case_recommendation", {
          case_id: QUEUE_CASE,
          recommendation: "approve",
        }),
        env(dir),
      ),
      "pre",
    );
    const record = recorded(dir, "shadowed", "evidence degraded");
    assert.is(record.decision, "shadow");
    assert.ok(record.rules?.some((h) => h.id === "UM-15"), JSON.stringify(record.rules));
  });

  s("the stop gate does not block on degraded evidence", async () => {
    const dir = tempLedger();
    await runGuard(runtime, "prompt", prompt("gate", PROVIDER_PROMPT), env(dir));
    await runGuard(runtime, "post", queue("gate", {}), env(dir, { FIABLE_FAULT: "crash" }));
    allowed(await timed("stop", stop("gate"), env(dir)), "stop");
    assert.is(recorded(dir, "gate", "stop gate recorded, not enforced").decision, "shadow");
  });

  s("a 100 MB tool_input is allowed unparsed, recorded with the reason under its session", async () => {
    const dir = tempLedger();
    allowed(await timed("pre", HUGE_PRE, env(dir)), "pre");
    const record = recorded(dir, "huge-pre", /100000\d{3} bytes, over the 1048576-byte limit/);
    assert.is(record.decision, "error");
    assert.ok(statSync(join(dir, "huge-pre.jsonl")).size < 100_000);
  });

  s("a 100 MB result keeps its tool, its tool_use_id (from the tail) and its ids, degraded", async () => {
    const dir = tempLedger();
    allowed(await timed("post", HUGE_POST, env(dir)), "post");
    const record = recorded(dir, "huge-post", "over the 1048576-byte limit");
    assert.equal([record.degraded, record.tool_use_id], [true, "toolu_tail"]);
    assert.ok(record.ids?.includes(QUEUE_CASE));
  });

  s("an unbroken 7 MB token is allowed unparsed; a 900 KB one is parsed and redacted whole", async () => {
    const dir = tempLedger();
    const token = (n: number) => "aB3".repeat(n / 3);
    const seven = pre("token7", "chart_search_patients", { patient_id: token(7_000_002) });
    allowed(await timed("pre", seven, env(dir)), "pre");
    recorded(dir, "token7", "over the 1048576-byte limit");
    const three = post("token3", "chart_search_patients", { patient_id: "PAT-1" }, {
      note: token(900_000),
    });
    allowed(await timed("post", three, env(dir)), "post");
    const line = readFileSync(join(dir, "token3.jsonl"), "utf8");
    assert.match(line, "[redacted: long token]");
    assert.not.match(line, "aB3aB3");
    assert.ok(line.length < 100_000);
  });

  s("a 100 MB existing ledger is read in part: allowed, and the partial read is said", async () => {
    const dir = tempLedger();
    const line = JSON.stringify({
      v: 1,
      t: "2026-12-03T00:00:00.000Z",
      session: "big-ledger",
      event: "post",
      arm: "checklist",
      decision: "record",
      tool: "chart.get_patient",
      input: {},
      result: "r".repeat(10_000),
    }) + "\n";
    writeFileSync(join(dir, "big-ledger.jsonl"), line.repeat(Math.ceil(100_000_000 / line.length)));
    const submit = pre("big-ledger", "auth_submit_authorization", { case_id: "CASE-ACT-001" });
    allowed(await timed("pre", submit, env(dir)), "pre");
    const record = recorded(dir, "big-ledger", "evidence degraded");
    assert.is(record.decision, "shadow");
  });

  for (
    const [name, stdin] of [
      ["truncated JSON", queue("cut", { a: 1 }).slice(0, 150)],
      ["binary garbage", new Uint8Array(4096).map((_, i) => (i * 7919) % 256)],
      ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d])],
      ["whitespace only", " \n\t "],
      ["JSON null", "null"],
      ["a JSON string", '"PreToolUse"'],
      [
        "100,000 nested arrays",
        `{"session_id":"nest","hook_event_name":"PreToolUse","tool_name":"mcp__healthverse__chart_search_patients","tool_input":{"a":${
          "[".repeat(100_000)
        }${"]".repeat(100_000)}}}`,
      ],
    ] as const
  ) {
    s(`malformed input (${name}): one JSON allow, exit 0, recorded`, async () => {
      const dir = tempLedger();
      allowed(await timed("pre", stdin, env(dir)), "pre");
      assert.ok(allRecords(dir).length >= 1, "nothing recorded");
    });
  }

  s("a truncated post is recorded degraded with the tool it names", async () => {
    const dir = tempLedger();
    allowed(await timed("post", queue("cut", { a: 1 }).slice(0, 200), env(dir)), "post");
    const record = recorded(dir, "cut", "not JSON");
    assert.equal([record.degraded, record.tool], [true, "payer_intake_hub.list_intake_queue"]);
  });

  s("a tool_input of 60,000 keys (just under the parse limit) is decided within the budget", async () => {
    const dir = tempLedger();
    const wide = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]));
    allowed(await timed("pre", pre("wide", "chart_search_patients", wide), env(dir)), "pre");
    assert.is(readLedger(dir, "wide").records.length, 1);
  });

  s("sessions col/1 and col_1 write different files; one's case lock never denies the other", async () => {
    const dir = tempLedger();
    const created = { case: { id: "CASE-ACT-001", status: "draft" } };
    await runGuard(
      runtime,
      "post",
      post("col/1", "cases_create_from_order", { patient_id: "PAT-1" }, created),
      env(dir),
    );
    await runGuard(runtime, "prompt", prompt("col_1", `${PROVIDER_PROMPT}\nCase CASE-ACT-002.`), env(dir));
    const other = pre("col_1", "forms_save_form_response", { case_id: "CASE-ACT-002", answers: {} });
    allowed(await timed("pre", other, env(dir)), "pre");
    assert.not.equal(ledgerFileName("col/1"), ledgerFileName("col_1"));
    const records = readLedger(dir, "col_1").records;
    assert.ok(records.every((r) => r.session === "col_1"));
    assert.not.ok(records.some((r) => r.rules?.some((h) => h.id === "GLOBAL-01")));
    assert.ok(readLedger(dir, "col/1").records.every((r) => r.session === "col/1"));
  });

  s("session ids with ../, NUL or 10,000 characters stay inside the ledger dir", async () => {
    const root = tempLedger();
    const dir = join(root, "ledger");
    mkdirSync(dir);
    for (const session of ["../../escape", "..", "a\u0000b/../c", "x".repeat(10_000)]) {
      allowed(await timed("pre", pre(session, "chart_search_patients", {}), env(dir)), "pre");
      assert.is(readLedger(dir, session).records.length, 1, session.slice(0, 20));
    }
    assert.equal(readdirSync(root), ["ledger"]);
    assert.equal(readdirSync(dirname(root)).filter((f) => f.includes("escape")), []);
  });

  s("a new ledger is created rw-r--r--", async () => {
    const dir = tempLedger();
    await runGuard(runtime, "pre", pre("mode", "chart_search_patients", {}), env(dir));
    assert.is(statSync(join(dir, "mode.jsonl")).mode & 0o777, 0o644);
  });

  s("http mode: a 17 MB body is recorded under its own session with the real reason", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { ...env(dir), FIABLE_SUPERVISE: "0" });
    try {
      const body = queue("big-http", "z".repeat(17_000_000), "toolu_http");
      const before = slowdown();
      const started = performance.now();
      const res = await fetch(`${server.url}/hook/post`, { method: "POST", body });
      assert.equal(await res.json(), {});
      const ms = performance.now() - started;
      const load = Math.max(before, slowdown());
      assert.ok(ms / load < BUDGET_MS, `answered in ${Math.round(ms)} ms at ${load.toFixed(1)}x slowdown`);
      const record = recorded(dir, "big-http", /17000\d{3} bytes, over the 1048576-byte limit/);
      assert.equal([record.degraded, record.tool_use_id], [true, "toolu_http"]);
      assert.not.ok(readdirSync(dir).some((f) => f.startsWith("unknown-session")));
    } finally {
      server.stop();
    }
  });

  s.run();
}
