/**
 * The repository held to docs/COMPLIANCE.md: no handbook text or handbook-shaped files, no fixture
 * expectations or verifier-only files, no packet data copied in (checked against the real packets' own text
 * when ../shared is there), Markdown only where the docs live, and a guard that never answers "ask".
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { findTrials } from "../lib/results/trials.ts";
import { readTrajectory } from "../lib/trajectories/atif.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const SHARED = [join(ROOT, "..", "shared", "leaderboard"), join(ROOT, "..", "shared", "leaderboard-extra")];
const s = suite("compliance");

/** Every file git tracks, relative to the repository root. */
function tracked(): string[] {
  const out = new Deno.Command("git", { args: ["ls-files", "-z"], cwd: ROOT, stdout: "piped" }).outputSync();
  assert.ok(out.success, "git ls-files failed");
  return new TextDecoder().decode(out.stdout).split("\0").filter(Boolean);
}

/** The tracked files' text (binary files, with a NUL byte, left out), path → text. */
function corpus(paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of paths) {
    const bytes = readFileSync(join(ROOT, path));
    if (bytes.includes(0)) continue;
    out.set(path, new TextDecoder().decode(bytes));
  }
  return out;
}

/** File names that only a task's hidden files, a trial's verifier output or a packet have. */
const FORBIDDEN_NAME =
  /^(expectations\.json|scorecard\.json|reward\.json|result\.json|results\.csv|submission\.json|provenance\.json|sub\.yaml|SKILL\.md)$|\.jsonl\.zst$|^trajectory\.jsonl?$/;
/** Folder shapes of the gated handbook (`references/provider-pa/…`) and of its mount. */
const HANDBOOK_PATH =
  /(^|\/)references\/(provider-pa|payer-um|care-manager|platform|medical-library)\/|managed-care-operations-handbook\//;
/** The key of chi-bench's hidden per-task expectations. */
const EXPECTATIONS_KEY = /"verifier_contract"\s*:/;

/** A path that the compliance rules forbid, and why; null when it is allowed. */
export function forbiddenPath(path: string): string | null {
  if (FORBIDDEN_NAME.test(basename(path))) {
    return "a task's hidden file, a trial's verifier output or packet data";
  }
  if (HANDBOOK_PATH.test(path)) return "a handbook page";
  if (path.endsWith(".md") && !/^(README\.md|docs\/[\w-]+\.md)$/.test(path)) {
    return "Markdown outside README and docs/";
  }
  return null;
}

/**
 * Distinctive text of a trajectory: a 64-character slice from the middle of every string of 160 characters or
 * more in its steps (prompts, messages, tool inputs and results), at most `max` of them.
 */
export function needles(value: unknown, max = 12, out: string[] = []): string[] {
  if (out.length >= max) return out;
  if (typeof value === "string") {
    if (value.length >= 160) {
      const at = Math.floor(value.length / 2) - 32;
      out.push(value.slice(at, at + 64));
    }
  } else if (Array.isArray(value)) { for (const v of value) needles(v, max, out); }
  else if (value && typeof value === "object") { for (const v of Object.values(value)) needles(v, max, out); }
  return out;
}

/** The first tracked file that holds one of the needles: [path, needle], or null. */
export function copiedFrom(files: Map<string, string>, found: string[]): [string, string] | null {
  for (const needle of found) {
    for (const [path, text] of files) if (text.includes(needle)) return [path, needle];
  }
  return null;
}

const PATHS = tracked();
const FILES = corpus(PATHS);

s(
  "no tracked file is a task's hidden file, a verifier output, packet data, a handbook page or stray Markdown",
  () => {
    const bad = PATHS.map((p) => [p, forbiddenPath(p)]).filter(([, why]) => why);
    assert.equal(bad, [], bad.map(([p, why]) => `${p}: ${why}`).join("\n"));
  },
);

