/**
 * data/reference_tokens.json, generated from the real packets (never written by hand): mean token use per
 * scored trial per domain for every packet in ../shared/leaderboard and ../shared/leaderboard-extra, and the
 * published same-model cost the estimate is checked against. `install.ts experiments` prices these tokens at
 * the run's model to estimate the ablation's cost.
 *
 *   deno run -A scripts/reference_tokens.ts [--stdout-only]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseResultsCsv } from "../lib/results/packet.ts";
import { findTrials, readTrial } from "../lib/results/trials.ts";
import { type Reference, referenceFrom, type ReferenceTable } from "../lib/install/estimate.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
/** Where the real packets are, read-only. */
export const PACKET_SETS = [
  join(ROOT, "..", "shared", "leaderboard"),
  join(ROOT, "..", "shared", "leaderboard-extra"),
];
/** The generated file. */
export const OUTPUT = join(ROOT, "data", "reference_tokens.json");

/**
 * Published same-model figures the packets here do not hold (cited): the mean_cost_usd column of the packet's
 * results.csv, overall and per domain (actava-ai/leaderboard
 * benchmarks/chi-bench/submissions/2026-07-24-opus-5-claude-code/results.csv).
 */
const PUBLISHED: ReferenceTable["published"] = [{
  id: "2026-07-24-opus-5-claude-code",
  agent: "claude-code",
  model: "anthropic/claude-opus-5",
  mean_cost_usd: 4.790005273,
  domains: { pa_provider: 3.44516798, pa_um: 4.3660177, cm: 6.55883014 },
  source: "actava-ai/leaderboard results.csv, recipe B",
}];

function round(r: Reference): Reference {
  const domains = Object.fromEntries(
    Object.entries(r.domains).map(([d, v]) => [d, {
      trials: v.trials,
      input: Math.round(v.input),
      cache: Math.round(v.cache),
      output: Math.round(v.output),
    }]),
  );
  return { ...r, domains };
}

/** The table from the packets below `sets`; null when none is there. */
export function referenceTable(sets: string[] = PACKET_SETS): ReferenceTable | null {
  const packets: Reference[] = [];
  for (const set of sets) {
    if (!existsSync(set)) continue;
    for (const id of readdirSync(set).sort()) {
      const csv = join(set, id, "results.csv");
      if (!existsSync(csv)) continue;
      const row = parseResultsCsv(readFileSync(csv, "utf8")).find((r) => r.domain === "overall");
      const trials = findTrials([join(set, id)]).map(readTrial);
      const ref = referenceFrom(id, `actava-ai/leaderboard submissions/${id}`, trials);
      packets.push(round({ ...ref, agent: row?.agent || ref.agent, model: row?.model || ref.model }));
    }
  }
  if (!packets.length) return null;
  return { generated_by: "scripts/reference_tokens.ts", packets, published: PUBLISHED };
}

/** The file's text. */
export function tableText(table: ReferenceTable): string {
  return JSON.stringify(table, null, 2) + "\n";
}

/** Entry: print the table and write data/reference_tokens.json (unless --stdout-only). */
export function main(args: string[]): number {
  const table = referenceTable();
  if (!table) {
    console.error(`Cannot build the reference table: no packets in ${PACKET_SETS.join(" or ")}.`);
    return 1;
  }
  const text = tableText(table);
  console.log(text);
  if (!args.includes("--stdout-only")) writeFileSync(OUTPUT, text);
  return 0;
}

if (import.meta.main) Deno.exit(main(Deno.args));
