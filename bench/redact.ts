/**
 * The redactor on the ten real packets, per packet: what secretlint's recommended preset (its AWS id scan
 * on) finds in the trajectories — the packets' credentials, 0 expected — then, over every trajectory line,
 * how many lines `redactText` changes, the markers it writes, the prefixed ids (`CASE-…`, `DOC-…`) it
 * destroys, and its speed in µs per KB. With `--against FILE` an older redactor module (e.g.
 * `git show <rev>:lib/guard/engine/secrets.ts > /tmp/old.ts`) is measured on the same lines, interleaved.
 * With `--ledgers DIR` (a `deno task replay … --ledgers --out DIR`) the markers in its ledgers are counted too. First,
 * the cost of a redactor's first use in a fresh process (its patterns compiled), the median of 31 processes.
 *
 * Usage: deno run -A bench/redact.ts [--against FILE] [--ledgers DIR] [--no-oracle]
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { lintSource } from "@secretlint/core";
import { creator } from "@secretlint/secretlint-rule-preset-recommend";
import { decodeTrajectory } from "../lib/trajectories/atif.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";
import { redactText } from "../lib/guard/engine/secrets.ts";
import { scanReplay } from "../lib/results/redaction_marks.ts";
import { type CommandSpec, type Parsed, runCli } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const PACKET_ROOTS = ["leaderboard", "leaderboard-extra"].map((p) => join(ROOT, "..", "shared", p));
const ORACLE = {
  rules: [{
    id: creator.meta.id,
    rule: creator,
    rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
  }],
};
/** An id with a prefix, as the simulator issues them (upper-cased, as `extractIds` gives them). */
const PREFIXED_ID = /^[A-Z][A-Z0-9]*(?:-[A-Z0-9_]+)+$/;

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench redact",
  summary: "The redactor on the ten packets: secretlint's findings, markers, ids lost, µs per KB.",
  usage: ["deno run -A bench/redact.ts [--against FILE] [--ledgers DIR] [--no-oracle]"],
  options: {
    against: { type: "string", value: "FILE", description: "an older redactor module to compare" },
    ledgers: {
      type: "string",
      value: "DIR",
      description: "a replay's --out (replayed with --ledgers): count the markers in its ledgers",
    },
    "no-oracle": { type: "boolean", description: "skip secretlint over the trajectories (the slow part)" },
  },
  args: "none",
  example: "deno run -A bench/redact.ts --against /tmp/old_secrets.ts",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Every trajectory file below a directory. */
function trajectories(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? trajectories(path) : /^trajectory\.json/.test(name) ? [path] : [];
  });
}

/** The strings a `pre` hook redacts on a terminal call: a case key, a tool name, ids and a note. */
const PRE_STRINGS = [
  "CASE-3903B8ED",
  "auth_submit_authorization",
  "DOC-BUNDLE-c77bc09c",
  "Member meets criteria 1, 2 and 3 of the lumbar MRI policy; see " +
  "/logs/artifacts/workspaces/CASE-3903B8ED/provider/documents/DOC-1a2b3c4d__mri.pdf",
  "portal",
];

/** Milliseconds a fresh `deno` process spends on its first `redactText` calls, with a module's. */
function firstUse(module: string): number {
  const code = `const m = await import(${JSON.stringify(pathToFileURL(module).href)});
const t = performance.now();
for (const s of ${JSON.stringify(PRE_STRINGS)}) m.redactText(s);
console.log(performance.now() - t);`;
  const out = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "piped", stderr: "null" })
    .outputSync();
  return Number(new TextDecoder().decode(out.stdout));
}

/** The median first use of each module, over `runs` fresh processes, interleaved. */
function firstUses(modules: string[], runs = 31): number[] {
  const times = modules.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) modules.forEach((m, j) => times[j].push(firstUse(m)));
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]);
}

/** What one redactor did to one packet's lines. */
interface Effect {
  changed: number;
  markers: number;
  idsLost: number;
  ms: number;
}