s("the path rules catch each kind of file they forbid", () => {
  for (
    const path of [
      "tests/fixtures/expectations.json",
      "data/pa_t008/verifier/scorecard.json",
      "trials/cm/cm_a__x/result.json",
      "trials/cm/cm_a__x/agent/trajectory.jsonl.zst",
      "data/results.csv",
      "handbook/SKILL.md",
      "vendor/references/payer-um/operational/02-triage-routing.md",
      "notes/handbook.md",
    ]
  ) assert.ok(forbiddenPath(path), path);
  for (const path of ["README.md", "docs/COMPLIANCE.md", "lib/results/trials.ts", "data/prices.yaml"]) {
    assert.is(forbiddenPath(path), null, path);
  }
});

s("no tracked file holds a fixture's hidden expectations (a verifier_contract key)", () => {
  const hit = [...FILES].find(([, text]) => EXPECTATIONS_KEY.test(text));
  assert.is(hit?.[0], undefined);
  // Built at run time, so this file does not hold the key it looks for.
  const planted = JSON.stringify({ [["verifier", "contract"].join("_")]: { final_action: "x" } });
  assert.ok(EXPECTATIONS_KEY.test(planted), "the check catches one");
});

s("no text of a real packet's trajectories is copied into a tracked file", () => {
  const packets = SHARED.filter(existsSync).flatMap((set) =>
    readdirSync(set).filter((id) => existsSync(join(set, id, "results.csv"))).map((id) => join(set, id))
  );
  if (!packets.length) {
    console.warn(`skipped: ${SHARED.join(", ")} absent (needs ../shared beside the repo)`);
    return;
  }
  let checked = 0;
  for (const packet of packets) {
    // Two trials per domain of every packet: their prompts, messages, tool inputs and results.
    const refs = findTrials([packet]).filter((r) => r.trajectory);
    const byDomain = new Map<string, number>();
    for (const ref of refs) {
      const domain = basename(join(ref.dir, ".."));
      if ((byDomain.get(domain) ?? 0) >= 2) continue;
      byDomain.set(domain, (byDomain.get(domain) ?? 0) + 1);
      const found = needles(readTrajectory(ref.trajectory!).steps);
      checked += found.length;
      const hit = copiedFrom(FILES, found);
      assert.is(hit, null, hit ? `${hit[0]} holds text of ${ref.trajectory}: "${hit[1]}"` : "");
    }
  }
  assert.ok(checked > 100, `only ${checked} passages checked`);
  // The check finds a copied passage.
  const sample = needles(
    readTrajectory(findTrials([packets[0]]).find((r) => r.trajectory)!.trajectory!).steps,
  );
  assert.ok(copiedFrom(new Map([["x.ts", `const s = "${sample[0]}";`]]), sample));
});

s("the guard answers allow or deny and never ask (nobody is there to answer)", () => {
  const guard = [...FILES].filter(([p]) => p.startsWith("lib/guard/") && p.endsWith(".ts"));
  assert.ok(guard.length > 10);
  const asks = guard.filter(([, text]) => /permissionDecision:\s*"ask"|decision:\s*"ask"/.test(text));
  assert.equal(asks.map(([p]) => p), []);
});

s("docs/COMPLIANCE.md names every kind of thing the repository never stores", () => {
  const doc = readFileSync(join(ROOT, "docs", "COMPLIANCE.md"), "utf8");
  for (
    const kind of [
      "Handbook text",
      "Task solutions or expected answers",
      "Verifier-only files",
      "Packet data",
      "Credentials",
    ]
  ) {
    assert.ok(doc.includes(`**${kind}.**`), kind);
  }
  assert.match(doc, /answer-blind/);
  assert.match(doc, /fully autonomous/);
  // Every repository path it names exists (a chi-bench or trial path, or the trial's mount, is not one).
  const named = [...doc.matchAll(/`((?:lib|rules|tests|docs|data|scripts)\/[\w./-]+)`/g)].map((m) => m[1]);
  assert.ok(named.length >= 10, named.join(", "));
  assert.equal(
    named.filter((p) => !existsSync(join(ROOT, p))),
    [],
    "docs/COMPLIANCE.md names a path that moved",
  );
});

s.run();
