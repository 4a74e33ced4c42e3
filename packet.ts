/**
 * Checks a prepared leaderboard packet of a guarded arm and writes its scaffold disclosure:
 * `deno task packet DIR [--arm A]`. DIR is the folder `cb submission prepare` printed. Every trial must prove
 * the guard from its result.json in the declared arm (sub.yaml's notes, as install.ts submission writes them,
 * or --arm), at full coverage, under one guard, rule set and Claude Code version; then `FIABLE_GUARD.md` is
 * written beside chi-bench's README.md. Exit 1, naming the trials, when one does not; 2 on bad usage.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CommandSpec, type Parsed, runCli } from "./lib/cli.ts";
import { ARMS } from "./lib/guard/engine/record.ts";
import { ensurePackages } from "./lib/packages.ts";
import { loadFactsReader } from "./lib/results/guard_facts_reader.ts";
import { checkPacket, disclosure, refusal } from "./lib/results/guarded_packet.ts";
import { declaredArm } from "./lib/install/submission.ts";

/** The disclosure's file name, beside chi-bench's README.md in the packet. */
export const DISCLOSURE = "FIABLE_GUARD.md";

/** The command line. */
export const CLI: CommandSpec = {
  name: "packet",
  summary: "Checks a prepared leaderboard packet (every trial proves the guard from its result.json in the " +
    "declared arm, one guard, rule set and CLI version) and writes the scaffold disclosure `FIABLE_GUARD.md` " +
    "beside its README; exit 1 naming the trials that do not.",
  usage: ["deno task packet DIR [--arm A]"],
  options: {
    arm: {
      type: "string",
      value: "ARM",
      defaultNote: "the arm sub.yaml's notes declare",
      description: `the arm every trial must have run: ${ARMS.join(", ")}`,
    },
  },
  args: [{
    name: "DIR",
    description: "the packet folder cb submission prepare wrote (results.csv, trials/)",
  }],
  notes: [
    "Exit codes: 0 checked and FIABLE_GUARD.md written, 1 a trial does not prove the guard, 2 bad usage.",
  ],
  example:
    "deno task packet ../chi-bench/logs/submissions/acme-fiable-cc-critic/packet/2026-12-01-acme-fiable-cc-critic",
};

/** The arm sub.yaml's notes declare, or why there is none. */
async function subYamlArm(dir: string): Promise<string | { why: string }> {
  const path = join(dir, "sub.yaml");
  if (!existsSync(path)) return { why: `${path} is missing` };
  const { parse } = await import("yaml");
  let sub: { submission?: { agent?: unknown; notes?: unknown } };
  try {
    sub = parse(readFileSync(path, "utf8")) ?? {};
  } catch (err) {
    return { why: `${path} is not YAML (${(err as Error).message.split("\n")[0]})` };
  }
  if (sub.submission?.agent !== "fiable-cc") {
    return { why: `${path} names agent ${JSON.stringify(sub.submission?.agent ?? null)}, not fiable-cc` };
  }
  return declaredArm(sub.submission?.notes) ?? { why: `${path}'s notes name no arm` };
}

async function run(p: Parsed): Promise<number> {
  if (p.positionals.length !== 1) throw p.error("give one DIR. Use deno task packet DIR (see --help).");
  const dir = p.positionals[0];
  if (!existsSync(join(dir, "results.csv")) || !existsSync(join(dir, "trials"))) {
    throw p.error(
      `${dir} is not a prepared packet (no results.csv and trials/). Pass the folder cb submission prepare printed.`,
    );
  }
  let arm = p.string("arm");
  if (arm !== undefined && !(ARMS as readonly string[]).includes(arm)) {
    throw p.error(`--arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`);
  }
  if (arm === undefined) {
    const declared = await subYamlArm(dir);
    if (typeof declared !== "string") {
      throw p.error(`the arm is unknown: ${declared.why}. Pass --arm A.`);
    }
    arm = declared;
  }
  await loadFactsReader();
  const packet = checkPacket(dir, arm);
  const refused = refusal(packet);
  if (refused) {
    console.error(refused);
    return 1;
  }
  for (const warning of packet.warnings) console.log(`WARN ${warning}`);
  const out = join(dir, DISCLOSURE);
  writeFileSync(out, disclosure(packet));
  console.log(
    `packet: ${packet.trials.length} of ${packet.trials.length} trials prove the guard in arm ${arm} ` +
      `(from result.json); wrote ${out}`,
  );
  return 0;
}

/** Entry: returns the exit code (0 written, 1 refused, 2 bad usage). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, run);
}

if (import.meta.main) {
  await ensurePackages(import.meta.url);
  Deno.exit(await main(Deno.args));
}
