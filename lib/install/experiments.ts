/**
 * The pre-registered ablation as chi-bench experiment configs (flat `ExperimentConfig` YAML, harness.md §4):
 * one file per arm × domain, every arm in its own trials_dir (chi-bench's aggregator would merge arms that
 * share a model), identical model, timeouts, attempts and concurrency across arms; the smoke slices (one
 * task per domain per arm, one attempt), the pilot (stock vs critic on every provider task) and the run
 * script whose stages each check the prerequisites, say what they spend, and run: smoke → verify; pilot (smoke
 * first) → verify → go / no-go; full ablation only when named, after a go, confirmed.
 * Protocol: docs/EVALUATION_PROTOCOL.md.
 */
import type { Arm } from "../guard/engine/record.ts";
import type { Desired } from "./plan.ts";
import { registeredAmong } from "../results/protocol.ts";
import { VERDICT_FILE } from "../results/pilot.ts";
import { PINNED_CLAUDE_CODE } from "./claude_code.ts";
import { REGISTRY } from "./checkout.ts";
import { AGENTS_DIR, HARNESSES } from "./harnesses.ts";

/** Benchmark domains and their chi-bench data folders. */
export const DOMAINS = {
  pa_provider: "prior_auth_provider",
  pa_um: "prior_auth_um",
  cm: "care_management",
} as const;
/** A benchmark domain. */
export type Domain = keyof typeof DOMAINS;

/** The arms the protocol runs by default; `shadow` only on request (it changes nothing the agent sees). */
export const PREREGISTERED_ARMS: Arm[] = ["stock", "plan", "checklist", "critic"];

/** Where the configs go in the checkout, and where their trials go. */
export const EXPERIMENTS_DIR = "configs/experiments/fiable";
export const TRIALS_ROOT = "logs/experiments/fiable";
/** The smoke run's configs and trials: one task per domain per arm, one attempt, apart from the ablation's. */
export const SMOKE_DIR = `${EXPERIMENTS_DIR}/smoke`;
export const SMOKE_TRIALS_ROOT = "logs/experiments/fiable-smoke";
/**
 * The pilot (protocol v3): the provider domain only, stock against the full guard, every provider task, in its
 * own configs and trials dirs; its trials never enter the ablation's analysis.
 */
export const PILOT_DIR = `${EXPERIMENTS_DIR}/pilot`;
export const PILOT_TRIALS_ROOT = "logs/experiments/fiable-pilot";
/** Where run.sh writes the pilot's aggregate (and its verdict file, lib/results/pilot.ts). */
export const PILOT_RESULTS = `${PILOT_TRIALS_ROOT}/results`;
export const PILOT_ARMS: Arm[] = ["stock", "critic"];
export const PILOT_DOMAIN: Domain = "pa_provider";
/** The staged run script: smoke → verify → pilot → verify → go/no-go → full ablation. */
export const RUN_SCRIPT = `${EXPERIMENTS_DIR}/run.sh`;
/** The Deno the run script runs fiable-agent's verify with (the project's pinned runtime). */
export const DENO = "npx -y deno@2.9.6";
/** The dataset revision the packets, the published rates and the replay figures come from. */
export const DATASET_VERSION = "chi-bench-v1.0.0";
/** Where chi-bench records the dataset revision on disk (`cb data download` writes it). */
export const DATASET_VERSION_FILE = "data/.chi-bench-version";

/** Knobs shared by every arm. */
export interface ExperimentOptions {
  model: string;
  arms: Arm[];
  concurrency: number;
  nAttempts: number;
  maxRetries: number;
  agentTimeoutMultiplier: number;
  environment: "docker" | "modal";
  /**
   * The Claude Code version every arm installs (agent kwarg `version`: Harbor installs exactly it, whatever the
   * image baked in); default the newest the project's end-to-end matrix covers (lib/install/claude_code.ts).
   */
  claudeVersion: string;
  /** The dataset revision the configs are written for; run.sh refuses data whose data/.chi-bench-version differs. */
  datasetVersion: string;
  /** Attempts per task in the pilot (the protocol's pilot runs 1). */
  pilotAttempts: number;
}

