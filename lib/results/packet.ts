/**
 * Submission packets that contradict themselves. A packet's results.csv is its submitter's claim and its
 * trial folders are the data (leaderboard-extra NOTICE.md): a published n_trials that is not the number of
 * trial folders, a pass@1 or n_tasks the folders do not give, or a cost or walltime of 0 where the trials have
 * tokens and timestamps, is a problem with the csv's path — never "consistent".
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { agentSeconds, type Prices, trialCost } from "./cost.ts";
import { nameUnreadable, type TrialSummary } from "./trials.ts";
import { walkTree } from "../walk.ts";

/** One results.csv row, as published. Numbers are null when the cell is empty or not a number. */
export interface PublishedRow {
  domain: string;
  agent: string;
  model: string;
  pass_at_1: number | null;
  n_trials: number | null;
  n_tasks: number | null;
  mean_cost_usd: number | null;
  mean_walltime_s: number | null;
}

/** Splits one CSV line, honouring double-quoted cells. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cur = "", quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') cur += line[++i];
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function number(text: string | undefined): number | null {
  if (text === undefined || !text.trim()) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** The rows of a leaderboard results.csv (harness.md §5.2 columns); rows without a domain are skipped. */
export function parseResultsCsv(text: string): PublishedRow[] {
  const [head, ...lines] = text.split(/\r?\n/).filter((l) => l.trim()).map(cells);
  if (!head) return [];
  const at = (name: string) => head.indexOf(name);
  return lines.filter((l) => l[at("domain")]).map((l) => ({
    domain: l[at("domain")],
    agent: l[at("agent")] ?? "",
    model: l[at("model")] ?? "",
    pass_at_1: number(l[at("pass_at_1")]),
    n_trials: number(l[at("n_trials")]),
    n_tasks: number(l[at("n_tasks")]),
    mean_cost_usd: number(l[at("mean_cost_usd")]),
    mean_walltime_s: number(l[at("mean_walltime_s")]),
  }));
}

function passAt1(trials: TrialSummary[]): { value: number | null; tasks: number; passed: number; n: number } {
  const by = new Map<string, { n: number; c: number }>();
  for (const t of trials) {
    const o = by.get(t.task) ?? { n: 0, c: 0 };
    o.n++;
    if (t.passed) o.c++;
    by.set(t.task, o);
  }
  const rates = [...by.values()].map((o) => o.c / o.n);
  return {
    value: rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null,
    tasks: by.size,
    passed: trials.filter((t) => t.passed).length,
    n: trials.length,
  };
}

