/**
 * Installs the guarded Claude Code harness (`fiable-cc`) into a chi-bench checkout, reversibly, and writes
 * the pre-registered ablation configs.
 *
 *   deno task install --chi-bench DIR               dry run: what would change
 *   deno task install --chi-bench DIR --apply       change it (a second --apply changes nothing)
 *   deno task install --chi-bench DIR --uninstall   restore every touched file byte for byte [--force]
 *   deno task install experiments --chi-bench DIR [--model M] [--shadow] [--arm A,B] [--pilot-attempts N]
 *     [--reference R] [--apply]   dry run by default: prints the cost estimate and what it would write
 *     (configs, smoke slices, the provider pilot, run.sh)
 *   deno task install submission --chi-bench DIR --arm A --id TEAM [--apply]   a chi-bench submission YAML
 *     for the guarded arm, validated with the checkout's own SubmissionConfig when it has a venv
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { ARMS } from "./lib/guard/engine/record.ts";
import { inspectCheckout, InstallRefusal, readText, REGISTRY } from "./lib/install/checkout.ts";
import { applyPlan } from "./lib/install/apply.ts";
import { diskFs, fsIsDir, fsLinkOf, fsReader, inside, type InstallFs } from "./lib/install/fs.ts";
import { AGENTS_DIR, type AssetKey, HARNESSES } from "./lib/install/harnesses.ts";
import {
  runEnv,
  SLUG,
  submissionFile,
  submissionId,
  type SubmissionOptions,
} from "./lib/install/submission.ts";
import { buildCommit } from "./lib/guard/build_line.ts";
import { desiredInstall, type Sources } from "./lib/install/desired.ts";
import { MANIFEST, type Manifest, parseManifest, STATE_DIR } from "./lib/install/manifest.ts";
import { planLeftState, planUninstall, planWrites } from "./lib/install/plan.ts";
import { renderPlan } from "./lib/install/render.ts";
import {
  DATASET_VERSION,
  DATASET_VERSION_FILE,
  DEFAULT_EXPERIMENT,
  type Domain,
  DOMAINS,
  experimentFiles,
  type ExperimentOptions,
  EXPERIMENTS_DIR,
  PILOT_ARMS,
  PILOT_DOMAIN,
  PREREGISTERED_ARMS,
  RUN_SCRIPT,
  type RunNotes,
  stageTrials,
  wrap,
} from "./lib/install/experiments.ts";
import {
  costPhrase,
  estimateCost,
  estimateLines,
  pickReference,
  type Reference,
  referenceFrom,
  type ReferenceTable,
} from "./lib/install/estimate.ts";
import { parsePrices, type Prices } from "./lib/results/cost.ts";
import { type PilotPrediction, predictionParagraph } from "./lib/install/prediction.ts";
import { findTrials, readTrial } from "./lib/results/trials.ts";
import { CliError, type CommandSpec, helpText, parse, wantsHelp } from "./lib/cli.ts";
import { bundleAgent, bundleGuard, DEFAULT_AGENT_BUNDLE, DEFAULT_BUNDLE } from "./bundle.ts";
import { ensurePackages } from "./lib/packages.ts";

const ROOT = import.meta.dirname ?? ".";
/** `deno task install`. */
export const INSTALL_CLI: CommandSpec = {
  name: "install",
  summary:
    "Registers the guarded harness `fiable-cc` (and `fiable-agent`) in a chi-bench checkout; dry run " +
    "by default, byte-for-byte uninstall.",
  usage: [
    "deno task install --chi-bench DIR [--apply|--uninstall]",
    "deno task install experiments --chi-bench DIR [options]   (deno task install experiments --help)",
    "deno task install submission --chi-bench DIR --arm A --id TEAM [options]   (… submission --help)",
  ],
  options: {
    "chi-bench": {
      type: "string",
      value: "DIR",
      description: "the root of your chi-bench checkout (required)",
    },
    bundle: {
      type: "string",
      value: "FILE",
      defaultNote: "built now into dist/fiable-guard.cjs",
      description: "the guard bundle to install",
    },
    apply: { type: "boolean", description: "make the changes (without it: a dry run, nothing written)" },
    uninstall: { type: "boolean", description: "restore every touched file byte for byte" },
    force: {
      type: "boolean",
      description:
        "with --uninstall: restore files edited since the install, keeping each edit as .fiable-kept",
    },
  },
  args: "none",
  commands: [
    { name: "experiments", description: "write the pre-registered ablation configs and run.sh" },
    { name: "submission", description: "write a chi-bench submission YAML for one guarded arm" },
  ],
  notes: ["Exit codes: 0 done (or nothing to do), 2 refused (nothing written)."],
  example: "deno task install --chi-bench ~/src/chi-bench --apply",
};

