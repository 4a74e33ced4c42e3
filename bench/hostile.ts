/**
 * The guard's wall time on hostile input, per runtime, against that runtime's floor measured in the same run
 * (`deno run` of an empty file, `node -e 1`): a 100 MB tool_input, a 100 MB result, an unbroken 7 MB token,
 * a 5,000-deep result, a 60,000-key input, and a pre on a 100 MB ledger; for the Node bundle also a hook command
 * as `guard up` writes it whose start-up snapshot path holds a FIFO or a link to /dev/zero (the command then runs
 * the guard file). Inputs are given as a file on stdin, so the figure is the guard's, not the writer's. Every case must
 * answer within the 1.5 s decision budget.
 *
 * Usage: deno run -A bench/hostile.ts [--runs 5]
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { hookSettings } from "../lib/guard/config/claude_settings.ts";
import { post, pre } from "../tests/support/payloads.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { benchLedger } from "./latency.ts";
import { ledgerFileName } from "../lib/guard/ledger/ledger.ts";
import { checkpointName } from "../lib/guard/ledger/checkpoint.ts";
import { writeLedger } from "../tests/support/guard_process.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const BUDGET_MS = 1500;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall time of one process, stdin from a file (or none). */
function timeProcess(argv: string[], env: Record<string, string>, stdin?: string): Promise<number> {
  const fd = stdin ? openSync(stdin, "r") : "ignore";
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", ...env },
      stdio: [fd, "ignore", "ignore"],
    });
    if (typeof fd === "number") closeSync(fd);
    child.on("error", reject);
    child.on(
      "close",
      (code) => code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}`)),
    );
  });
}

/** The hostile cases: a name, the event, the stdin file and a ledger dir to run against. */
function writeCases(dir: string): { name: string; word: string; stdin: string; ledger: string }[] {
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  let deep: unknown = "leaf";
  for (let i = 0; i < 5000; i++) deep = { next: deep };
  const unwritable = join(dir, "unwritable");
  Deno.mkdirSync(join(unwritable, ledgerFileName("unwritable")), { recursive: true });
  const bigLedger = join(dir, "big-ledger");
  const line = JSON.stringify({
    v: 1,
    t: "2026-12-03T00:00:00.000Z",
    session: "ledger100",
    event: "post",
    arm: "checklist",
    decision: "record",
    tool: "chart.search_patients",
    input: {},
    result: "r".repeat(10_000),
  }) + "\n";
  Deno.mkdirSync(bigLedger);
  writeFileSync(join(bigLedger, "ledger100.jsonl"), line.repeat(Math.ceil(100_000_000 / line.length)));
  const fresh = () => mkdtempSync(join(dir, "ledger-"));
  const submit = (session: string, extra: Record<string, unknown> = {}) =>
    pre(session, "auth_submit_authorization", { case_id: "CASE-ACT-001", ...extra });
  return [
    { name: "ordinary pre (reference)", word: "pre", stdin: file("plain", submit("plain")), ledger: fresh() },
    {
      name: "100 MB tool_input",
      word: "pre",
      stdin: file("huge-pre", submit("huge", { blob: "x".repeat(100_000_000) })),
      ledger: fresh(),
    },
    {
      name: "100 MB result",
      word: "post",
      stdin: file("huge-post", post("hp", "chart_search_patients", {}, { blob: "y".repeat(100_000_000) })),
      ledger: fresh(),
    },
    {
      name: "unbroken 7 MB token",
      word: "pre",
      stdin: file("token", submit("token", { note: "aB3".repeat(2_333_334) })),
      ledger: fresh(),
    },
    {
      name: "result nested 5,000 deep",
      word: "post",
      stdin: file("deep", post("deep", "chart_search_patients", {}, { deep })),
      ledger: fresh(),
    },
    {
      name: "60,000-key tool_input",
      word: "pre",
      stdin: file(
        "wide",
        submit("wide", Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]))),
      ),
      ledger: fresh(),
    },
    {
      name: "pre on a 100 MB ledger",
      word: "pre",
      stdin: file("on-ledger", submit("ledger100")),
      ledger: bigLedger,
    },
    {
      name: "post, ledger path a dir",
      word: "post",
      stdin: file("unwritable-post", post("unwritable", "chart_search_patients", {}, { patients: [] })),
      ledger: unwritable,
    },
  ];
}

/**
 * Cases whose ledger dir is made anew before each run (`prepare`, untimed): a checkpoint whose stored texts
 * were spoiled on disk (a rule reads them: decided again on a full read, then a new checkpoint), the same
 * checkpoint whole, and parallel calls that each would deny with one signature (the slowest of them; the
 * ledger lock serialises the denies).
 */
function preparedCases(dir: string): {
  name: string;
  word: string;
  stdin: string;
  arm: string;
  parallel: number;
  prepare: (argv: (word: string) => string[]) => Promise<string>;
}[] {
  const records = benchLedger();
  const session = records[0].session;

  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const read = file(
    "checkpointed-read",
    pre(session, "review_get_md_review_data", { case_id: "CASE-3903B8ED" }),
  );
  const finalize = file(
    "checkpointed-finalize",
    pre(session, "determination_finalize", {
      case_id: "CASE-3903B8ED",
      decision: "approved",
      rationale: "Criteria 1-3 met per the MD review of the imaging and the exam findings in the chart.",
    }, "toolu_fin"),
  );
  /** The 500-record ledger with the checkpoint its first hook writes; its stored texts spoiled if asked. */
  const checkpointed = (spoil: boolean) => async (argv: (word: string) => string[]) => {
    const ledger = mkdtempSync(join(dir, "ck-"));
    writeLedger(ledger, session, records);
    await timeProcess(argv("pre"), { FIABLE_LEDGER_DIR: ledger, FIABLE_CC_ARM: "critic" }, read);
    if (spoil) {
      const text = readFileSync(join(ledger, checkpointName(session)), "utf8");
      const header = JSON.parse(text.slice(text.indexOf("\n") + 1));
      const contents = join(ledger, header.contents);
      const bytes = readFileSync(contents);
      for (const s of header.ev.segments) bytes[s.at + s.meta + 20] ^= 0x20;
      writeFileSync(contents, bytes);
    }
    return ledger;
  };
  const deny = file("deny", pre("parallel", "triage_set_disposition", { case_id: "CASE-0A1B2C3D" }));
  return [
    {
      name: "finalize, checkpoint whole",
      word: "pre",
      stdin: finalize,
      arm: "critic",
      parallel: 1,
      prepare: checkpointed(false),
    },
    {
      name: "finalize, stored texts spoiled",
      word: "pre",
      stdin: finalize,
      arm: "critic",
      parallel: 1,
      prepare: checkpointed(true),
    },
    {
      name: "4 parallel denies, slowest",
      word: "pre",
      stdin: deny,
      arm: "checklist",
      parallel: 4,
      prepare: () => Promise.resolve(mkdtempSync(join(dir, "parallel-"))),
    },
  ];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench hostile",
  summary:
    "The guard's wall time on hostile input per runtime, against the runtime floor measured in the same run.",
  usage: ["deno run -A bench/hostile.ts [--runs 5]"],
  options: {
    runs: numberOption(5, "runs per case (the median is reported)"),
  },
  args: "none",
  example: "deno run -A bench/hostile.ts --runs 5",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Runs the benchmark and prints one line per case and runtime, with the floor beside it. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const dir = mkdtempSync(join(tmpdir(), "fiable-hostile-"));
  const bundle = await bundleGuard(join(dir, "fiable-guard.cjs"));
  const empty = join(dir, "empty.ts");
  writeFileSync(empty, "");
  const cases = writeCases(dir);
  const prepared = preparedCases(dir);
  const runtimes = [
    {
      name: "deno",
      argv: (w: string) => [Deno.execPath(), "run", "-A", join(ROOT, "guard.ts"), w],
      floor: [Deno.execPath(), "run", empty],
    },
    { name: "node", argv: (w: string) => ["node", bundle, w], floor: ["node", "-e", "1"] },
  ];
  const series = async (once: () => Promise<number>) => {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await once());
    return median(times);
  };
  const fmt = (ms: number) => `${Math.round(ms)} ms`;
  console.log(
    `guard on hostile input, medians of ${runs} runs (${cpus().length} cores, load ${
      loadavg()[0].toFixed(1)
    })`,
  );
  let over = 0;
  let nodeFloor = 0;
  for (const runtime of runtimes) {
    const floor = await series(() => timeProcess(runtime.floor, {}));
    if (runtime.name === "node") nodeFloor = floor;
    console.log(
      `  ${runtime.name}: floor (${runtime.floor.slice(0, 2).join(" ").replace(Deno.execPath(), "deno")} …) ${
        fmt(floor)
      }`,
    );
    for (const c of cases) {
      const env = { FIABLE_LEDGER_DIR: c.ledger, FIABLE_CC_ARM: "checklist" };
      const ms = await series(() => timeProcess(runtime.argv(c.word), env, c.stdin));
      const verdict = ms - floor < BUDGET_MS ? "" : "  OVER BUDGET";
      if (verdict) over++;
      console.log(
        `    ${c.name.padEnd(26)} ${fmt(ms).padStart(8)}  (${fmt(ms - floor)} above the floor)${verdict}`,
      );
    }
    for (const c of prepared) {
      const ms = await series(async () => {
        const env = { FIABLE_LEDGER_DIR: await c.prepare(runtime.argv), FIABLE_CC_ARM: c.arm };
        const runs = Array.from(
          { length: c.parallel },
          () => timeProcess(runtime.argv(c.word), env, c.stdin),
        );
        return Math.max(...await Promise.all(runs));
      });
      const verdict = ms - floor < BUDGET_MS ? "" : "  OVER BUDGET";
      if (verdict) over++;
      console.log(
        `    ${c.name.padEnd(26)} ${fmt(ms).padStart(8)}  (${fmt(ms - floor)} above the floor)${verdict}`,
      );
    }
  }
  // The start-up snapshot's path holding a hostile thing: the hook command as `guard up` writes it.
  const blob = join(mkdtempSync(join(dir, "snapshot-")), "fiable-guard.blob");
  const plants: [string, () => void][] = [
    ["snapshot is a FIFO", () => void new Deno.Command("mkfifo", { args: [blob] }).outputSync()],
    ["snapshot links /dev/zero", () => symlinkSync("/dev/zero", blob)],
  ];
  const plain = cases[0]; // a pre, which the PreToolUse command runs
  for (const [name, plant] of plants) {
    const { hooks } = hookSettings({
      mode: "command",
      arm: "checklist",
      ledgerDir: plain.ledger,
      guard: bundle,
      snapshot: blob,
    });
    const command = (hooks!.PreToolUse[0] as { hooks: { command: string }[] }).hooks[0].command;
    const ms = await series(() => {
      rmSync(blob, { force: true });
      plant();
      return timeProcess(["sh", "-c", command], {}, plain.stdin);
    });
    const verdict = ms - nodeFloor < BUDGET_MS ? "" : "  OVER BUDGET";
    if (verdict) over++;
    console.log(
      `  node: ${name.padEnd(26)} ${fmt(ms).padStart(8)}  (${fmt(ms - nodeFloor)} above the floor)${verdict}`,
    );
  }
  console.log(`  load after: ${loadavg()[0].toFixed(1)}`);
  Deno.removeSync(dir, { recursive: true });
  return over ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
