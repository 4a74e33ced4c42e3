/**
 * The hook's command-mode latency in two checkouts, interleaved in one run against the same runtime floors:
 * what a change costs or saves (`deno run guard.ts pre` and the Node bundle, each checkout's own, on the
 * 500-record ledger of bench/latency.ts, from its checkpoint). `--before` is a checkout or a git ref (default
 * `main`, checked out into a temporary worktree); `--after` is a checkout (default: this one). Each is bundled
 * first (`deno task bundle` in it).
 *
 * Usage: deno run -A bench/versus.ts [--before DIR|REF] [--after DIR] [--runs 30] [--env NAME=VALUE]
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchLedger, interleaved, type SeriesFigure, timeBare, timeProcess } from "./latency.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench versus",
  summary: "Command-mode hook latency of two checkouts (Deno guard.ts and the Node bundle), interleaved, " +
    "against the same floors: the gap each adds over its runtime's start-up.",
  usage: ["deno run -A bench/versus.ts [--before DIR|REF] [--after DIR] [--runs 30] [--env NAME=VALUE]"],
  options: {
    before: {
      type: "string",
      value: "DIR|REF",
      default: "main",
      description: "the checkout before the change, or a git ref to check out",
    },
    after: {
      type: "string",
      value: "DIR",
      defaultNote: "this checkout",
      description: "the checkout after it",
    },
    runs: numberOption(30, "interleaved runs per series (medians are reported)"),
    env: {
      type: "string",
      value: "NAME=VALUE",
      multiple: true,
      description: "an environment variable for every guard process (e.g. FIABLE_CHECKPOINT=0)",
    },
  },
  args: "none",
  example: "deno run -A bench/versus.ts --before main --runs 30",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** The repository this file is in. */
const ROOT = resolve(import.meta.dirname ?? ".", "..");

/** Runs a command in `cwd`; throws with its output when it fails. */
function run(cmd: string, args: string[], cwd: string): void {
  const out = new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).outputSync();
  if (!out.success) {
    throw new Error(`Cannot run ${cmd} ${args.join(" ")} in ${cwd}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function measure(p: Parsed): Promise<number> {
  const before = p.string("before")!;
  const after = resolve(p.string("after") ?? ROOT);
  // A ref is checked out beside the benchmark's temp files, and removed when it is done.
  const worktree = existsSync(before)
    ? null
    : join(mkdtempSync(join(tmpdir(), "fiable-versus-ref-")), "tree");
  if (worktree) run("git", ["worktree", "add", "--detach", worktree, before], ROOT);
  try {
    const trees = { before: worktree ?? resolve(before), after };
    for (const dir of Object.values(trees)) run(Deno.execPath(), ["run", "-A", "bundle.ts"], dir);
    return await compare(p, trees);
  } finally {
    if (worktree) run("git", ["worktree", "remove", "--force", worktree], ROOT);
  }
}

async function compare(p: Parsed, trees: { before: string; after: string }): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const extra = Object.fromEntries(
    p.strings("env").map((kv) => [kv.split("=")[0], kv.slice(kv.indexOf("=") + 1)]),
  );
  const ledger = benchLedger();
  const deno = Deno.execPath();
  const empty = join(mkdtempSync(join(tmpdir(), "fiable-versus-")), "empty.ts");
  writeFileSync(empty, "");
  const series: Record<string, () => Promise<number>> = {
    denoFloor: () => timeBare([deno, "run", "-A", empty]),
    nodeFloor: () => timeBare(["node", "-e", "1"]),
  };
  for (const [name, dir] of Object.entries(trees)) {
    // Each checkout its own ledger, so each keeps its own checkpoint format.
    const ledgerDir = mkdtempSync(join(tmpdir(), `fiable-versus-${name}-`));
    writeFileSync(
      join(ledgerDir, `${ledger[0].session}.jsonl`),
      ledger.map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const env = { FIABLE_LEDGER_DIR: ledgerDir, FIABLE_CC_ARM: "critic", ...extra };
    const root = dir;
    series[`deno ${name}`] = () => timeProcess([deno, "run", "-A", join(root, "guard.ts"), "pre"], env);
    series[`node ${name}`] = () => timeProcess(["node", join(root, "dist", "fiable-guard.cjs"), "pre"], env);
  }
  const m = await interleaved(runs, series);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  const row = (name: string, floor: SeriesFigure) =>
    `  ${name.padEnd(14)} ${fmt(m[name].ms).padStart(9)}  gap +${fmt(m[name].ms - floor.ms)}  CPU gap +${
      fmt(m[name].cpuMs - floor.cpuMs)
    }`;
  console.log(
    `medians of ${runs} interleaved runs; floors: deno ${fmt(m.denoFloor.ms)}, node ${fmt(m.nodeFloor.ms)}`,
  );
  for (const name of ["deno before", "deno after"]) console.log(row(name, m.denoFloor));
  for (const name of ["node before", "node after"]) console.log(row(name, m.nodeFloor));
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