/** The protocol's defaults (chi-bench's table 1 settings, the same-model Opus 5 baseline). */
export const DEFAULT_EXPERIMENT: ExperimentOptions = {
  model: "anthropic/claude-opus-5",
  arms: PREREGISTERED_ARMS,
  concurrency: 5,
  nAttempts: 3,
  maxRetries: 2,
  agentTimeoutMultiplier: 2,
  environment: "docker",
  claudeVersion: PINNED_CLAUDE_CODE,
  datasetVersion: DATASET_VERSION,
  pilotAttempts: 1,
};

/** One slice: the ExperimentConfig fields for an arm on a domain. */
export function experimentConfig(arm: Arm, domain: Domain, opts: ExperimentOptions): Record<string, unknown> {
  const data = `data/${DOMAINS[domain]}`;
  return {
    dataset: `${data}/tasks`,
    registry_path: `${data}/registry.json`,
    agent: "fiable-cc",
    model: opts.model,
    environment: opts.environment,
    env_file: ".env",
    concurrency: opts.concurrency,
    n_attempts: opts.nAttempts,
    max_retries: opts.maxRetries,
    agent_timeout_multiplier: opts.agentTimeoutMultiplier,
    trials_dir: `${TRIALS_ROOT}/${arm}/${domain}`,
    job_name: `fiable-${arm}-${domain}`,
    agent_kwargs: { arm, version: opts.claudeVersion },
  };
}

/**
 * The smoke slice for an arm on a domain: the ablation's config with one task (`n_tasks: 1`, the first the
 * dataset lists) and one attempt, in its own trials dir and job, so its trials never enter the ablation.
 */
export function smokeConfig(arm: Arm, domain: Domain, opts: ExperimentOptions): Record<string, unknown> {
  return {
    ...experimentConfig(arm, domain, opts),
    n_attempts: 1,
    n_tasks: 1,
    trials_dir: `${SMOKE_TRIALS_ROOT}/${arm}/${domain}`,
    job_name: `fiable-smoke-${arm}-${domain}`,
  };
}

/**
 * The pilot slice for an arm: the ablation's provider config with the pilot's attempts (every task: no
 * `n_tasks`), in its own trials dir and job.
 */
export function pilotConfig(arm: Arm, opts: ExperimentOptions): Record<string, unknown> {
  return {
    ...experimentConfig(arm, PILOT_DOMAIN, opts),
    n_attempts: opts.pilotAttempts,
    trials_dir: `${PILOT_TRIALS_ROOT}/${arm}/${PILOT_DOMAIN}`,
    job_name: `fiable-pilot-${arm}-${PILOT_DOMAIN}`,
  };
}

/** The config path for an arm on a domain (`smoke` for the smoke slice). */
export function experimentPath(arm: Arm, domain: Domain, smoke = false): string {
  return `${smoke ? SMOKE_DIR : EXPERIMENTS_DIR}/${arm}_${domain}.yaml`;
}

/** The pilot's configs in the order it runs them (stock, then critic). */
export function pilotOrder(): { arm: Arm; path: string; trials: string }[] {
  return PILOT_ARMS.map((arm) => ({
    arm,
    path: `${PILOT_DIR}/${arm}_${PILOT_DOMAIN}.yaml`,
    trials: `${PILOT_TRIALS_ROOT}/${arm}/${PILOT_DOMAIN}`,
  }));
}

/** The aggregate command of the pilot, with its go/no-go verdict (`--pilot`) written into `out`. */
export function pilotAggregateCommand(cb: string, out: string): string {
  const arms = PILOT_ARMS.map((a) => `--arm ${a}=${cb}/${PILOT_TRIALS_ROOT}/${a}`).join(" ");
  return `${DENO} task aggregate ${arms} --pilot --out ${out}`;
}

/** The protocol's order: domain by domain, the arms interleaved inside each domain. */
export function runOrder(
  opts: ExperimentOptions,
  smoke = false,
): { domain: Domain; arm: Arm; path: string }[] {
  return (Object.keys(DOMAINS) as Domain[]).flatMap((domain) =>
    opts.arms.map((arm) => ({ domain, arm, path: experimentPath(arm, domain, smoke) }))
  );
}