/** `deno task install experiments`. */
export const EXPERIMENTS_CLI: CommandSpec = {
  name: "install experiments",
  summary:
    "Prints the cost of each stage and what replay predicts for the pilot, then (dry run unless `--apply`) " +
    "writes the ablation configs (4 arms × 3 domains × 3 attempts, one pinned Claude Code), their smoke " +
    "slices, the provider pilot (stock vs critic, every provider task) and the staged `run.sh` (no stage: " +
    "the list; each stage checks its prerequisites and prints its spend; `full` only after a go, confirmed).",
  usage: ["deno task install experiments --chi-bench DIR [options] [--apply]"],
  options: {
    "chi-bench": {
      type: "string",
      value: "DIR",
      description: "the root of your chi-bench checkout (required)",
    },
    model: {
      type: "string",
      value: "M",
      default: DEFAULT_EXPERIMENT.model,
      description: "the vendor-prefixed model every arm runs",
    },
    arm: {
      type: "string",
      value: "A,B",
      multiple: true,
      default: PREREGISTERED_ARMS.join(","),
      description: `arms: ${ARMS.join(", ")}`,
    },
    shadow: { type: "boolean", description: "add the shadow arm" },
    concurrency: {
      type: "string",
      value: "N",
      default: String(DEFAULT_EXPERIMENT.concurrency),
      description: "trials at once",
    },
    environment: {
      type: "string",
      value: "docker|modal",
      default: DEFAULT_EXPERIMENT.environment,
      description: "where Harbor runs every stage's trials (smoke, pilot and ablation alike)",
    },
    "claude-version": {
      type: "string",
      value: "X.Y.Z",
      default: DEFAULT_EXPERIMENT.claudeVersion,
      description: "the Claude Code version every arm installs (the default: the newest the project's " +
        "end-to-end tests cover)",
    },
    "dataset-version": {
      type: "string",
      value: "REV",
      defaultNote: `the checkout's ${DATASET_VERSION_FILE}, else ${DATASET_VERSION}`,
      description: "the dataset revision the configs are written for (run.sh refuses other data)",
    },
    "pilot-attempts": {
      type: "string",
      value: "N",
      default: String(DEFAULT_EXPERIMENT.pilotAttempts),
      description: `attempts per task in the pilot (${PILOT_ARMS.join(" vs ")}, every ${PILOT_DOMAIN} task)`,
    },
    reference: {
      type: "string",
      value: "R",
      defaultNote: "the packet closest to --model",
      description: "the cost estimate's reference: a packet id in data/reference_tokens.json or a trial dir",
    },
    prices: {
      type: "string",
      value: "FILE",
      default: "data/prices.yaml",
      description: "prices for the estimate",
    },
    apply: { type: "boolean", description: "write the files (without it: a dry run, nothing written)" },
  },
  args: "none",
  notes: ["Exit codes: 0 done (or nothing to do), 2 refused (nothing written)."],
  example: "deno task install experiments --chi-bench ~/src/chi-bench --arm stock,checklist --apply",
};
/** `deno task install submission`. */
export const SUBMISSION_CLI: CommandSpec = {
  name: "install submission",
  summary: "Writes (dry run unless `--apply`) a chi-bench submission YAML for one guarded arm " +
    "(`cb submission validate | run | prepare`): agent fiable-cc, the arm, the model, one attempt, the " +
    "checkout's dataset version, all three domains; validated with the checkout's own `SubmissionConfig`.",
  usage: ["deno task install submission --chi-bench DIR --arm A --id TEAM [--apply]"],
  options: {
    "chi-bench": {
      type: "string",
      value: "DIR",
      description: "the root of your chi-bench checkout (required)",
    },
    arm: { type: "string", value: "ARM", description: `the arm: ${ARMS.join(", ")} (required)` },
    id: {
      type: "string",
      value: "TEAM",
      description: "your team's slug (lowercase letters, digits, - and _); the submission id is " +
        "TEAM-fiable-cc-ARM (required)",
    },
    team: {
      type: "string",
      value: "NAME",
      defaultNote: "TEAM",
      description: "the name the leaderboard shows",
    },
    contact: {
      type: "string",
      value: "EMAIL",
      defaultNote: "the checkout's git user.email",
      description: "the contact email (not published)",
    },
    model: {
      type: "string",
      value: "M",
      default: DEFAULT_EXPERIMENT.model,
      description: "the vendor-prefixed model",
    },
    "claude-version": {
      type: "string",
      value: "X.Y.Z",
      default: DEFAULT_EXPERIMENT.claudeVersion,
      description: "the Claude Code version to pin (the run's FIABLE_CC_CLAUDE_VERSION), as install " +
        "experiments pins it in every arm",
    },
    attempts: {
      type: "string",
      value: "N",
      default: "1",
      description: "attempts per task (leaderboard policy: 1)",
    },
    environment: {
      type: "string",
      value: "docker|modal",
      default: "modal",
      description: "where Harbor runs the trials",
    },
    concurrency: { type: "string", value: "N", default: "5", description: "trials at once per domain" },
    "dataset-version": {
      type: "string",
      value: "V",
      defaultNote: DATASET_VERSION_FILE,
      description: "the dataset revision tag",
    },
    python: {
      type: "string",
      value: "PATH",
      defaultNote: "the checkout's .venv/bin/python",
      description: "the Python that validates the YAML with chi-bench's SubmissionConfig",
    },
    apply: { type: "boolean", description: "write the file (without it: a dry run, nothing written)" },
  },
  args: "none",
  notes: [
    "The arm reaches the harness through the host env of the run (a submission has no agent kwargs); the",
    "YAML's header and this command print the exact `cb submission run` line.",
    "Exit codes: 0 done (or nothing to do), 2 refused (nothing written).",
  ],
  example: "deno task install submission --chi-bench ../chi-bench --arm critic --id acme --apply",
};

