/**
 * The test command's runner: formatting, lint and type checks, then every uvu suite in tests/
 * (each `tests/<module>.ts` and `tests/e2e/<scenario>.ts`), ending with one `N passed, N failed` line.
 *
 * `deno task test` runs it all, the static checks first (tests/static_checks.ts: fmt, lint, check, counted in
 * uvu's total); `deno task test --only rules,ledger` runs the named suites; `deno task test --quick` runs the
 * suites that spawn no process (`QUICK`), the inner loop. The last line is uvu's own totals.
 */
import { run } from "uvu/run";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { type CommandSpec, type Parsed, runCli } from "../lib/cli.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = join(HERE, "..");

/**
 * The suites that spawn no process: `--quick` runs them under `--deny-run`, so one that starts spawning fails
 * there and must leave this list. Left out too, to keep the tier under a minute on 2 cores: the two that replay
 * all ten packets whole (`redaction_packets`, `rule_regression`); the full run has them.
 */
export const QUICK = [
  "access",
  "agent",
  "aggregate",
  "atif",
  "catalog",
  "chain",
  "closure",
  "columnar",
  "comparable",
  "cost",
  "coverage",
  "critic",
  "dashboard_scan",
  "decide",
  "digest",
  "doom",
  "estimate",
  "evidence",
  "gap",
  "guard_facts",
  "handbook",
  "hook",
  "integrity",
  "judge_figures",
  "judges",
  "ledger",
  "live_progress",
  "names",
  "packet",
  "points",
  "power",
  "prediction",
  "profile",
  "progress",
  "raw_json",
  "replay",
  "rules",
  "samples",
  "saved_output",
  "seat",
  "secretlint",
  "secrets",
  "sessions",
  "settings",
  "stats",
  "summary_file",
  "transcript",
  "trials",
  "verdict",
  "walk",
  "warm",
];

/** The suite files: `tests/*.ts` and `tests/e2e/*.ts`, except this runner and `tests/support/`. */
export function suiteFiles(only: string[] = []): { name: string; file: string }[] {
  const found: { name: string; file: string }[] = [];
  for (const dir of ["", "e2e"]) {
    let names: string[] = [];
    try {
      names = readdirSync(join(HERE, dir));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.endsWith(".ts") || name === "run.ts") continue;
      const id = (dir ? `${dir}/` : "") + name.replace(/\.ts$/, "");
      if (only.length && !only.includes(id) && !only.includes(name.replace(/\.ts$/, ""))) continue;
      found.push({ name: id, file: join(HERE, dir, name) });
    }
  }
  return found;
}

/** Runs uvu over the suites and returns [passed, failed, skipped], uvu's own totals. */
async function runSuites(files: { name: string; file: string }[]): Promise<[number, number, number]> {
  const write = process.stdout.write.bind(process.stdout);
  let captured = "";
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    captured += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    // deno-lint-ignore no-explicit-any
    return (write as any)(chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await run(files.map((f) => ({ name: f.name, file: f.file.startsWith("/") ? f.file.slice(1) : f.file })));
  } finally {
    process.stdout.write = write;
  }
  // deno-lint-ignore no-control-regex
  const plain = captured.replace(/\x1b\[[0-9;]*m/g, "");
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  return [passed, total - passed - skipped, skipped];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "test",
  summary: "Formatting, lint and type checks, then every uvu suite in `tests/` and `tests/e2e/`; " +
    "`--only` runs the named suites and skips the static checks; `--quick` runs the suites that spawn no process.",
  usage: ["deno task test [--only a,b] [--quick]"],
  options: {
    quick: {
      type: "boolean",
      description: "only the suites that spawn no process (no static checks), with process spawning denied",
    },
    only: {
      type: "string",
      value: "a,b",
      multiple: true,
      defaultNote: "every suite, after the static checks",
      description: "run only these suites (file names in tests/ and tests/e2e/, e.g. cli,e2e/http)",
    },
  },
  args: "none",
  example: "deno task test --only cli,aggregate",
};

/** Entry: `deno task test [--only a,b] [--quick]`. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => {
    const only = p.strings("only").flatMap((o) => o.split(",")).filter(Boolean);
    if (p.flag("quick")) {
      if (only.length) throw p.error("--quick and --only do not go together. Use one of them.");
      return runQuick();
    }
    return runAll(only, p);
  });
}

/** The quick tier: this runner on `QUICK` in a process that may not spawn one. */
async function runQuick(): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--deny-run", join(HERE, "run.ts"), "--only", QUICK.join(",")],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return out.code;
}

async function runAll(only: string[], p: Parsed): Promise<number> {
  const files = suiteFiles(only);
  const missing = only.filter((o) => !files.some((f) => f.name === o || f.name.endsWith(`/${o}`)));
  if (missing.length) {
    throw p.error(`no suite named ${missing.join(", ")}. Use file names in tests/ or tests/e2e/.`);
  }
  // The whole run checks formatting, lint and types first (tests/static_checks.ts); `--only` runs what it names.
  const ordered = only.length ? files : [
    ...files.filter((f) => f.name === "static_checks"),
    ...files.filter((f) => f.name !== "static_checks"),
  ];
  const [passed, failed, skipped] = await runSuites(ordered);
  // uvu's own totals, so the last line and uvu's Total agree.
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
