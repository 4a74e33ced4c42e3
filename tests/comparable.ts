/**
 * A pilot verdict only from arms that differ by the guard alone, on arms built from the real packets in
 * ../shared: a packet's provider trials, copied, made into fiable-cc trials as Harbor leaves them (config.json
 * with the arm and the pinned CLI; for the critic arm, the ledger the real guard writes replaying that very
 * trial, harness.json and the hooks in settings.json). Each row changes one fact of one arm and names the
 * no-result reason it must give; the untouched pair gives a verdict.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { aggregateArms } from "../lib/results/aggregate.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { settingsJson } from "../lib/guard/config/claude_settings.ts";
import { armFacts, comparability } from "../lib/results/comparable.ts";
import { verifyTrees } from "../lib/results/verify.ts";
import { tempDir } from "./support/trial_dirs.ts";

const s = suite("comparable");
const SHARED = join(import.meta.dirname!, "..", "..", "shared", "leaderboard");
const OPUS = join(SHARED, "2026-05-28-claude-opus-4-8");
const SONNET = join(SHARED, "2026-07-06-sonnet-5-claude-code");
const IMPORT = "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode";
/** Trials per arm: enough to pair tasks, few enough to keep the suite quick. */
const N = 4;
const made: string[] = [];
s.after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
const readJson = (path: string): Json => JSON.parse(readFileSync(path, "utf8"));
const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 1));

/** How to build one arm: the packet, how its trials ran, and edits to one fact. */
interface ArmSpec {
  packet?: string;
  /** The arm the trials ran as; "raw" keeps the packet's own unguarded claude-code trials. */
  as: "stock" | "critic" | "raw";
  /** Leave the critic arm's ledgers out. */
  noLedger?: boolean;
  /** Give the stock arm a ledger, harness.json and hooks. */
  hooks?: boolean;
  /** result.json edits (agent_info.name / version, model) and config.json's environment. */
  agent?: string;
  version?: string;
  model?: string;
  environment?: string;
}

/** The replayed critic ledgers of the packet's first N provider trials, by trial name (replayed once). */
const ledgers = new Map<string, Map<string, string>>();
async function criticLedgers(packet: string, names: string[]): Promise<Map<string, string>> {
  if (!ledgers.has(packet)) {
    const src = tempDir("fiable-cmp-src-");
    const out = tempDir("fiable-cmp-replay-");
    made.push(src, out);
    for (const name of names) {
      cpSync(join(packet, "trials", "pa_provider", name), join(src, "pa_provider", name), {
        recursive: true,
      });
    }
    const report = await replayTrees([src], {
      arms: ["critic"],
      out,
      ledgers: true,
      columnar: false,
      workers: 1,
    });
    ledgers.set(packet, new Map(report.trials.map((t) => [t.name, t.arms.critic!.ledger!])));
  }
  return ledgers.get(packet)!;
}