/** Tasks per domain in chi-bench v1.0.0, when the checkout has no data yet. */
const V1_TASKS = 25;

/**
 * Parsed flags as `--name` → value (a repeatable one's values joined by ",") or true; only the flags given.
 * Throws a CliError on an unknown flag, a missing value or a stray argument.
 */
export function parseFlags(args: string[], spec: CommandSpec): Record<string, string | true> {
  const p = parse(spec, args);
  const out: Record<string, string | true> = {};
  for (const name of Object.keys(spec.options)) {
    if (!p.given(name)) continue;
    out[`--${name}`] = spec.options[name].type === "boolean" ? true : p.strings(name).join(",");
  }
  return out;
}

function checkoutDir(flags: Record<string, string | true>, action: string): string {
  const given = flags["--chi-bench"];
  if (typeof given !== "string") {
    throw new InstallRefusal(
      `Cannot ${action}: --chi-bench is missing. Pass the root of your chi-bench checkout, e.g. --chi-bench ../chi-bench.`,
    );
  }
  const dir = resolve(given);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InstallRefusal(
      `Cannot ${action} into ${dir}: no such folder. Clone actava-ai/chi-bench there first.`,
    );
  }
  return dir;
}

/** The checkout's manifest, every path it lists checked to stay inside the checkout on disk too. */
function readManifest(fs: InstallFs, dir: string): Manifest | null {
  const text = readText(fsReader(fs, dir), MANIFEST);
  if (text === null) return null;
  const manifest = parseManifest(text);
  for (const path of [...manifest.dirs, ...manifest.files.map((f) => f.path)]) inside(fs, dir, path);
  return manifest;
}

/** How each built asset is made; `--bundle FILE` stands in for the guard bundle. A new harness adds its own. */
const ASSET_BUILDERS: Record<AssetKey, (given?: string) => Promise<string>> = {
  guard: (given) => given ? Promise.resolve(given) : bundleGuard(DEFAULT_BUNDLE),
  agent: () => agentBundle ??= bundleAgent(DEFAULT_AGENT_BUNDLE),
};
/** The fiable-agent bundle, built once per process (the installer's tests call loadSources many times). */
let agentBundle: Promise<string> | undefined;

/** Template and asset bytes: templates/ from this checkout, assets built now (or --bundle FILE for the guard). */
export async function loadSources(bundle?: string): Promise<Sources> {
  const sources: Sources = { templates: {}, assets: {} };
  for (const file of HARNESSES.flatMap((h) => h.files)) {
    if ("template" in file.from) {
      sources.templates[file.from.template] = new Uint8Array(
        readFileSync(join(ROOT, "templates", file.from.template)),
      );
    } else if (!sources.assets[file.from.asset]) {
      const key = file.from.asset;
      const path = await ASSET_BUILDERS[key](key === "guard" ? bundle : undefined);
      sources.assets[key] = new Uint8Array(readFileSync(path));
    }
  }
  return sources;
}

/** How to finish after a failed write: every step is journalled, so rerunning picks up where it stopped. */
const RESUME = "run the same command again: it picks up where it stopped";

