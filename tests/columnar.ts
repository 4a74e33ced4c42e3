/** The columnar summary: Parquet written from trials and JSONL ledgers reads back with DuckDB; DuckDB missing. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import {
  columnarLine,
  connect,
  DECISIONS_FILE,
  NO_DUCKDB_ENV,
  sqlString,
  TRIAL_COLUMNS,
  type TrialColumns,
  TRIALS_FILE,
  writeColumnar,
} from "../lib/results/columnar.ts";

const s = suite("columnar");
const root = mkdtempSync(join(tmpdir(), "columnar-"));
s.after(() => rmSync(root, { recursive: true, force: true }));

const SECRET_PAYLOAD = "raw-payload-that-never-reaches-parquet";

function trial(name: string, passed: boolean): TrialColumns {
  return {
    packet: "packet-a",
    trial: name,
    task: name.split("__")[0],
    arm: "checklist",
    domain: "cm",
    model: "claude-opus-5",
    reward: passed ? 1 : 0,
    passed,
    cost_usd: 1.25,
    cost: 0.5,
    recipe: "B",
    input_tokens: 1000,
    cache_tokens: null,
    output_tokens: 200,
    tool_calls: 12,
    failed_checks: passed ? [] : ["cm.care_plan.finalized"],
    started: 1_780_000_000,
    finished: 1_780_000_600,
    dir: join(root, "trials", name),
  };
}

function ledger(path: string, session: string, n: number): void {
  mkdirSync(join(path, ".."), { recursive: true });
  const lines = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({
      v: 1,
      t: `2026-07-20T10:00:${String(i % 60).padStart(2, "0")}.000Z`,
      session,
      event: "pre",
      arm: "checklist",
      decision: i % 3 === 0 ? "deny" : "allow",
      tool: "cm_care_plan.finalize",
      input: { note: SECRET_PAYLOAD },
      result: { nested: [SECRET_PAYLOAD] },
      ...(i % 3 === 0
        ? { rules: [{ id: "CM-01", checks: ["cm.care_plan.goal_structure"], message: SECRET_PAYLOAD }] }
        : {}),
      replay: true,
      step: i,
    }));
  }
  lines.push(
    JSON.stringify({
      v: 1,
      t: "2026-07-20T10:01:00.000Z",
      session,
      event: "stop",
      arm: "checklist",
      decision: "block",
      obligations: ["CM-OPEN:plan"],
    }),
  );
  writeFileSync(path, lines.join("\n") + '\n{"v":1,"t":"truncat');
}

s(
  "trials and every ledger record read back with DuckDB; counts match the JSONL; no raw payload",
  async () => {
    const out = join(root, "out");
    const a = join(out, "checklist", "packet-a", "cm_a__1.jsonl");
    const b = join(out, "checklist", "packet-a", "cm_b__2.jsonl");
    ledger(a, "cm_a__1", 30);
    ledger(b, "cm_b__2", 7);
    const trials = [trial("cm_a__1", true), trial("cm_b__2", false)];
    const outcome = await writeColumnar(out, trials, [
      { path: a, packet: "packet-a", trial: "cm_a__1", arm: "checklist" },
      { path: b, packet: "packet-a", trial: "cm_b__2", arm: "checklist" },
    ]);
    if ("skipped" in outcome) throw new Error(outcome.skipped);
    const jsonl = [a, b].map((p) => parseLedger(readFileSync(p, "utf8")));
    assert.is(jsonl[0].corrupt + jsonl[1].corrupt, 2, "each ledger ends in a truncated line");
    assert.is(outcome.trials, 2);
    assert.is(outcome.decisions, jsonl[0].records.length + jsonl[1].records.length);
    assert.match(columnarLine(outcome), /2 trials, 39 decisions/);
    const duck = await connect();
    if ("why" in duck) throw new Error(duck.why);
    try {
      const t = await duck.all(
        `SELECT * FROM read_parquet(${sqlString(join(out, TRIALS_FILE))}) ORDER BY trial`,
      );
      assert.equal(Object.keys(t[0]), Object.keys(TRIAL_COLUMNS));
      assert.equal(t.map((r) => [r.trial, r.passed, r.failed_checks]), [
        ["cm_a__1", true, []],
        ["cm_b__2", false, ["cm.care_plan.finalized"]],
      ]);
      const file = sqlString(join(out, DECISIONS_FILE));
      const perTrial = await duck.all<{ trial: string; n: bigint; denies: bigint; stops: bigint }>(
        `SELECT trial, count(*) AS n, count(*) FILTER (decision = 'deny') AS denies,
         count(*) FILTER (event = 'stop' AND decision = 'block') AS stops
       FROM read_parquet(${file}) GROUP BY trial ORDER BY trial`,
      );
      assert.equal(perTrial.map((r) => [r.trial, Number(r.n), Number(r.denies), Number(r.stops)]), [
        ["cm_a__1", 31, 10, 1],
        ["cm_b__2", 8, 3, 1],
      ]);
      const [first] = await duck.all(`SELECT * FROM read_parquet(${file}) LIMIT 1`);
      assert.equal(Object.keys(first), [
        "packet",
        "trial",
        "session",
        "arm",
        "event",
        "decision",
        "tool",
        "rules",
        "checks",
        "obligations",
        "step",
        "ts",
        "replay",
        "ledger",
        "record",
      ]);
      assert.equal([first.rules, first.checks, first.step, first.ledger, first.record], [
        ["CM-01"],
        ["cm.care_plan.goal_structure"],
        0,
        join("checklist", "packet-a", "cm_a__1.jsonl"),
        0n,
      ]);
      const [stop] = await duck.all(
        `SELECT obligations FROM read_parquet(${file}) WHERE event = 'stop' LIMIT 1`,
      );
      assert.equal(stop.obligations, ["CM-OPEN:plan"]);
      const text = await duck.all(`SELECT * FROM read_parquet(${file})`);
      assert.not.ok(
        JSON.stringify(text, (_k, v) => typeof v === "bigint" ? Number(v) : v).includes(SECRET_PAYLOAD),
      );
    } finally {
      duck.close();
    }
    assert.not.ok(existsSync(join(out, `.columnar-${Deno.pid}`)), "the scratch folder is removed");
  },
);

s("no ledgers: an empty decisions table with the same columns", async () => {
  const out = join(root, "empty");
  const outcome = await writeColumnar(out, [trial("cm_a__1", true)], []);
  if ("skipped" in outcome) throw new Error(outcome.skipped);
  assert.is(outcome.decisions, 0);
  const duck = await connect();
  if ("why" in duck) throw new Error(duck.why);
  try {
    const cols = await duck.all<{ column_name: string }>(
      `DESCRIBE SELECT * FROM read_parquet(${sqlString(join(out, DECISIONS_FILE))})`,
    );
    assert.ok(cols.some((c) => c.column_name === "rules"));
  } finally {
    duck.close();
  }
});

s("DuckDB unavailable: skipped with the reason, nothing written, nothing thrown", async () => {
  const out = join(root, "fallback");
  const outcome = await writeColumnar(out, [trial("cm_a__1", true)], [], {
    load: () => Promise.reject(new Error("Cannot find module @duckdb/node-bindings-darwin-arm64")),
  });
  assert.ok("skipped" in outcome);
  assert.match(
    columnarLine(outcome),
    /^Parquet summary skipped: DuckDB cannot load here \(Cannot find module/,
  );
  assert.not.ok(existsSync(join(out, TRIALS_FILE)));
  Deno.env.set(NO_DUCKDB_ENV, "1");
  try {
    const flagged = await writeColumnar(out, [trial("cm_a__1", true)], []);
    assert.equal(flagged, { skipped: `DuckDB cannot load here (${NO_DUCKDB_ENV} is set)` });
  } finally {
    Deno.env.delete(NO_DUCKDB_ENV);
  }
});

s.run();
