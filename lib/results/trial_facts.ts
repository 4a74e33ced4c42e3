/**
 * Reads what lib/results/integrity.ts judges from one Harbor trial dir: `config.json` (else result.json's `config`),
 * `agent/fiable/harness.json`, every `*.jsonl` ledger in `agent/fiable/` (contract 1: records of every
 * session, whatever the file names), `agent/sessions/settings.json` and the trajectory's χ-World calls.
 * Bad input becomes a problem naming its path; nothing is dropped.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chainKey, readKey, UNKEYED } from "../guard/ledger/chain.ts";
import { readChainedLedger } from "./ledger_chain.ts";
import type { LedgerFile, SettingsHooks, TrialFacts } from "./integrity.ts";
import { countAt, type ToolCount } from "./tool_counts.ts";
import type { TrialRef } from "./trials.ts";
import { FACTS_KEY, readGuardFacts } from "./guard_facts_reader.ts";

function readObject(path: string): Record<string, unknown> {
  const value = JSON.parse(readFileSync(path, "utf8"));
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
  return value;
}

function settingsHooks(path: string, data: Record<string, unknown>): SettingsHooks {
  let handlers = 0;
  const matchers: string[] = [];
  const hooks = data.hooks && typeof data.hooks === "object" ? data.hooks as Record<string, unknown> : {};
  for (const groups of Object.values(hooks)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      const list = (group as { hooks?: unknown })?.hooks;
      handlers += Array.isArray(list) ? list.length : 0;
      const matcher = (group as { matcher?: unknown })?.matcher;
      if (typeof matcher === "string" && !matchers.includes(matcher)) matchers.push(matcher);
    }
  }
  return { path, handlers, matchers };
}

/**
 * True when a trial may be fiable-cc's, so its calls are worth listing: a config.json, an agent/fiable dir, or
 * a result.json carrying the guard's facts (a packet's trial, whose facts are checked against its calls).
 */
export function wantsCalls(ref: TrialRef): boolean {
  if (existsSync(join(ref.dir, "config.json")) || existsSync(join(ref.dir, "agent", "fiable"))) return true;
  try {
    return readFileSync(ref.result, "utf8").includes(`"${FACTS_KEY}"`);
  } catch {
    return false;
  }
}

/** result.json's guard facts, or why they cannot be used (malformed, or the harness's own reason). */
function guardFactsOf(
  result: Record<string, unknown> | null,
  path: string,
): Pick<TrialFacts, "guardFacts" | "guardFactsProblem"> {
  const metadata = (result?.agent_result as { metadata?: unknown } | undefined)?.metadata;
  const held = metadata && typeof metadata === "object" ? metadata as Record<string, unknown> : {};
  // Only a result.json that holds facts needs the schema (and zod): most trials are not fiable-cc's.
  const read = held[FACTS_KEY] !== undefined && held[FACTS_KEY] !== null
    ? readGuardFacts(result, path)
    : null;
  if (read && "facts" in read) return { guardFacts: read.facts, guardFactsProblem: null };
  if (read) return { guardFacts: null, guardFactsProblem: read.problem };
  const why = held[`${FACTS_KEY}_error`];
  return {
    guardFacts: null,
    guardFactsProblem: typeof why === "string"
      ? `Cannot prove the guard from ${path}: the harness could not summarise it (${why.slice(0, 300)}).`
      : null,
  };
}

/**
 * The facts of one trial. `count` is the trajectory's tool count when the caller already has it (with
 * `calls`); undefined reads the trajectory here (calls listed when `wantsCalls`); null leaves it unread.
 */
export function readFacts(ref: TrialRef, count?: ToolCount | null): TrialFacts {
  const problems: string[] = [];
  const fiable = join(ref.dir, "agent", "fiable");
  let result: Record<string, unknown> | null = null;
  try {
    result = readObject(ref.result);
  } catch {
    // readTrial names an unreadable result.json; here it only supplies the config and agent name.
  }
  let config = result && typeof result.config === "object" ? result.config as Record<string, unknown> : null;
  const configPath = join(ref.dir, "config.json");
  if (existsSync(configPath)) {
    try {
      config = readObject(configPath);
    } catch (err) {
      problems.push(
        `Cannot read ${configPath}: ${
          (err as Error).message
        }. The arm is taken from harness.json and the ledger.`,
      );
    }
  }
  const harnessPath = join(fiable, "harness.json");
  let harness: Record<string, unknown> | null = null;
  if (existsSync(harnessPath)) {
    try {
      harness = readObject(harnessPath);
    } catch (err) {
      problems.push(
        `Cannot read ${harnessPath}: ${
          (err as Error).message
        }. fiable-cc writes {"arm","hooks","port"} there; ` +
          "the hook mode is unknown.",
      );
    }
  }
  const settingsPath = join(ref.dir, "agent", "sessions", "settings.json");
  let settings: SettingsHooks | null = null;
  if (existsSync(settingsPath)) {
    try {
      settings = settingsHooks(settingsPath, readObject(settingsPath));
    } catch (err) {
      problems.push(`Cannot read ${settingsPath}: ${(err as Error).message}. Its hooks are unknown.`);
      settings = { path: settingsPath, handlers: 0, matchers: [] };
    }
  }
  const ledgers: LedgerFile[] = [];
  // The chain is checked under the trial's key when its guard.key is there (issue 40).
  const trialKey = readKey(fiable);
  const key = trialKey ? chainKey(trialKey) : UNKEYED;
  for (const path of ref.ledgers) {
    try {
      const parsed = readChainedLedger(readFileSync(path, "utf8"), key, trialKey !== null);
      ledgers.push({ path, ...parsed });
      if (parsed.corrupt && !parsed.chain.chained) {
        problems.push(
          `Cannot trust ledger ${path}: ${parsed.corrupt} line${
            parsed.corrupt > 1 ? "s are" : " is"
          } not a ` +
            "valid record (truncated or interleaved writes). The other records are used; look for a crash " +
            `in ${join(fiable, "guard-serve.log")}.`,
        );
      }
    } catch (err) {
      problems.push(`Cannot read ledger ${path}: ${(err as Error).message}.`);
    }
  }
  let calls: TrialFacts["calls"] = null;
  if (ref.trajectory && count !== null) {
    const c = count ?? countAt(ref.trajectory, { calls: wantsCalls(ref) });
    if ("error" in c) problems.push(c.error);
    else {
      calls = c.calls ?? null;
      if (c.corrupt) {
        problems.push(
          `Cannot trust trajectory ${ref.trajectory}: ${c.corrupt} line${
            c.corrupt > 1 ? "s are" : " is"
          } not ` +
            "valid JSON (a truncated tail?). Its other steps are used.",
        );
      }
    }
  }
  const info = result?.agent_info as Record<string, unknown> | undefined;
  return {
    dir: ref.dir,
    config,
    agentName: typeof info?.name === "string" ? info.name : null,
    agentVersion: typeof info?.version === "string" && info.version ? info.version : null,
    harness,
    harnessPath,
    settings,
    ledgerDir: fiable,
    keyFile: trialKey !== null,
    ledgers,
    trajectory: ref.trajectory,
    calls,
    ...guardFactsOf(result, ref.result),
    problems,
  };
}