async function install(args: string[], fs: InstallFs): Promise<number> {
  const flags = parseFlags(args, INSTALL_CLI);
  if (flags["--apply"] && flags["--uninstall"]) {
    throw new InstallRefusal(
      "Cannot install: --apply and --uninstall contradict each other. Use one of them.",
    );
  }
  const dir = checkoutDir(flags, "install");
  const read = fsReader(fs, dir);
  const isDir = fsIsDir(fs, dir);
  const linkOf = fsLinkOf(fs, dir);
  const manifest = readManifest(fs, dir);
  if (flags["--uninstall"]) {
    const plan = manifest
      ? planUninstall(read, manifest, { force: flags["--force"] === true, linkOf })
      : planLeftState(read, isDir);
    if (!plan) {
      console.log(`Nothing to uninstall: ${dir} has no ${MANIFEST}.`);
      return 0;
    }
    applyPlan(fs, dir, plan, `run --uninstall again: it picks up where it stopped`);
    if (!manifest) {
      console.log(
        isDir(STATE_DIR)
          ? `Nothing to uninstall: ${dir} has no ${MANIFEST}, and ${STATE_DIR}/ holds files install.ts did not write, so it stays.`
          : `Removed the ${STATE_DIR}/ folder an interrupted install left in ${dir}; nothing else was installed${
            plan.changes.length ? ":" : "."
          }`,
      );
      if (plan.changes.length) console.log(renderPlan(plan).join("\n"));
      return 0;
    }
    console.log(`Uninstalled from ${dir}:`);
    console.log(renderPlan(plan).join("\n"));
    return 0;
  }
  const info = inspectCheckout(dir, read);
  const sources = await loadSources(
    typeof flags["--bundle"] === "string" ? resolve(flags["--bundle"]) : undefined,
  );
  const plan = planWrites(read, desiredInstall(info.registry, sources), manifest, isDir, linkOf);
  const names = HARNESSES.map((h) => h.name).join(", ");
  if (!plan.changes.length) {
    console.log(`Nothing to change: ${names} ${HARNESSES.length > 1 ? "are" : "is"} installed in ${dir}.`);
    return 0;
  }
  console.log(`${names} into ${dir} (uv.lock pins harbor ${info.harbor}):`);
  console.log(renderPlan(plan).join("\n"));
  if (!flags["--apply"]) {
    console.log("Dry run: nothing written. Run again with --apply to make these changes.");
    return 0;
  }
  applyPlan(fs, dir, plan, `${RESUME} (or --uninstall restores the checkout as it was)`);
  console.log(`Installed. Undo with: deno task install --chi-bench ${dir} --uninstall`);
  if (!isDir(".venv")) {
    console.log("Note: no .venv yet; run `uv sync --extra dev` in the checkout (it locks Harbor 0.20).");
  }
  return 0;
}

/** Experiment options from flags, every value checked. */
export function experimentOptions(flags: Record<string, string | true>): ExperimentOptions {
  const opts: ExperimentOptions = { ...DEFAULT_EXPERIMENT, arms: [...PREREGISTERED_ARMS] };
  const action = "write experiments";
  if (typeof flags["--arm"] === "string") {
    const arms = flags["--arm"].split(",").map((a) => a.trim()).filter(Boolean);
    for (const arm of arms) {
      if (!(ARMS as readonly string[]).includes(arm)) {
        throw new InstallRefusal(
          `Cannot ${action}: --arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.`,
        );
      }
    }
    opts.arms = ARMS.filter((a) => arms.includes(a));
  }
  if (flags["--shadow"] && !opts.arms.includes("shadow")) {
    opts.arms = ARMS.filter((a) => a === "shadow" || opts.arms.includes(a));
  }
  const model = flags["--model"];
  if (typeof model === "string") {
    if (!/^[\w.-]+\/\S+$/.test(model)) {
      throw new InstallRefusal(
        `Cannot ${action}: --model "${model}" has no provider prefix. Use a vendor-prefixed name such as anthropic/claude-opus-5.`,
      );
    }
    opts.model = model;
  }
  const concurrency = flags["--concurrency"];
  if (typeof concurrency === "string") {
    if (!/^[1-9]\d*$/.test(concurrency)) {
      throw new InstallRefusal(
        `Cannot ${action}: --concurrency "${concurrency}" is not a positive whole number. Use e.g. 5.`,
      );
    }
    opts.concurrency = Number(concurrency);
  }
  const environment = flags["--environment"];
  if (typeof environment === "string") {
    if (environment !== "docker" && environment !== "modal") {
      throw new InstallRefusal(
        `Cannot ${action}: --environment "${environment}" is unknown. Use one of docker, modal.`,
      );
    }
    opts.environment = environment;
  }
  if (typeof flags["--claude-version"] === "string") {
    if (!/^\d+\.\d+\.\d+$/.test(flags["--claude-version"])) {
      throw new InstallRefusal(
        `Cannot ${action}: --claude-version "${
          flags["--claude-version"]
        }" is not a version. Use X.Y.Z, e.g. 2.1.219.`,
      );
    }
    opts.claudeVersion = flags["--claude-version"];
  }
  const dataset = flags["--dataset-version"];
  if (typeof dataset === "string") {
    if (!/^[\w.-]+$/.test(dataset)) {
      throw new InstallRefusal(
        `Cannot ${action}: --dataset-version "${dataset}" is not a revision tag. Use e.g. ${DATASET_VERSION}.`,
      );
    }
    opts.datasetVersion = dataset;
  }
  const pilotAttempts = flags["--pilot-attempts"];
  if (typeof pilotAttempts === "string") {
    if (!/^[1-9]\d*$/.test(pilotAttempts)) {
      throw new InstallRefusal(
        `Cannot ${action}: --pilot-attempts "${pilotAttempts}" is not a positive whole number. Use 1 or 2.`,
      );
    }
    opts.pilotAttempts = Number(pilotAttempts);
  }
  return opts;
}

