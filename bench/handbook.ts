/**
 * Handbook index benchmark: 1,300 generated pages of about 4 KB (the real handbook has 1,279), indexed from
 * disk through the guard's path (`openHandbook`) and in memory (`buildIndex`), then queried.
 * Targets (issue #9): index in ≤ 1.5 s, answer a query in ≤ 5 ms.
 *
 *   deno run -A bench/handbook.ts [--pages 1300] [--bytes 4000] [--runs 5]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { buildIndex, CACHE_NAME, caseQueries, openHandbook, searchHandbook } from "../lib/guard/handbook.ts";
import { handbookSources, KNOWN, writeHandbook } from "../tests/support/handbook_fixture.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const INDEX_MS = 1_500;
const QUERY_MS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench handbook",
  summary: "Handbook index speed: generated pages indexed from disk and in memory, then queried.",
  usage: ["deno run -A bench/handbook.ts [--pages 1300] [--bytes 4000] [--runs 5]"],
  options: {
    pages: numberOption(1300, "generated pages"),
    bytes: numberOption(4000, "bytes per page"),
    runs: numberOption(5, "timed rounds"),
  },
  args: "none",
  example: "deno run -A bench/handbook.ts --pages 1300",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): number {
  return runCli(CLI, args, measure);
}

/** Runs the benchmark and prints the figures; returns 0 when both targets are met, else 1. */
function measure(p: Parsed): number {
  const pages = wholeNumber(p, "pages", 1)!;
  const bytes = wholeNumber(p, "bytes", 1)!;
  const runs = wholeNumber(p, "runs", 1)!;
  const sources = handbookSources({ count: pages, bytes });
  const total = sources.reduce((n, s) => n + s.text.length, 0);
  const root = mkdtempSync(join(tmpdir(), "fiable-bench-handbook-"));
  try {
    const dir = join(root, "handbook");
    writeHandbook(dir, { count: pages, bytes });
    const cacheFile = join(root, CACHE_NAME);
    const cpu0 = process.cpuUsage();
    const cold = openHandbook({ dir, cacheFile, budgetMs: 60_000 });
    const coldCpu = Math.round(process.cpuUsage(cpu0).user / 1000);
    const cached = openHandbook({ dir, cacheFile, budgetMs: 60_000 });
    const memory: number[] = [];
    let index = buildIndex(sources).index;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      index = buildIndex(sources).index;
      memory.push(performance.now() - t);
    }
    const queries = [
      ...KNOWN.map((k) => k.query),
      caseQueries(
        "# 📋 Clinical Intake — Laparoscopic sleeve gastrectomy\n\nA 45-year-old with E66.01.\n",
        "provider",
        null,
      )
        .clinical,
    ];
    const times: number[] = [];
    for (let i = 0; i < 500; i++) {
      const t = performance.now();
      searchHandbook(index, queries[i % queries.length], { limit: 8 });
      times.push(performance.now() - t);
    }
    const p95 = [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)];
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    // Wall time on a shared machine measures the neighbours too: judge the first build by its CPU time.
    const indexOk = coldCpu <= INDEX_MS && median(memory) <= INDEX_MS;
    const queryOk = p95 <= QUERY_MS;
    console.log(`pages: ${pages}, ${(total / 1e6).toFixed(2)} MB of markdown (~${bytes} B each)`);
    console.log(`machine: load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`);
    console.log(
      `index from disk, first build (openHandbook: list, read, index, cache write): ${cold.ms} ms wall, ` +
        `${coldCpu} ms CPU`,
    );
    console.log(`index from cache (openHandbook, cache load): ${cached.ms} ms`);
    console.log(`index in memory (buildIndex), median of ${runs}: ${median(memory).toFixed(0)} ms`);
    console.log(`query: mean ${mean.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms over ${times.length} queries`);
    console.log(
      `targets: index ≤ ${INDEX_MS} ms (first-build CPU and in-memory median) ${
        indexOk ? "met" : "MISSED"
      }; ` +
        `query p95 ≤ ${QUERY_MS} ms ${queryOk ? "met" : "MISSED"}`,
    );
    return indexOk && queryOk ? 0 : 1;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