function effectOf(redact: (t: string) => string, lines: string[]): Effect {
  const started = performance.now();
  const outs = lines.map(redact);
  const ms = performance.now() - started;
  const effect = { changed: 0, markers: 0, idsLost: 0, ms };
  lines.forEach((line, i) => {
    if (outs[i] === line) return;
    effect.changed++;
    effect.markers += outs[i].split("[redacted").length - 1;
    const kept = new Set(extractIds(outs[i]));
    for (const id of extractIds(line)) if (PREFIXED_ID.test(id) && !kept.has(id)) effect.idsLost++;
  });
  return effect;
}

/** What the oracle finds in a packet's trajectories. */
async function oracleFindings(files: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const content = decodeTrajectory(file, readFileSync(file));
    const result = await lintSource({
      source: { filePath: "trajectory.txt", content, ext: ".txt", contentType: "text" },
      options: { config: ORACLE },
    });
    for (const m of result.messages) found.push(`${m.ruleId}: ${m.message.slice(0, 80)}`);
  }
  return found;
}

async function measure(p: Parsed): Promise<number> {
  const ledgers = p.string("ledgers");
  const replayed = ledgers ? scanReplay(ledgers) : [];
  if (ledgers && !replayed.length) {
    throw p.error(
      `--ledgers ${ledgers} holds no replay ledger. Use deno task replay PATH --ledgers --out ${ledgers} first.`,
    );
  }
  const against = p.string("against");
  const old = against
    ? (await import(pathToFileURL(resolve(against)).href)).redactText as (t: string) => string
    : null;
  const roots = PACKET_ROOTS.filter(existsSync);
  if (!roots.length) {
    console.log(`skipped: ${PACKET_ROOTS.join(", ")} absent`);
    return 0;
  }
  const modules = [
    join(ROOT, "lib", "guard", "engine", "secrets.ts"),
    ...(against ? [resolve(against)] : []),
  ];
  const [now, before] = firstUses(modules);
  console.log(
    `first use in a fresh process (${PRE_STRINGS.length} strings of a pre), median of 31: ${
      now.toFixed(2)
    } ms` +
      (against ? ` (before: ${before.toFixed(2)} ms)` : ""),
  );
  const header = ["packet", "MB", "secretlint", "changed", "markers", "ids lost", "µs/KB"];
  if (old) header.push("before: changed", "markers", "ids lost", "µs/KB");
  console.log(`| ${header.join(" | ")} |\n|${header.map(() => " --- |").join("")}`);
  for (const root of roots) {
    for (const packet of readdirSync(root).sort()) {
      if (!statSync(join(root, packet)).isDirectory()) continue;
      const files = trajectories(join(root, packet));
      const lines = files.flatMap((f) => decodeTrajectory(f, readFileSync(f)).split("\n"));
      const kb = lines.reduce((n, l) => n + l.length, 0) / 1024;
      const oracle = p.flag("no-oracle") ? "—" : String((await oracleFindings(files)).length);
      // Interleaved: the old redactor, the new, the old again; each figure is the faster of its runs.
      const runs = old ? [old, redactText, old, redactText].map((r) => effectOf(r, lines)) : [
        effectOf(redactText, lines),
        effectOf(redactText, lines),
      ];
      const now = old ? [runs[1], runs[3]] : runs;
      const before = old ? [runs[0], runs[2]] : [];
      const row = (e: Effect[]) => [
        e[0].changed,
        e[0].markers,
        e[0].idsLost,
        (Math.min(...e.map((x) => x.ms)) * 1000 / kb).toFixed(1),
      ];
      const cells = [packet, (kb / 1024).toFixed(0), oracle, ...row(now), ...(old ? row(before) : [])];
      console.log(`| ${cells.join(" | ")} |`);
    }
  }
  if (ledgers) {
    console.log(
      "\n| arm | packet | denies | marked | messages | marked | case / input / ids marked | markers |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const r of replayed) {
      console.log(
        `| ${r.arm} | ${r.packet} | ${r.denies} | ${r.deniesMarked} | ${r.messages} | ${r.messagesMarked} | ` +
          `${r.casesMarked} / ${r.inputsMarked} / ${r.idsMarked} | ${r.markers} |`,
      );
    }
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