function mean(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/**
 * Where a packet's results.csv contradicts its own trial folders. `trials` are the packet's trial summaries
 * (every folder, readable or not); problems are grouped per published column and list the rows.
 */
export function packetProblems(
  csvPath: string,
  published: PublishedRow[],
  trials: TrialSummary[],
  prices: Prices,
): string[] {
  const byColumn = new Map<string, { rows: string[]; why: string }>();
  const add = (column: string, row: string, why: string) => {
    const entry = byColumn.get(column) ?? { rows: [], why };
    entry.rows.push(row);
    byColumn.set(column, entry);
  };
  const out: string[] = [];
  nameUnreadable(trials);
  for (const row of published) {
    const ts = row.domain === "overall" ? trials : trials.filter((t) => t.domain === row.domain);
    const scored = ts.filter((t) => t.verified);
    if (row.n_trials !== null && row.n_trials !== ts.length) {
      out.push(
        `Cannot trust ${csvPath}: it publishes n_trials ${row.n_trials} for ${row.domain}, but the packet has ` +
          `${ts.length} trial folders there. The trial folders are the data.`,
      );
    }
    const p = passAt1(scored);
    const unreadable = ts.filter((t) => !t.readable);
    if (row.pass_at_1 !== null && p.value !== null && Math.abs(row.pass_at_1 - p.value) > 1e-9) {
      if (unreadable.length) {
        // As aggregate counts them: each unreadable trial a failed attempt of its task.
        const failed = unreadable.map((t) => ({ ...t, passed: false }));
        const counted = passAt1([...scored, ...failed]).value!;
        const explains = Math.abs(row.pass_at_1 - counted) <= 1e-9;
        out.push(
          `Cannot check ${csvPath}'s pass_at_1 ${row.pass_at_1} for ${row.domain}: ${unreadable.length} of its ` +
            `trial folders cannot be read (${
              unreadable.map((t) => t.ref.result).join(", ")
            }). The readable ` +
            `ones give ${p.value} (${p.passed} of ${p.n} scored trials passed); counting the unreadable ones ` +
            `as failures gives ${counted}${explains ? ", the published figure" : ""}. Fix or remove those ` +
            "trial folders, then check again.",
        );
      } else {
        out.push(
          `Cannot trust ${csvPath}: it publishes pass_at_1 ${row.pass_at_1} for ${row.domain}, but the trial ` +
            `folders give ${p.value} (${p.passed} of ${p.n} scored trials passed).`,
        );
      }
    }
    if (row.n_tasks !== null && scored.length && row.n_tasks !== p.tasks) {
      out.push(
        `Cannot trust ${csvPath}: it publishes n_tasks ${row.n_tasks} for ${row.domain}, but the trial ` +
          `folders hold ${p.tasks} tasks.`,
      );
    }
    const tokens = scored.reduce(
      (n, t) => n + (t.tokens.input ?? 0) + (t.tokens.cache ?? 0) + (t.tokens.output ?? 0),
      0,
    );
    if (row.mean_cost_usd === 0 && tokens > 0) {
      const models = [...new Set(scored.map((t) => t.model ?? "(no model)"))].sort();
      const unpriced = models.filter((m) => !Object.hasOwn(prices, m));
      const cost = mean(scored.map((t) => trialCost(t, "B", prices)));
      add(
        "mean_cost_usd",
        row.domain,
        unpriced.length
          ? `its trials used ${tokens.toLocaleString("en-US")} tokens and ${
            unpriced.join(", ")
          } has no price ` +
            "in the prices file, so their cost is unknown, not 0"
          : `its trials used ${tokens.toLocaleString("en-US")} tokens, $${
            cost!.toFixed(4)
          } per trial under ` +
            "recipe B at the prices file's rates",
      );
    }
    const wall = mean(scored.map(agentSeconds));
    if (row.mean_walltime_s === 0 && wall !== null && wall > 0) {
      add(
        "mean_walltime_s",
        row.domain,
        `its trials' agent_execution spans average ${wall.toFixed(1)} s`,
      );
    }
  }
  for (const [column, { rows, why }] of byColumn) {
    out.push(
      `Cannot trust ${csvPath}: it publishes ${column} 0.0 for ${rows.join(", ")}, but in ${
        rows[0]
      } ${why}. ` +
        "The trial folders are the data: report cost and walltime with recipe B.",
    );
  }
  return out;
}

/** Folders with a results.csv at or below each root (three levels down), each once, sorted. */
export function findPackets(roots: string[]): string[] {
  const found = walkTree(roots, {
    depth: 3,
    skip: (name) => name.startsWith(".") || name === "node_modules",
    folder: (_dir, names) => names.includes("results.csv"),
  });
  return [...new Set([...found].map((dir) => resolve(dir)))].sort();
}

/** The problems of every packet at or below the roots, given every trial read below them. */
export function packetProblemsUnder(
  roots: string[],
  trials: TrialSummary[],
  prices: Prices,
): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const dir of findPackets(roots)) {
    const csv = join(dir, "results.csv");
    if (!existsSync(csv)) continue;
    let published: PublishedRow[];
    try {
      published = parseResultsCsv(readFileSync(csv, "utf8"));
    } catch (err) {
      out.push({ path: csv, message: `Cannot read ${csv}: ${(err as Error).message}.` });
      continue;
    }
    const mine = trials.filter((t) => resolve(t.ref.dir).startsWith(dir + sep));
    for (const message of packetProblems(csv, published, mine, prices)) out.push({ path: csv, message });
  }
  return out;
}