/** Tasks per domain: the task folders in the checkout's data, else v1.0.0's 25 (and which were assumed). */
function taskCounts(dir: string): { tasks: Record<string, number>; assumed: string[] } {
  const tasks: Record<string, number> = {};
  const assumed: string[] = [];
  for (const [domain, folder] of Object.entries(DOMAINS)) {
    const at = join(dir, "data", folder, "tasks");
    let n = 0;
    try {
      n = readdirSync(at, { withFileTypes: true }).filter((e) => e.isDirectory()).length;
    } catch {
      // No data yet: the v1.0.0 count below.
    }
    if (!n) assumed.push(domain);
    tasks[domain] = n || V1_TASKS;
  }
  return { tasks, assumed };
}

/** The reference for the estimate: a packet id in data/reference_tokens.json, a trial tree, or the default. */
function loadReference(
  given: string | undefined,
  model: string,
  prices: Prices,
): { reference: Reference; why: string; table: ReferenceTable } {
  const table = JSON.parse(
    readFileSync(join(ROOT, "data", "reference_tokens.json"), "utf8"),
  ) as ReferenceTable;
  if (given === undefined) return { ...pickReference(table, model, prices), table };
  const named = table.packets.find((p) => p.id === given);
  if (named) return { reference: named, why: "--reference names it", table };
  if (!existsSync(given)) {
    throw new InstallRefusal(
      `Cannot estimate the cost: --reference "${given}" is neither a packet in data/reference_tokens.json ` +
        `nor a folder. Use one of ${table.packets.map((p) => p.id).join(", ")}, or a trial dir.`,
    );
  }
  const reference = referenceFrom(
    basename(resolve(given)),
    resolve(given),
    findTrials([given]).map(readTrial),
  );
  if (!Object.keys(reference.domains).length) {
    throw new InstallRefusal(
      `Cannot estimate the cost from ${
        resolve(given)
      }: it has no scored trials with token counts. Pass a folder of finished trials.`,
    );
  }
  return { reference, why: "--reference names it", table };
}

/** The pilot prediction shipped in data/ (scripts/pilot_prediction.ts makes it from the real packets). */
function loadPrediction(): PilotPrediction {
  return JSON.parse(readFileSync(join(ROOT, "data", "pilot_prediction.json"), "utf8")) as PilotPrediction;
}