function trialsDir(arm: Arm, domain: Domain, smoke: boolean): string {
  return `${smoke ? SMOKE_TRIALS_ROOT : TRIALS_ROOT}/${arm}/${domain}`;
}

/** The aggregate command for the run: every registered comparison among its arms (H1–H3 in one call). */
function aggregateCommand(opts: ExperimentOptions, cb: string): string {
  const arms = opts.arms.map((a) => `--arm ${a}=${cb}/${TRIALS_ROOT}/${a}`).join(" ");
  const compare = registeredAmong(opts.arms).pairs.length
    ? "--protocol"
    : `--control ${opts.arms.includes("stock") ? "stock" : opts.arms[0]}`;
  return `${DENO} task aggregate ${arms} ${compare}`;
}

/** What each stage costs, as phrases ("≈ $57 (the reference's tokens: $42)"), from the cost estimate. */
export interface StageCosts {
  smoke: string;
  pilot: string;
  /** smoke + pilot: what `run.sh pilot` spends in all. */
  first: string;
  full: string;
}

/** What install.ts computed before writing: the estimate's lines, each stage's cost, the pilot prediction. */
export interface RunNotes {
  estimate: string[];
  costs: StageCosts;
  prediction: string;
}

const UNKNOWN: RunNotes = {
  estimate: [],
  costs: { smoke: "≈ unknown", pilot: "≈ unknown", first: "≈ unknown", full: "≈ unknown" },
  prediction: "",
};

/** `text` in lines of at most `width` characters (words are never split), each starting with `prefix`. */
export function wrap(text: string, width = 110, prefix = ""): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && prefix.length + line.length + 1 + word.length > width) {
      out.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(prefix + line);
  return out;
}

