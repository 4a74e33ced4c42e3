/**
 * Runs every benchmark in bench/ one after another (`deno task bench`), or the named ones
 * (`deno task bench latency replay`). Each prints its own figures; this only sequences them.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type CommandSpec, runCli } from "../lib/cli.ts";

const HERE = import.meta.dirname ?? ".";

/** The benchmark names in bench/, without this runner. */
export function benchNames(): string[] {
  return readdirSync(HERE).filter((f) => f.endsWith(".ts") && f !== "run.ts").map((f) =>
    f.replace(/\.ts$/, "")
  )
    .sort();
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench",
  summary: `The benchmarks in \`bench/\`, one after another: ${benchNames().join(", ")}.`,
  usage: ["deno task bench [name...]"],
  options: {},
  args: [{ name: "name", description: `benchmarks to run (default: all): ${benchNames().join(", ")}` }],
  example: "deno task bench latency replay",
};

/** Entry: run the requested benchmarks (all when none named); exit non-zero if any failed. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => runBenches(p.positionals));
}

async function runBenches(names: string[]): Promise<number> {
  const known = benchNames();
  const unknown = names.filter((a) => !known.includes(a));
  if (unknown.length) {
    console.error(`Cannot run benchmark "${unknown[0]}": it is unknown. Use one of ${known.join(", ")}.`);
    return 2;
  }
  let failed = 0;
  for (const name of names.length ? names : known) {
    console.log(`\n== bench/${name}.ts`);
    const out = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", join(HERE, `${name}.ts`)] })
      .output();
    await Deno.stdout.write(out.stdout);
    await Deno.stderr.write(out.stderr);
    if (!out.success) failed++;
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