/** An arm of N real provider trials, as the spec says. */
async function build(spec: ArmSpec): Promise<string> {
  const packet = spec.packet ?? OPUS;
  const names = readdirSync(join(packet, "trials", "pa_provider")).sort().slice(0, N);
  const root = tempDir("fiable-cmp-arm-");
  made.push(root);
  const replayed = spec.as === "critic" || spec.hooks ? await criticLedgers(packet, names) : null;
  for (const name of names) {
    const dir = join(root, "pa_provider", name);
    cpSync(join(packet, "trials", "pa_provider", name), dir, { recursive: true });
    const result = readJson(join(dir, "result.json"));
    if (spec.as !== "raw") {
      result.agent_info.name = "fiable-cc";
      const config = {
        ...result.config,
        agent: {
          ...result.config.agent,
          name: null,
          import_path: IMPORT,
          kwargs: { arm: spec.as, version: spec.version ?? result.agent_info.version },
        },
        environment: { ...result.config.environment, type: spec.environment ?? "docker", import_path: null },
      };
      result.config = config;
      writeJson(join(dir, "config.json"), config);
    }
    if (spec.agent) result.agent_info.name = spec.agent;
    if (spec.version) result.agent_info.version = spec.version;
    if (spec.model) result.agent_info.model_info.name = spec.model;
    writeJson(join(dir, "result.json"), result);
    if ((spec.as === "critic" && !spec.noLedger) || spec.hooks) {
      const fiable = join(dir, "agent", "fiable");
      mkdirSync(fiable, { recursive: true });
      cpSync(replayed!.get(name)!, join(fiable, `${name}.jsonl`));
      writeJson(join(fiable, "harness.json"), { arm: "critic", hooks: "http", port: 8787 });
      mkdirSync(join(dir, "agent", "sessions"), { recursive: true });
      writeFileSync(
        join(dir, "agent", "sessions", "settings.json"),
        settingsJson({
          mode: "http",
          arm: "critic",
          ledgerDir: "/logs/agent/fiable",
          guard: "/g.cjs",
          port: 8787,
        }),
      );
    }
  }
  return root;
}

async function pilot(stock: ArmSpec, critic: ArmSpec) {
  const arms = [{ name: "stock", roots: [await build(stock)] }, {
    name: "critic",
    roots: [await build(critic)],
  }];
  return aggregateArms(arms, { pilot: true, iters: 200, prices: {} });
}

const HAVE = existsSync(join(OPUS, "results.csv")) && existsSync(join(SONNET, "results.csv"));

s("the untouched pair (one packet, stock and critic as fiable-cc runs them) gives a verdict", async () => {
  if (!HAVE) return console.warn(`skipped: ${SHARED} absent (needs ../shared beside the repo)`);
  const r = await pilot({ as: "stock" }, { as: "critic" });
  const integrity = r.rows.filter((x) => x.domain === "overall").map((x) => [x.arm, x.integrity?.marked]);
  assert.equal(integrity, [["stock", false], ["critic", false]], JSON.stringify(r.problems, null, 1));
  assert.equal(r.pilot!.comparison!.not_comparable, []);
  assert.is(r.pilot!.verdict, "no-go", r.pilot!.reason);
  assert.equal(
    r.arm_facts.map((f) => [f.arm, f.model, f.harness, f.claude_version, f.environment, f.ran_as]),
    [
      ["stock", { "anthropic/claude-opus-4-8": N }, { "fiable-cc": N }, { "2.1.154": N }, { docker: N }, {
        stock: N,
      }],
      ["critic", { "anthropic/claude-opus-4-8": N }, { "fiable-cc": N }, { "2.1.154": N }, { docker: N }, {
        critic: N,
      }],
    ],
  );
});

const NO_RESULT: [string, ArmSpec, ArmSpec, RegExp][] = [
  [
    "an unguarded critic arm (the packet's own claude-code trials)",
    { as: "stock" },
    { as: "raw" },
    /arm critic did not run as critic: its trials ran as unguarded claude-code/,
  ],
  [
    "a critic arm without its guard ledgers",
    { as: "stock" },
    { as: "critic", noLedger: true },
    /critic failed run integrity/,
  ],
  ["hooks in stock", { as: "stock", hooks: true }, { as: "critic" }, /stock failed run integrity/],
  [
    "another model",
    { as: "stock", model: "claude-sonnet-5" },
    { as: "critic" },
    /the model differs: critic anthropic\/claude-opus-4-8, stock anthropic\/claude-sonnet-5/,
  ],
  [
    "another harness",
    { as: "stock", agent: "claude-code" },
    { as: "critic" },
    /the harness differs: critic fiable-cc, stock claude-code/,
  ],
  [
    "another Claude Code version",
    { as: "stock", version: "2.1.219" },
    { as: "critic" },
    /the Claude Code version differs: critic 2\.1\.154, stock 2\.1\.219/,
  ],
  [
    "another environment",
    { as: "stock", environment: "modal" },
    { as: "critic" },
    /the environment differs: critic docker, stock modal/,
  ],
  [
    "another packet: its model and its CLI",
    { as: "stock", packet: SONNET },
    { as: "critic" },
    /the model differs: critic anthropic\/claude-opus-4-8, stock anthropic\/claude-sonnet-5; the Claude Code version differs: critic 2\.1\.154, stock 2\.1\.197/,
  ],
];