/** The number of trials of each stage. */
export function stageTrials(opts: ExperimentOptions, tasks: Record<Domain, number>) {
  const smoke = opts.arms.length * Object.keys(DOMAINS).length;
  const pilot = PILOT_ARMS.length * tasks[PILOT_DOMAIN] * opts.pilotAttempts;
  const full = opts.arms.length * Object.values(tasks).reduce((a, b) => a + b, 0) * opts.nAttempts;
  return { smoke, pilot, first: smoke + pilot, full };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The stage listing `run.sh` prints with no stage (and the README shows): trials and cost, nothing run. */
function stageListing(
  opts: ExperimentOptions,
  notes: RunNotes,
  trials: ReturnType<typeof stageTrials>,
): string[] {
  const c = notes.costs;
  const row = (name: string, n: number, cost: string, what: string) =>
    `  ${name.padEnd(6)}${String(n).padStart(4)} trials  ${cost}: ${what}`;
  return [
    `Stages (model ${opts.model}, Claude Code ${opts.claudeVersion} in every arm, ${opts.environment}, data ` +
    `${opts.datasetVersion}); nothing runs until you name one:`,
    row(
      "smoke",
      trials.smoke,
      c.smoke,
      "one task per domain per arm, one attempt; verify, with each trial's hook mode",
    ),
    row(
      "pilot",
      trials.pilot,
      c.pilot,
      `${PILOT_ARMS.join(" vs ")} on every ${PILOT_DOMAIN} task, ${plural(opts.pilotAttempts, "attempt")}; ` +
        `it runs the smoke stage first: ${trials.first} trials ${c.first} in all; verify, the go / no-go verdict`,
    ),
    row(
      "full",
      trials.full,
      c.full,
      "the ablation, only after a go (or --force), with --yes or a typed confirmation",
    ),
    "  check      the prerequisites only (every stage checks them first and spends nothing when one is missing)",
  ];
}

function index(opts: ExperimentOptions, notes: RunNotes, trials: ReturnType<typeof stageTrials>): string {
  const smoke = runOrder(opts, true).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const full = runOrder(opts).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const verifySmoke = runOrder(opts, true).map((r) => `<chi-bench>/${trialsDir(r.arm, r.domain, true)}`)
    .join(" ");
  const pilot = pilotOrder();
  const attempts = plural(opts.pilotAttempts, "attempt");
  return `# fiable-cc ablation (pre-registered)

Written by fiable-agent \`install.ts experiments\` before any result exists; the protocol (hypotheses,
arms, metrics, tests, the pilot's go / no-go rule) is fiable-agent's docs/EVALUATION_PROTOCOL.md. Every file
here shares model \`${opts.model}\`, Claude Code ${opts.claudeVersion} (agent kwarg \`version\`: Harbor installs
exactly it in every arm), environment \`${opts.environment}\`, concurrency ${opts.concurrency}, max_retries
${opts.maxRetries} and agent_timeout_multiplier ${opts.agentTimeoutMultiplier}, and is written for the data at
\`${opts.datasetVersion}\` (\`${DATASET_VERSION_FILE}\`); only \`agent_kwargs.arm\`, the attempts and the
trials/job names differ. \`smoke/\` holds the ablation's configs with one task per domain and one attempt;
\`pilot/\` holds ${PILOT_ARMS.join(" and ")} on every ${PILOT_DOMAIN} task with ${attempts}; the ablation
runs ${opts.nAttempts} attempts. Each has its own trials dirs.

${notes.estimate.join("\n")}

${wrap(notes.prediction).join("\n")}

## The staged run

\`\`\`
${stageListing(opts, notes, trials).join("\n")}
\`\`\`

\`run.sh\` with no stage prints that list and runs nothing. Every stage first checks what it needs (uv and
chi-bench's environment, Docker or a Modal token, the task data at \`${opts.datasetVersion}\`, an API key in the
environment or \`.env\`, fiable-cc registered, Harbor 0.20.x) and stops with one line per missing item and
exit 2, spending nothing; then it prints what it will spend and the running total before its first trial. The
smoke stage's verify gives each trial's hook mode (\`http\`, or the \`command\` fallback) and stops the run when
a guarded trial did not provably run the guard; the pilot prints what replay predicts before its first trial;
\`full\` runs only when named, after a **go** (or with \`--force\`), and only with \`--yes\` or \`yes\` typed on
a terminal. A rerun resumes (Harbor keeps the finished trials of a job). From anywhere:

\`\`\`sh
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT}            # the stages, their trials and cost
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} check      # the prerequisites only
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} pilot      # smoke, verify, pilot, verify, verdict
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} full --yes # on go: verify smoke, the full ablation
\`\`\`

Exit codes: 0 done (pilot: the verdict is go), 1 a verify or the pilot's aggregate failed, 2 bad usage or a
missing prerequisite, 3 stopped before the full ablation by the pilot's verdict, 4 the full ablation not
confirmed. \`FIABLE_AGENT_DIR\` defaults to \`../fiable-agent\` beside this chi-bench checkout.

## By hand

From the chi-bench root, the smoke run, then its verify from the fiable-agent checkout:

\`\`\`sh
${smoke}
${DENO} task verify --trials ${verifySmoke}
\`\`\`

The pilot, its verify and its verdict (\`${VERDICT_FILE}\` holds one word: go, no-go or no-result):

\`\`\`sh
${pilot.map((r) => `uv run cb experiment run -f ${r.path}`).join("\n")}
${DENO} task verify ${pilot.map((r) => `<chi-bench>/${r.trials}`).join(" ")}
${pilotAggregateCommand("<chi-bench>", `<chi-bench>/${PILOT_RESULTS}`)}
\`\`\`

Then, only on go, the full ablation in this order:

\`\`\`sh
${full}
\`\`\`

Aggregate from the fiable-agent checkout:

\`\`\`sh
${aggregateCommand(opts, "<chi-bench>")}
\`\`\`
`;
}

/** A heredoc that prints `lines` verbatim (no expansion: costs hold `$`, the prediction holds quotes). */
function say(lines: string[], indent = ""): string {
  return [`${indent}cat <<'TEXT'`, ...lines, "TEXT"].join("\n");
}

/** The preflight: one line per missing prerequisite with its fix, then exit 2; nothing spent. */
function preflight(opts: ExperimentOptions): string {
  const folders = Object.values(DOMAINS);
  const env = opts.environment === "modal"
    ? `if [ -z "\${MODAL_TOKEN_ID:-}" ] || [ -z "\${MODAL_TOKEN_SECRET:-}" ]; then
    modal_config=\${MODAL_CONFIG_PATH:-$HOME/.modal.toml}
    if ! grep -q '^ *token_id *=' "$modal_config" 2>/dev/null; then
      missing "Cannot reach Modal: no Modal token (MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are unset and $modal_config has no token_id). Run \\\`uv run modal token new\\\` in $cb, or set both variables."
    elif [ -n "\${MODAL_PROFILE:-}" ] && ! grep -q "^\\\\[$MODAL_PROFILE\\\\]" "$modal_config"; then
      missing "Cannot reach Modal: profile $MODAL_PROFILE (MODAL_PROFILE) is not in $modal_config. Run \\\`uv run modal profile list\\\` and set MODAL_PROFILE to one of them."
    fi
  fi`
    : `if ! command -v docker >/dev/null 2>&1; then
    missing "Cannot reach Docker: docker is not on the PATH. Install Docker, or write the experiments for Modal (install experiments --environment modal)."
  elif ! docker info >/dev/null 2>&1; then
    missing "Cannot reach Docker: \\\`docker info\\\` failed (is the daemon running, and may this user use it?). Start Docker, or write the experiments for Modal (install experiments --environment modal)."
  fi`;
  return `# One line per missing prerequisite, with its fix; exit 2 before anything is spent.
preflight() {
  lacking=0
  missing() {
    echo "$1" >&2
    lacking=$((lacking + 1))
  }
  if [ ! -f "$fiable/verify.ts" ]; then
    missing "Cannot verify trials: $fiable is not a fiable-agent checkout (no verify.ts). Set FIABLE_AGENT_DIR to yours."
  fi
  if ! command -v npx >/dev/null 2>&1; then
    missing "Cannot run fiable-agent's verify: npx is not on the PATH. Install Node >= 20 (it brings npx)."
  fi
  if ! command -v uv >/dev/null 2>&1; then
    missing "Cannot run chi-bench: uv is not on the PATH. Install it (https://docs.astral.sh/uv/), then run \\\`uv sync --extra dev\\\` in $cb."
  elif ! uv run cb --help >/dev/null 2>&1; then
    missing "Cannot run chi-bench: \\\`uv run cb --help\\\` failed in $cb. Run \\\`uv sync --extra dev\\\` there."
  else
    harbor=$(uv run python -c 'import importlib.metadata as m; print(m.version("harbor"))' 2>/dev/null || echo none)
    case "$harbor" in
      0.20.*) ;;
      *) missing "Cannot run fiable-cc: chi-bench's environment has Harbor $harbor, and fiable-cc is written for Harbor 0.20.x. Run \\\`uv sync --extra dev\\\` in $cb (uv.lock pins 0.20)." ;;
    esac
  fi
  ${env}
  for domain in ${folders.join(" ")}; do
    if [ ! -d "data/$domain/tasks" ] || [ -z "$(ls "data/$domain/tasks" 2>/dev/null)" ]; then
      missing "Cannot find the task data: data/$domain/tasks is missing or empty. Download it: uv run cb data download --revision ${opts.datasetVersion}"
    fi
  done
  if [ ! -f ${DATASET_VERSION_FILE} ]; then
    missing "Cannot check the task data's version: ${DATASET_VERSION_FILE} is missing, and these configs are written for ${opts.datasetVersion}. Download the data with uv run cb data download --revision ${opts.datasetVersion} (it writes the file)."
  elif [ "$(tr -d '[:space:]' < ${DATASET_VERSION_FILE})" != ${opts.datasetVersion} ]; then
    missing "Cannot run on this task data: ${DATASET_VERSION_FILE} records $(tr -d '[:space:]' < ${DATASET_VERSION_FILE}), and these configs are written for ${opts.datasetVersion}. Download ${opts.datasetVersion} (uv run cb data download --revision ${opts.datasetVersion}), or write the experiments again with install experiments --dataset-version <that revision>."
  fi
  key=0
  for name in ANTHROPIC_API_KEY CLAUDE_CODE_OAUTH_TOKEN; do
    eval "value=\\\${$name:-}"
    if [ -n "$value" ]; then key=1; fi
  done
  if [ "$key" = 0 ] && [ -f .env ] && grep -Eq '^(export +)?(ANTHROPIC_API_KEY|CLAUDE_CODE_OAUTH_TOKEN)=.' .env; then key=1; fi
  if [ "$key" = 0 ]; then
    missing "Cannot find an API key: ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) is neither in the environment nor in $cb/.env, the configs' env_file. Add ANTHROPIC_API_KEY=<your key> to $cb/.env."
  fi
  if ! grep -q '"${HARNESSES[0].name}":' ${REGISTRY} 2>/dev/null || [ ! -f ${AGENTS_DIR}/${
    HARNESSES[0].module
  }.py ]; then
    missing "Cannot start the arms: ${
    HARNESSES[0].name
  } is not registered in ${REGISTRY}. From fiable-agent: deno task install --chi-bench $cb --apply"
  fi
  if [ "$lacking" -gt 0 ]; then
    if [ "$lacking" = 1 ]; then what="1 prerequisite"; else what="$lacking prerequisites"; fi
    echo "Stopped before anything ran: $what missing (above). Nothing was spent." >&2
    exit 2
  fi
}`;
}

/**
 * The run script: POSIX sh, `set -eu`. With no stage it lists the stages with their trials and cost and exits
 * 0; each stage checks the prerequisites, prints what it will spend and the running total, then runs. Exit
 * codes: 0 done, 1 a verify or aggregate failed, 2 bad usage or a missing prerequisite, 3 stopped by the
 * pilot's verdict, 4 the full ablation not confirmed.
 */
export function runScript(
  opts: ExperimentOptions,
  notes: RunNotes = UNKNOWN,
  tasks: Record<Domain, number> = { pa_provider: 25, pa_um: 25, cm: 25 },
): string {
  const trials = stageTrials(opts, tasks);
  const c = notes.costs;
  const runs = (Object.keys(DOMAINS) as Domain[]).map((domain) => {
    const slice = runOrder(opts).filter((r) => r.domain === domain);
    return [
      `# ${domain}`,
      ...slice.map((r) => `run ${r.path}`),
      `verify ${slice.map((r) => `"$cb/${trialsDir(r.arm, r.domain, false)}"`).join(" ")}`,
    ].join("\n");
  }).join("\n\n");
  const smokeDirs = runOrder(opts, true).map((r) => `"$cb/${trialsDir(r.arm, r.domain, true)}"`).join(
    " \\\n    ",
  );
  const pilot = pilotOrder();
  const spend = (stage: string, n: number, cost: string, total: string) =>
    say([`==> ${stage}: ${n} trials ${cost}; this command's running total: ${total}.`], "  ");
  return `#!/bin/sh
# fiable-cc pre-registered ablation, staged (fiable-agent docs/EVALUATION_PROTOCOL.md, addendum 2026-12-01
# and protocol v3). Written by fiable-agent install.ts experiments; regenerate it instead of editing.
#
${stageListing(opts, notes, trials).map((l) => `# ${l}`.trimEnd()).join("\n")}
#
${notes.estimate.map((l) => `# ${l}`.trimEnd()).join("\n")}
#
# From anywhere (the script finds the chi-bench root from its own path):
#   FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} [smoke|pilot|full|check] [--force] [--yes]
#     (none)   list the stages with their trials and cost; run nothing
#     check    the prerequisites only
#     smoke    the smoke run and its verify (each trial's hook mode)
#     pilot    smoke, verify, pilot, verify and the go / no-go verdict; never the full ablation
#     full     verify the smoke trials, then, on the pilot's go, the full ablation (confirmed)
#     --force  with full: run the ablation whatever the pilot's verdict
#     --yes    with full: the confirmation, for a run without a terminal
# Exit codes: 0 done (pilot: the verdict is go), 1 a verify or the pilot's aggregate failed, 2 bad usage or a
# missing prerequisite (nothing spent), 3 stopped before the full ablation by the pilot's verdict (no-go,
# no-result, or no pilot yet), 4 the full ablation not confirmed.
# FIABLE_AGENT_DIR defaults to ../fiable-agent beside the chi-bench checkout. A rerun resumes: Harbor keeps
# the finished trials of a job it has seen.
set -eu

stage=
force=0
yes=0
for arg in "$@"; do
  case "$arg" in
    smoke | pilot | full | check) stage=$arg ;;
    --force) force=1 ;;
    --yes) yes=1 ;;
    *)
      echo "Cannot run stage \\"$arg\\": it is unknown. Use one of smoke, pilot, full, check (and --force, --yes), or none to list the stages." >&2
      exit 2
      ;;
  esac