async function experiments(args: string[], fs: InstallFs): Promise<number> {
  const flags = parseFlags(args, EXPERIMENTS_CLI);
  const opts = experimentOptions(flags);
  const dir = checkoutDir(flags, "write experiments");
  const read = fsReader(fs, dir);
  const isDir = fsIsDir(fs, dir);
  const info = inspectCheckout(dir, read);
  const registered = info.registry.includes(`"${HARNESSES[0].name}":`);
  const register = `deno task install --chi-bench ${dir} --apply`;
  if (flags["--apply"] && !registered) {
    throw new InstallRefusal(
      `Cannot write experiments into ${dir}: ${HARNESSES[0].name} is not registered in ${REGISTRY}, so ` +
        `every arm would fail to start. Run ${register} first, then this command again.`,
    );
  }
  const onDisk = readText(read, DATASET_VERSION_FILE)?.trim();
  if (flags["--dataset-version"] === undefined && onDisk) opts.datasetVersion = onDisk;
  const pricesPath = typeof flags["--prices"] === "string"
    ? resolve(flags["--prices"])
    : join(ROOT, "data", "prices.yaml");
  let prices: Prices;
  try {
    prices = await parsePrices(readFileSync(pricesPath, "utf8"));
  } catch (err) {
    throw new InstallRefusal(
      `Cannot read prices ${pricesPath}: ${(err as Error).message}. Pass --prices FILE.`,
    );
  }
  const ref = loadReference(flags["--reference"] as string | undefined, opts.model, prices);
  const { tasks, assumed } = taskCounts(dir);
  const plan = {
    model: opts.model,
    arms: opts.arms.length,
    attempts: opts.nAttempts,
    tasks,
    pilot: { arms: PILOT_ARMS, domain: PILOT_DOMAIN, attempts: opts.pilotAttempts },
  };
  const cost = estimateCost(plan, ref, prices, ref.table.published, {
    tokensFirst: flags["--reference"] !== undefined,
  });
  const estimate = estimateLines(
    cost,
    plan,
    typeof flags["--prices"] === "string" ? basename(pricesPath) : "fiable-agent data/prices.yaml",
  );
  if (assumed.length) {
    estimate.push(
      `  (${V1_TASKS} tasks assumed for ${assumed.join(", ")}: no task folders in the checkout yet)`,
    );
  }
  const trials = stageTrials(opts, tasks as Record<Domain, number>);
  const phrase = (c: typeof cost.smoke | null) => c && cost.price ? costPhrase(c, cost) : "≈ unknown";
  const notes: RunNotes = {
    estimate,
    costs: {
      smoke: phrase(cost.smoke),
      pilot: phrase(cost.pilot),
      first: phrase(cost.first),
      full: phrase(cost.full),
    },
    prediction: predictionParagraph(loadPrediction(), {
      model: opts.model,
      attempts: opts.pilotAttempts,
      trials: trials.pilot,
    }),
  };
  const pinned = opts.claudeVersion === DEFAULT_EXPERIMENT.claudeVersion
    ? "the newest the project's end-to-end tests cover; --claude-version V to choose another"
    : "--claude-version";
  console.log(
    [
      ...estimate,
      "",
      ...wrap(
        `Every arm installs Claude Code ${opts.claudeVersion} (${pinned}; agent kwarg version, which Harbor ` +
          `installs exactly), runs on ${opts.environment} in every stage, and is written for the data at ` +
          `${opts.datasetVersion} (${DATASET_VERSION_FILE}); verify flags a trial whose CLI differs from its ` +
          "arm's pin.",
      ),
      "",
      ...wrap(notes.prediction),
      "",
    ].join("\n"),
  );
  if (!registered) {
    console.log(
      `Note: ${HARNESSES[0].name} is not in ${REGISTRY} yet; --apply refuses until you run ${register}.`,
    );
  }
  const writes = planWrites(
    read,
    await experimentFiles(opts, notes, tasks as Record<Domain, number>),
    readManifest(fs, dir),
    isDir,
    fsLinkOf(fs, dir),
  );
  if (!writes.changes.length) {
    console.log(`Nothing to change: the ablation configs in ${join(dir, EXPERIMENTS_DIR)} are current.`);
  } else {
    const what =
      `the pre-registered ablation (arms ${opts.arms.join(", ")}; model ${opts.model}), its smoke ` +
      "run, the provider pilot and the staged run script";
    console.log(`${flags["--apply"] ? "Writing" : "Would write"} ${what} into ${dir}:`);
    console.log(renderPlan(writes).join("\n"));
    if (!flags["--apply"]) {
      console.log("Dry run: nothing written. Run again with --apply to write these files.");
      return 0;
    }
    applyPlan(fs, dir, writes, `${RESUME} (or install.ts --uninstall removes what it wrote)`);
  }
  const script = `FIABLE_AGENT_DIR=${ROOT} sh ${join(dir, RUN_SCRIPT)}`;
  console.log(
    [
      "",
      "Run it staged; each stage first checks uv and chi-bench's environment, " +
      `${opts.environment === "modal" ? "a Modal token" : "Docker"}, the task data, an API key, fiable-cc ` +
      "and Harbor 0.20, and spends nothing when one is missing:",
      `  ${script}             # the stages, their trials and cost; runs nothing`,
      `  ${script} pilot       # the first spend: smoke, then the pilot, ${trials.first} trials ${notes.costs.first}`,
      `  ${script} full --yes  # the full ablation, ${trials.full} trials, only after a go`,
      `Commands by hand and the aggregate command: ${join(dir, EXPERIMENTS_DIR, "README.md")}`,
    ].join("\n"),
  );
  const missing = Object.values(DOMAINS).filter((d) => !isDir(`data/${d}/tasks`));
  if (missing.length) {
    console.log(
      `Note: ${missing.map((d) => `data/${d}/tasks`).join(", ")} not found; run.sh refuses until you fetch ` +
        `the dataset (uv run cb data download --revision ${opts.datasetVersion}).`,
    );
  } else if (onDisk !== opts.datasetVersion) {
    console.log(
      `Note: ${DATASET_VERSION_FILE} ${
        onDisk ? `records ${onDisk}` : "is missing"
      }; run.sh refuses until it ` +
        `records ${opts.datasetVersion} (uv run cb data download --revision ${opts.datasetVersion}).`,
    );
  }
  return 0;
}