for (const [what, stock, critic, reason] of NO_RESULT) {
  s(`no-result, with the reason: ${what}`, async () => {
    if (!HAVE) return console.warn(`skipped: ${SHARED} absent (needs ../shared beside the repo)`);
    const r = await pilot(stock, critic);
    assert.is(r.pilot!.verdict, "no-result", r.pilot!.reason);
    assert.match(r.pilot!.reason, reason);
  });
}

s("a plain comparison of the same arms warns with the same reasons (comparability, a warning)", async () => {
  if (!HAVE) return console.warn(`skipped: ${SHARED} absent (needs ../shared beside the repo)`);
  const arms = [
    { name: "stock", roots: [await build({ as: "stock", environment: "modal" })] },
    { name: "critic", roots: [await build({ as: "critic" })] },
  ];
  const r = aggregateArms(arms, { control: "stock", iters: 200, prices: {} });
  const overall = r.comparisons.find((c) => c.domain === "overall")!;
  assert.equal(overall.not_comparable, ["the environment differs: critic docker, stock modal"]);
  const warning = r.problems.find((p) => p.kind === "comparability");
  assert.match(
    warning!.message,
    /^Cannot read critic − stock as the guard's effect: the environment differs/,
  );
});

s("verify flags a trial whose Claude Code differs from its arm's pin", async () => {
  if (!HAVE) return console.warn(`skipped: ${SHARED} absent (needs ../shared beside the repo)`);
  const root = await build({ as: "critic" });
  const trial = join(root, "pa_provider", readdirSync(join(root, "pa_provider")).sort()[0]);
  const config = readJson(join(trial, "config.json"));
  config.agent.kwargs.version = "2.1.332";
  writeJson(join(trial, "config.json"), config);
  const report = verifyTrees([root]);
  const flagged = report.problems.filter((p) => /ran Claude Code/.test(p.message));
  assert.is(flagged.length, 1, JSON.stringify(report.problems, null, 1));
  assert.match(
    flagged[0].message,
    new RegExp(
      `^Cannot trust \\S+${basename(trial)} as arm critic: it ran Claude Code 2\\.1\\.154 \\(result\\.json ` +
        "agent_info\\.version\\), and its arm pins 2\\.1\\.332 \\(config\\.json agent\\.kwargs\\.version\\)",
    ),
  );
  assert.is(flagged[0].kind, "integrity");
});

s("comparability on facts alone: an arm named after no registered arm is not held to a role", () => {
  const row = { model: "m", agent: "a", agentVersion: "1", environment: "docker", ranAs: "unguarded a" };
  const a = armFacts("packet-a", [row]), b = armFacts("packet-b", [row]);
  assert.equal(comparability(a, b), []);
  assert.equal(comparability(armFacts("critic", [row]), b), [
    "arm critic did not run as critic: its trials ran as unguarded a",
  ]);
  // One packet ran 2.1.197 and 2.1.198 (2026-07-06-sonnet-5-claude-code): an arm that mixes CLIs is no arm.
  const mixed = armFacts("b", [row, { ...row, agentVersion: "2" }, { ...row, agentVersion: "2" }]);
  assert.equal(comparability(a, mixed), ["arm b mixes Claude Code versions: 1 (1), 2 (2)"]);
  const unchecked = armFacts("stock", [{ ...row, ranAs: null }]);
  assert.match(comparability(a, unchecked)[0], /how arm stock ran was not checked \(--no-tool-calls\)/);
});

s.run();