done
if [ -z "$stage" ]; then
${say(stageListing(opts, notes, trials), "  ")}
  echo "Run one: sh $0 pilot (the first spend), sh $0 check (prerequisites only)."
  exit 0
fi
cb=$(cd "$(dirname "$0")/../../.." && pwd)
fiable=\${FIABLE_AGENT_DIR:-$cb/../fiable-agent}
cd "$cb"

${preflight(opts)}

run() {
  echo "==> uv run cb experiment run -f $1"
  uv run cb experiment run -f "$1"
}

verify() {
  echo "==> verify $*"
  if ! (cd "$fiable" && ${DENO} task verify "$@"); then
    echo "Stopped: verify found a problem (listed above), so the guard did not provably run. Fix it and rerun $0 $stage; finished trials are kept." >&2
    exit 1
  fi
}

verify_smoke() {
  # --trials: each smoke trial's hook mode (http, or the command fallback) before anything bigger runs.
  verify --trials ${smokeDirs}
}

preflight
if [ "$stage" = check ]; then
  echo "Every prerequisite is in place."
  exit 0
fi

if [ "$stage" = smoke ] || [ "$stage" = pilot ]; then
${spend("smoke", trials.smoke, c.smoke, c.smoke)}
${runOrder(opts, true).map((r) => `  run ${r.path}`).join("\n")}
  verify_smoke
  if [ "$stage" = smoke ]; then
    echo "Smoke run verified. Start the pilot with: sh $0 pilot"
    exit 0
  fi