/** The submission's options from flags and the checkout, every value checked before anything is written. */
function submissionOptions(flags: Record<string, string | true>, dir: string): SubmissionOptions {
  const action = "write the submission";
  const arm = flags["--arm"];
  if (typeof arm !== "string" || !(ARMS as readonly string[]).includes(arm)) {
    throw new InstallRefusal(
      `Cannot ${action}: --arm ${
        typeof arm === "string" ? `"${arm}" is unknown` : "is missing"
      }. Use one of ${ARMS.join(", ")}.`,
    );
  }
  const id = flags["--id"];
  if (typeof id !== "string" || !SLUG.test(id)) {
    throw new InstallRefusal(
      `Cannot ${action}: --id ${
        typeof id === "string" ? `"${id}" is not a slug` : "is missing"
      }. Use your team's slug: lowercase letters, digits, - and _ (e.g. --id acme-lab).`,
    );
  }
  const opts = experimentOptions({
    ...(typeof flags["--model"] === "string" ? { "--model": flags["--model"] } : {}),
    ...(typeof flags["--claude-version"] === "string"
      ? { "--claude-version": flags["--claude-version"] }
      : {}),
    ...(typeof flags["--environment"] === "string" ? { "--environment": flags["--environment"] } : {}),
    ...(typeof flags["--concurrency"] === "string" ? { "--concurrency": flags["--concurrency"] } : {}),
  });
  const attempts = typeof flags["--attempts"] === "string" ? flags["--attempts"] : "1";
  if (!/^([1-9]|10)$/.test(attempts)) {
    throw new InstallRefusal(
      `Cannot ${action}: --attempts "${attempts}" is not 1 to 10. Use 1 (leaderboard policy).`,
    );
  }
  let datasetVersion = typeof flags["--dataset-version"] === "string"
    ? flags["--dataset-version"].trim()
    : null;
  if (datasetVersion === "") {
    throw new InstallRefusal(
      `Cannot ${action}: --dataset-version is blank. Pass the dataset's revision tag, e.g. chi-bench-v1.0.0.`,
    );
  }
  if (datasetVersion === null) {
    const pinned = join(dir, DATASET_VERSION_FILE);
    datasetVersion = existsSync(pinned) ? readFileSync(pinned, "utf8").trim() : "";
    if (!datasetVersion) {
      throw new InstallRefusal(
        `Cannot ${action}: ${pinned} is missing or empty, so the dataset version is unknown. Download the ` +
          "dataset with `uv run cb data download --revision <tag>` (it writes that file), or pass --dataset-version.",
      );
    }
  }
  let contact = typeof flags["--contact"] === "string" ? flags["--contact"] : "";
  if (!contact) {
    const git = spawnSync("git", ["-C", dir, "config", "user.email"], { encoding: "utf8" });
    contact = git.status === 0 ? git.stdout.trim() : "";
    if (!contact) {
      throw new InstallRefusal(
        `Cannot ${action}: --contact is missing and ${dir} has no git user.email. Pass --contact EMAIL ` +
          "(chi-bench keeps it for follow-up and does not publish it).",
      );
    }
  }
  const guard = join(dir, AGENTS_DIR, HARNESSES[0].files[1].to);
  return {
    id,
    arm: arm as SubmissionOptions["arm"],
    team: typeof flags["--team"] === "string" ? flags["--team"] : id,
    contact,
    model: opts.model,
    environment: typeof flags["--environment"] === "string" ? opts.environment : "modal",
    attempts: Number(attempts),
    concurrency: typeof flags["--concurrency"] === "string" ? opts.concurrency : 5,
    datasetVersion,
    claudeVersion: opts.claudeVersion,
    guardCommit: existsSync(guard) ? buildCommit(readFileSync(guard, "utf8").slice(0, 200)) : null,
  };
}

/**
 * Validates YAML bytes with chi-bench's own `SubmissionConfig` in `python` (the checkout's venv): null when
 * they validate, else the error's last line.
 */
