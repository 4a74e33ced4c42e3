/** A dashboard fixture: the sample trials plus one hostile trial whose tool arguments and results carry HTML/JS payloads. */
import { closeSync, mkdirSync, openSync, readFileSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { sampleTrials, scorecardOf, writeSamples } from "../../lib/samples/trials.ts";
import type { Arm, LedgerRecord } from "../../lib/guard/engine/record.ts";
import { findTrials } from "../../lib/results/trials.ts";
import {
  DEFAULT_EXPERIMENT,
  type Domain,
  experimentFiles,
  pilotConfig,
  smokeConfig,
  TRIALS_ROOT,
} from "../../lib/install/experiments.ts";

/** Payloads that must never execute or break the page. */
export const PAYLOADS = [
  `<script>window.__pwned=1</script>`,
  `"><img src=x onerror="window.__pwned=2">`,
  `'><svg onload=window.__pwned=3>`,
  `</pre></li></ol><script>window.__pwned=4</script>`,
  `javascript:window.__pwned=5`,
];

/** The hostile trial's name. */
export const HOSTILE = "cm_xss_payload_001__Hostile";

/** Writes the fixture under `dir`; returns the logs root and the hostile ledger path (for live appends). */
export function writeFixture(dir: string): { logs: string; ledger: string; liveLedger: string } {
  const logs = join(dir, "logs");
  writeSamples(logs, { attempts: 1 });
  const trial = join(logs, "hostile", "cm", HOSTILE);
  mkdirSync(join(trial, "verifier"), { recursive: true });
  mkdirSync(join(trial, "agent", "fiable"), { recursive: true });
  const payload = PAYLOADS.join(" ");
  writeFileSync(
    join(trial, "result.json"),
    JSON.stringify({
      task_name: "actava-ai/cm_xss_payload_001",
      trial_name: HOSTILE,
      agent_info: { name: "fiable-cc", model_info: { name: "claude-opus-5", provider: "anthropic" } },
      agent_result: { cost_usd: 1.25 },
      verifier_result: { rewards: { reward: 0.0 } },
    }),
  );
  writeFileSync(
    join(trial, "verifier", "scorecard.json"),
    JSON.stringify(scorecardOf("cm", ["cm.care_plan.finalized"])),
  );
  writeFileSync(join(trial, "verifier", "reward.json"), JSON.stringify({ reward: 0.0 }));
  const base = {
    v: 1 as const,
    t: "2026-07-20T10:00:00.000Z",
    session: "hostile-session",
    arm: "checklist" as const,
  };
  const records: LedgerRecord[] = [
    {
      ...base,
      event: "prompt",
      decision: "context",
      prompt: payload,
      seat: "cm",
      phase: "cm",
      reason: `plan ${payload}`,
    },
    {
      ...base,
      event: "pre",
      decision: "deny",
      tool: "cm_care_plan.finalize",
      tool_use_id: "toolu_x1",
      case: payload,
      input: { case_id: payload, [payload]: payload },
      rules: [{ id: "CM-01", checks: [payload], message: payload }],
      votes: [{ judge: "policy", object: true, reason: payload }],
      reason: payload,
    },
    {
      ...base,
      event: "post",
      decision: "record",
      tool: "cm_chart.get_chart_data",
      tool_use_id: "toolu_x2",
      input: {},
      result: { note: payload },
    },
    { ...base, event: "stop", decision: "block", obligations: [payload], reason: payload },
  ];
  const ledger = join(trial, "agent", "fiable", "hostile-session.jsonl");
  writeFileSync(ledger, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const liveDir = join(dir, "live");
  mkdirSync(liveDir, { recursive: true });
  const liveLedger = join(liveDir, "live-session-1.jsonl");
  writeFileSync(
    liveLedger,
    JSON.stringify({
      ...base,
      session: "live-session-1",
      event: "prompt",
      decision: "record",
      seat: "payer",
      t: new Date().toISOString(),
    }) + "\n",
  );
  return { logs, ledger, liveLedger };
}

/** One more live record for `session`, as the guard appends it. */
export function liveRecord(session: string, n: number): string {
  return JSON.stringify({
    v: 1,
    t: new Date().toISOString(),
    session,
    event: "pre",
    arm: "checklist",
    decision: "deny",
    tool: "determination.finalize",
    tool_use_id: `toolu_live_${n}`,
    case: "CASE-3903B8ED",
    input: { case_id: "CASE-3903B8ED", decision: "approved" },
    rules: [{ id: "UM-TEST", checks: ["outcome.determination_exists"], message: `live marker ${n}` }],
    reason: `live marker ${n}`,
  }) + "\n";
}

/** A running ablation on disk: chi-bench experiment configs, finished trials, one trial still running. */
export interface Ablation {
  /** The chi-bench checkout root. */
  root: string;
  /** `<root>/logs/experiments/fiable`: the trials, one folder per arm. */
  logs: string;
  /** `<root>/configs/experiments/fiable`: the configs. */
  configs: string;
  /** The running trial's ledger (append to it to make blocks happen). */
  runningLedger: string;
  /** The trials expected by the configs. */
  expected: number;
}

/**
 * Writes a running ablation under `dir`: the configs `install.ts experiments` writes for stock and checklist,
 * the sample trials as their finished trials (start times moved into the last few hours, so rate and ETA
 * are real), and one checklist trial still running with a live ledger.
 */
export async function writeAblation(dir: string, now = Date.now()): Promise<Ablation> {
  const root = join(dir, "chi-bench");
  const opts = { ...DEFAULT_EXPERIMENT, arms: ["stock", "checklist"] as Arm[] };
  for (const f of await experimentFiles(opts)) {
    mkdirSync(join(root, dirname(f.path)), { recursive: true });
    writeFileSync(join(root, f.path), f.bytes);
  }
  const logs = join(root, TRIALS_ROOT);
  writeSamples(logs);
  const results = findTrials([logs]).map((r) => r.result).sort();
  results.forEach((path, i) => {
    const data = JSON.parse(readFileSync(path, "utf8"));
    const start = now - (results.length - i) * 4 * 60_000 - 10 * 60_000;
    const delta = start - Date.parse(data.started_at);
    const shift = (v: unknown) => typeof v === "string" ? new Date(Date.parse(v) + delta).toISOString() : v;
    data.started_at = shift(data.started_at);
    data.finished_at = shift(data.finished_at);
    for (const phase of ["environment_setup", "agent_setup", "agent_execution", "verifier"]) {
      if (data[phase]) {
        data[phase].started_at = shift(data[phase].started_at);
        data[phase].finished_at = shift(data[phase].finished_at);
      }
    }
    writeFileSync(path, JSON.stringify(data, null, 2) + "\n");
  });
  const running = join(logs, "checklist", "cm", "cm_afib_moderate_anxious_001__Running");
  mkdirSync(join(running, "agent", "fiable"), { recursive: true });
  // What Harbor has written when the agent is running: the trial's config.json (first), its log, the ledger.
  writeFileSync(
    join(running, "config.json"),
    JSON.stringify({
      task: { path: "data/care_management/tasks/cm_afib_moderate_anxious_001" },
      trial_name: "cm_afib_moderate_anxious_001__Running",
      agent: {
        import_path: "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode",
        kwargs: { arm: "checklist" },
      },
    }),
  );
  writeFileSync(join(running, "trial.log"), "agent running\n");
  const runningLedger = join(running, "agent", "fiable", "running-session.jsonl");
  writeFileSync(
    runningLedger,
    JSON.stringify({
      v: 1,
      t: new Date(now - 30_000).toISOString(),
      session: "running-session",
      event: "prompt",
      arm: "checklist",
      decision: "record",
      seat: "cm",
    }) + "\n",
  );
  return {
    root,
    logs,
    configs: join(root, "configs", "experiments", "fiable"),
    runningLedger,
    expected: 450,
  };
}

/**
 * Writes trials where a chi-bench checkout's staged run puts them: each stage's config for each arm and domain
 * (lib/install/experiments.ts, as `install experiments` writes them) gives the trials dir and job name, and each
 * sample trial of that arm and domain lands in `<checkout>/<trials_dir>/<job_name>/<trial>/` with its
 * config.json. Returns `<checkout>/logs/experiments`, where run.sh's stages all write.
 */
export function writeStagedRun(checkout: string, stages: { smoke?: Arm[]; pilot?: Arm[] }): string {
  const configs = [
    ...(stages.smoke ?? []).flatMap((arm) =>
      (["pa_provider", "pa_um", "cm"] as Domain[]).map((domain) => ({
        arm,
        domain,
        config: smokeConfig(arm, domain, DEFAULT_EXPERIMENT),
      }))
    ),
    ...(stages.pilot ?? []).map((arm) => ({
      arm,
      domain: "pa_provider" as Domain,
      config: pilotConfig(arm, DEFAULT_EXPERIMENT),
    })),
  ];
  for (const { arm, domain, config } of configs) {
    for (const t of sampleTrials({ attempts: 1, arms: [arm] }).filter((x) => x.domain === domain)) {
      const dir = join(checkout, String(config.trials_dir), String(config.job_name), t.trialName);
      mkdirSync(join(dir, "verifier"), { recursive: true });
      mkdirSync(join(dir, "agent"), { recursive: true });
      writeFileSync(join(dir, "config.json"), JSON.stringify(t.config));
      writeFileSync(join(dir, "result.json"), JSON.stringify(t.result));
      writeFileSync(join(dir, "verifier", "scorecard.json"), JSON.stringify(t.scorecard));
      writeFileSync(join(dir, "verifier", "reward.json"), JSON.stringify(t.reward));
      writeFileSync(join(dir, "agent", "trajectory.json"), JSON.stringify(t.trajectory));
    }
  }
  return join(checkout, "logs", "experiments");
}

/** Writes `n` trial folders cloned from the sample trials, spread over four arms; returns the root. */
export function writeManyTrials(root: string, n: number): string {
  const base = sampleTrials({ attempts: 2, arms: ["stock", "checklist"] });
  const arms = ["stock", "plan", "checklist", "critic"];
  for (let i = 0; i < n; i++) {
    const t = base[i % base.length];
    const arm = arms[i % arms.length];
    const name = `${t.trialName.split("__")[0]}__b${String(i).padStart(6, "0")}`;
    const dir = join(root, arm, t.domain, name);
    mkdirSync(join(dir, "verifier"), { recursive: true });
    mkdirSync(join(dir, "agent"), { recursive: true });
    const usage = t.result.agent_result as Record<string, number>;
    const result = {
      ...t.result,
      trial_name: name,
      agent_result: { ...usage, n_input_tokens: usage.n_input_tokens + i },
    };
    writeFileSync(join(dir, "result.json"), JSON.stringify(result));
    writeFileSync(join(dir, "verifier", "scorecard.json"), JSON.stringify(t.scorecard));
    writeFileSync(join(dir, "verifier", "reward.json"), JSON.stringify(t.reward));
    writeFileSync(join(dir, "agent", "trajectory.json"), JSON.stringify(t.trajectory));
    if (t.ledger.length && arm !== "stock") {
      mkdirSync(join(dir, "agent", "fiable"), { recursive: true });
      const session = `s${i}`;
      writeFileSync(
        join(dir, "agent", "fiable", `${session}.jsonl`),
        t.ledger.map((r) => JSON.stringify({ ...r, session, arm })).join("\n") + "\n",
      );
    }
  }
  return root;
}

/** Writes one trial whose guard ledger has `lines` lines; returns the trial dir. */
export function writeBigLedgerTrial(root: string, lines: number): { dir: string; bytes: number } {
  const base = sampleTrials({ attempts: 1, arms: ["checklist"] }).find((t) => t.domain === "cm")!;
  const dir = join(root, "checklist", "cm", "cm_big_ledger_001__Big0001");
  mkdirSync(join(dir, "verifier"), { recursive: true });
  mkdirSync(join(dir, "agent", "fiable"), { recursive: true });
  writeFileSync(
    join(dir, "result.json"),
    JSON.stringify({ ...base.result, trial_name: "cm_big_ledger_001__Big0001" }),
  );
  writeFileSync(join(dir, "verifier", "scorecard.json"), JSON.stringify(base.scorecard));
  writeFileSync(join(dir, "verifier", "reward.json"), JSON.stringify(base.reward));
  writeFileSync(join(dir, "agent", "trajectory.json"), JSON.stringify(base.trajectory));
  const fd = openSync(join(dir, "agent", "fiable", "big-session.jsonl"), "w");
  const enc = new TextEncoder();
  let bytes = 0;
  try {
    let chunk = "";
    for (let i = 0; i < lines; i++) {
      const id = String(i).padStart(7, "0");
      chunk += i % 1000 === 999
        ? `{"v":1,"t":"2026-07-20T09:00:00.000Z","session":"big-session","event":"pre","arm":"checklist","decision":"deny","tool":"cm_care_plan.finalize","tool_use_id":"toolu_${id}","case":"CM-CASE-1","rules":[{"id":"CM-01","checks":["cm.care_plan.goal_structure"],"message":"Cannot finalize: goal lacks target_date."}]}\n`
        : `{"v":1,"t":"2026-07-20T09:00:00.000Z","session":"big-session","event":"pre","arm":"checklist","decision":"allow","tool":"cm_chart.get_chart_data","tool_use_id":"toolu_${id}","case":"CM-CASE-1","input":{"case_id":"CM-CASE-1"}}\n`;
      if (chunk.length > 8 << 20) {
        bytes += writeSync(fd, enc.encode(chunk));
        chunk = "";
      }
    }
    bytes += writeSync(fd, enc.encode(chunk));
  } finally {
    closeSync(fd);
  }
  return { dir, bytes };
}

const FINISHED = new Date("2026-07-20T12:00:00Z");

/** Where writeArmsAtScale put things. */
export interface ScaleFixture {
  /** The trial tree (`--logs`): `<arm>/<domain>/<trial>`. */
  logs: string;
  /** The replay output (`--results`): `<replay arm>/<packet>/<trial>.jsonl`, as replay writes it. */
  results: string;
  /** Every replay ledger written, with its trial (for the Parquet summary). */
  ledgers: { path: string; packet: string; trial: string; arm: string }[];
  bytes: number;
}

/**
 * Writes `trials` trial folders cloned from the sample trials over `arms` arms (`arm-01`…), each with its
 * guard ledger, and for each trial one replay ledger per replay arm (checklist, critic) of about `ledgerKB` KB, made of the sample
 * trial's own ledger records marked replay and repeated: the shape `replay.ts --out` leaves behind.
 */
export function writeArmsAtScale(
  dir: string,
  opts: { trials: number; arms: number; ledgerKB: number },
): ScaleFixture {
  const logs = join(dir, "logs");
  const results = join(dir, "replay");
  const base = sampleTrials({ attempts: 2, arms: ["checklist"] });
  const replayArms = ["checklist", "critic"];
  const ledgers: ScaleFixture["ledgers"] = [];
  let bytes = 0;
  for (let i = 0; i < opts.trials; i++) {
    const t = base[i % base.length];
    const arm = `arm-${String(i % opts.arms + 1).padStart(2, "0")}`;
    const name = `${t.trialName.split("__")[0]}__s${String(i).padStart(6, "0")}`;
    const trial = join(logs, arm, t.domain, name);
    mkdirSync(join(trial, "verifier"), { recursive: true });
    mkdirSync(join(trial, "agent"), { recursive: true });
    writeFileSync(join(trial, "result.json"), JSON.stringify({ ...t.result, trial_name: name }));
    writeFileSync(join(trial, "verifier", "scorecard.json"), JSON.stringify(t.scorecard));
    writeFileSync(join(trial, "verifier", "reward.json"), JSON.stringify(t.reward));
    writeFileSync(join(trial, "agent", "trajectory.json"), JSON.stringify(t.trajectory));
    if (t.ledger.length) {
      mkdirSync(join(trial, "agent", "fiable"), { recursive: true });
      const own = join(trial, "agent", "fiable", `${name}.jsonl`);
      writeFileSync(
        own,
        t.ledger.map((r) => JSON.stringify({ ...r, session: name, arm: "checklist" })).join("\n") + "\n",
      );
      // Finished trials: their ledgers were last written when they ran, not now (so none counts as live).
      utimesSync(own, FINISHED, FINISHED);
    }
    for (const replayArm of replayArms) {
      const lines = t.ledger.map((r) =>
        JSON.stringify({ ...r, session: name, arm: replayArm, replay: true })
      );
      const one = lines.join("\n") + "\n";
      const body = one.repeat(Math.max(1, Math.round(opts.ledgerKB * 1024 / Math.max(1, one.length))));
      const folder = join(results, replayArm, "logs");
      mkdirSync(folder, { recursive: true });
      const path = join(folder, `${name}.jsonl`);
      writeFileSync(path, body);
      utimesSync(path, FINISHED, FINISHED);
      bytes += body.length;
      ledgers.push({ path, packet: "logs", trial: name, arm: replayArm });
    }
  }
  return { logs, results, ledgers, bytes };
}