${say(wrap(notes.prediction), "  ")}
  echo "Follow the pilot on the dashboard: cd $fiable && ${dashboardCommand("pilot", "$cb")}"
${spend("pilot", trials.pilot, c.pilot, c.first)}
${pilot.map((r) => `  run ${r.path}`).join("\n")}
  verify ${pilot.map((r) => `"$cb/${r.trials}"`).join(" ")}
  echo "==> aggregate the pilot"
  if ! (cd "$fiable" && ${
    pilotAggregateCommand("$cb", `"$cb/${PILOT_RESULTS}"`).replace(/=\$cb\/(\S+)/g, '="$cb/$1"')
  }); then
    echo "Stopped: the pilot's aggregate failed (listed above). Fix it and rerun $0 pilot; finished trials are kept." >&2
    exit 1
  fi
else
  verify_smoke
fi
verdict=$(cat "$cb/${PILOT_RESULTS}/${VERDICT_FILE}" 2>/dev/null || echo "none (no pilot has run)")
if [ "$verdict" = go ]; then
  echo "Pilot verdict: go."
  if [ "$stage" = pilot ]; then
    echo "Start the full ablation with: sh $0 full"
    exit 0
  fi
elif [ "$stage" = pilot ] || [ "$force" = 0 ]; then
  echo "Stopped before the full ablation: the pilot's verdict is $verdict (the go / no-go rule of docs/EVALUATION_PROTOCOL.md, protocol v3; the reason is in $cb/${PILOT_RESULTS}/summary.md). To run it anyway: sh $0 full --force" >&2
  exit 3