export function validateSubmission(python: string, dir: string, bytes: Uint8Array): string | null {
  const tmp = mkdtempSync(join(tmpdir(), "fiable-submission-"));
  try {
    const file = join(tmp, "sub.yaml");
    writeFileSync(file, bytes);
    const out = spawnSync(python, [
      "-c",
      "import sys\nfrom chi_bench.experiment.submission import SubmissionConfig\n" +
      "SubmissionConfig.from_yaml(sys.argv[1])",
      file,
    ], { cwd: dir, encoding: "utf8", env: { ...Deno.env.toObject(), PYTHONPATH: join(dir, "src") } });
    if (out.status === 0) return null;
    return (out.stderr || out.error?.message || `exit ${out.status}`).trim().split("\n").slice(-3).join(" ");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function submission(args: string[], fs: InstallFs): Promise<number> {
  const flags = parseFlags(args, SUBMISSION_CLI);
  const dir = checkoutDir(flags, "write the submission");
  const opts = submissionOptions(flags, dir);
  const read = fsReader(fs, dir);
  const isDir = fsIsDir(fs, dir);
  const info = inspectCheckout(dir, read);
  const register = `deno task install --chi-bench ${dir} --apply`;
  if (flags["--apply"] && !info.registry.includes(`"${HARNESSES[0].name}":`)) {
    throw new InstallRefusal(
      `Cannot write the submission into ${dir}: ${HARNESSES[0].name} is not registered in ${REGISTRY}, so ` +
        `the run would fail to start. Run ${register} first, then this command again.`,
    );
  }
  const file = await submissionFile(opts);
  // A bare name (python3) is looked up on PATH; a path is taken from the current folder.
  const python = typeof flags["--python"] === "string"
    ? flags["--python"].includes("/") ? resolve(flags["--python"]) : flags["--python"]
    : existsSync(join(dir, ".venv", "bin", "python"))
    ? join(dir, ".venv", "bin", "python")
    : null;
  if (python) {
    const why = validateSubmission(python, dir, file.bytes);
    if (why) {
      throw new InstallRefusal(
        `Cannot write ${file.path}: validating it with chi-bench's SubmissionConfig failed (${why}). Check ` +
          "the flags, and that --python (or the checkout's .venv) has chi-bench installed (uv sync --extra dev).",
      );
    }
  }
  if (opts.attempts > 1) {
    console.log(
      `Note: ${opts.attempts} attempts per task; leaderboard policy is 1 (chi-bench warns, keeps them, and ` +
        "publishes pass@1).",
    );
  }
  const writes = planWrites(read, [file], readManifest(fs, dir), isDir, fsLinkOf(fs, dir));
  if (!writes.changes.length) console.log(`Nothing to change: ${join(dir, file.path)} is current.`);
  else {
    console.log(
      `${flags["--apply"] ? "Writing" : "Would write"} the submission ${submissionId(opts)} into ${dir}:`,
    );
    console.log(renderPlan(writes).join("\n"));
    if (!flags["--apply"]) {
      console.log("Dry run: nothing written. Run again with --apply to write it.");
      return 0;
    }
    applyPlan(fs, dir, writes, `${RESUME} (or install.ts --uninstall removes what it wrote)`);
  }
  console.log(
    [
      python
        ? `Validated with chi-bench's SubmissionConfig (${python}).`
        : `Not validated here (no ${join(dir, ".venv", "bin", "python")}): run the validate line below.`,
      "From the checkout:",
      `  uv run cb submission validate -f ${file.path}`,
      `  ${runEnv(opts)} uv run cb submission run -f ${file.path}`,
      `  uv run cb submission prepare -f ${file.path}`,
      `Then, from fiable-agent: deno task packet <the packet dir prepare printed>`,
    ].join("\n"),
  );
  return 0;
}

/**
 * Entry: `install.ts [experiments|submission] …`; `--help` prints the help; refusals print their reason and exit 2. `fs` is
 * the checkout's filesystem (a test passes a faulty one).
 */
export async function main(args: string[], fs: InstallFs = diskFs): Promise<number> {
  const sub = args[0] === "experiments" || args[0] === "submission" ? args[0] : null;
  if (wantsHelp(args)) {
    console.log(helpText(sub === "experiments" ? EXPERIMENTS_CLI : sub ? SUBMISSION_CLI : INSTALL_CLI));
    return 0;
  }
  try {
    if (sub === "submission") return await submission(args.slice(1), fs);
    return sub ? await experiments(args.slice(1), fs) : await install(args, fs);
  } catch (err) {
    if (!(err instanceof InstallRefusal) && !(err instanceof CliError)) throw err;
    console.error(err.message);
    return 2;
  }
}

if (import.meta.main) {
  await ensurePackages(import.meta.url);
  Deno.exit(await main(Deno.args));
}