else
  echo "Pilot verdict: $verdict; running the full ablation anyway (--force)."
fi

${spend("full", trials.full, c.full, c.full).replace(/^ {2}/gm, "")}
if [ "$yes" = 0 ]; then
  if [ -t 0 ]; then
    printf 'Type yes to start the full ablation (%s trials): ' ${trials.full}
    read -r answer || answer=
    if [ "$answer" != yes ]; then
      echo "Not started: the full ablation needs yes typed in full. Nothing was spent on it." >&2
      exit 4
    fi
  else
    echo "Cannot start the full ablation unconfirmed: it spends the sum above and no terminal is attached. Rerun with --yes, or from a terminal to type yes." >&2
    exit 4
  fi
fi

echo "Follow the ablation on the dashboard: cd $fiable && ${dashboardCommand("full", "$cb")}"
${runs}

echo "Ablation done and verified. Aggregate from the fiable-agent checkout:"
echo "  cd $fiable && ${aggregateCommand(opts, "$cb")}"
`;
}

/**
 * The dashboard command that follows a stage as it runs (`pilot`, or `full` for the ablation), from the
 * fiable-agent checkout, `cb` being the chi-bench checkout: the stage's trials, its configs for the Live page's
 * expected totals, and stock as the control.
 */
export function dashboardCommand(stage: "pilot" | "full", cb: string): string {
  const [trials, configs] = stage === "pilot"
    ? [PILOT_TRIALS_ROOT, PILOT_DIR]
    : [TRIALS_ROOT, EXPERIMENTS_DIR];
  return `${DENO} task dashboard --logs ${cb}/${trials} --experiments ${cb}/${configs} --control stock`;
}

/**
 * The files `install.ts experiments` writes: one YAML per arm × domain, the smoke slices, the pilot, the
 * staged run script and a README, with the estimate, each stage's cost and the pilot prediction in the script
 * and the README.
 */
export async function experimentFiles(
  opts: ExperimentOptions,
  notes: RunNotes = UNKNOWN,
  tasks: Record<Domain, number> = { pa_provider: 25, pa_um: 25, cm: 25 },
): Promise<Desired[]> {
  // Loaded when used: install.ts imports no npm package before it can install them (lib/packages.ts).
  const { stringify } = await import("yaml");
  const enc = new TextEncoder();
  const out: Desired[] = [];
  const pins =
    `# Claude Code ${opts.claudeVersion} in every arm; data ${opts.datasetVersion}; environment ${opts.environment}.\n`;
  for (const smoke of [false, true]) {
    for (const { arm, domain, path } of runOrder(opts, smoke)) {
      const what = smoke ? "smoke run (1 task, 1 attempt)" : "pre-registered ablation";
      const header = `# fiable-cc ${what}: arm ${arm}, domain ${domain}.\n` +
        "# Protocol: fiable-agent docs/EVALUATION_PROTOCOL.md. Same model, timeouts, attempts and concurrency\n" +
        "# in every arm; regenerate with install.ts experiments instead of editing.\n" + pins +
        `# Run: uv run cb experiment run -f ${path}\n`;
      const config = smoke ? smokeConfig(arm, domain, opts) : experimentConfig(arm, domain, opts);
      const body = stringify(config, { lineWidth: 0 });
      out.push({
        path,
        bytes: enc.encode(header + body),
        owned: true,
        why: `${smoke ? "smoke, " : ""}arm ${arm} × ${domain}`,
      });
    }
  }
  for (const { arm, path } of pilotOrder()) {
    const header =
      `# fiable-cc pilot (protocol v3): arm ${arm}, every ${PILOT_DOMAIN} task, ${
        plural(opts.pilotAttempts, "attempt")
      }.\n` +
      "# Protocol: fiable-agent docs/EVALUATION_PROTOCOL.md; its trials never enter the ablation's analysis.\n" +
      "# Regenerate with install.ts experiments instead of editing.\n" + pins +
      `# Run: uv run cb experiment run -f ${path}\n`;
    out.push({
      path,
      bytes: enc.encode(header + stringify(pilotConfig(arm, opts), { lineWidth: 0 })),
      owned: true,
      why: `pilot, arm ${arm} × ${PILOT_DOMAIN}`,
    });
  }
  const trials = stageTrials(opts, tasks);
  out.push({
    path: RUN_SCRIPT,
    bytes: enc.encode(runScript(opts, notes, tasks)),
    owned: true,
    why: "staged run: listing, preflight, smoke → verify; pilot → verify → go / no-go; full, confirmed",
  });
  out.push({
    path: `${EXPERIMENTS_DIR}/README.md`,
    bytes: enc.encode(index(opts, notes, trials)),
    owned: true,
    why: "stages, cost estimate, prediction, commands by hand",
  });
  return out;
}
