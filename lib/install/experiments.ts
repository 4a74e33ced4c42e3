/**
 * The pre-registered ablation as chi-bench experiment configs (flat `ExperimentConfig` YAML, harness.md §4):
 * one file per arm × domain, every arm in its own trials_dir (chi-bench's aggregator would merge arms that
 * share a model), identical model, timeouts, attempts and concurrency across arms; the smoke slices (one
 * task per domain per arm, one attempt) and the run script that stages smoke → verify → full ablation.
 * Protocol: docs/EVALUATION_PROTOCOL.md.
 */
import { stringify } from "yaml";
import type { Arm } from "../guard/engine/record.ts";
import type { Desired } from "./plan.ts";
import { registeredAmong } from "../results/protocol.ts";

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
/** The staged run script: smoke → verify → full ablation. */
export const RUN_SCRIPT = `${EXPERIMENTS_DIR}/run.sh`;
/** The Deno the run script runs fiable-agent's verify with (the project's pinned runtime). */
export const DENO = "npx -y deno@2.9.6";

/** Knobs shared by every arm. */
export interface ExperimentOptions {
  model: string;
  arms: Arm[];
  concurrency: number;
  nAttempts: number;
  maxRetries: number;
  agentTimeoutMultiplier: number;
  environment: "docker" | "modal";
  /** Pin the Claude Code version (agent kwarg `version`); default: whatever the image baked in. */
  claudeVersion?: string;
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
    agent_kwargs: { arm, ...(opts.claudeVersion ? { version: opts.claudeVersion } : {}) },
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

/** The config path for an arm on a domain (`smoke` for the smoke slice). */
export function experimentPath(arm: Arm, domain: Domain, smoke = false): string {
  return `${smoke ? SMOKE_DIR : EXPERIMENTS_DIR}/${arm}_${domain}.yaml`;
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

function index(opts: ExperimentOptions, estimate: string[]): string {
  const smoke = runOrder(opts, true).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const full = runOrder(opts).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const verifySmoke = runOrder(opts, true).map((r) => `<chi-bench>/${trialsDir(r.arm, r.domain, true)}`)
    .join(" ");
  return `# fiable-cc ablation (pre-registered)

Written by fiable-agent \`install.ts experiments\` before any result exists; the protocol (hypotheses,
arms, metrics, tests) is fiable-agent's docs/EVALUATION_PROTOCOL.md. Every file here shares model
\`${opts.model}\`, ${opts.nAttempts} attempts, concurrency ${opts.concurrency}, max_retries ${opts.maxRetries} and
agent_timeout_multiplier ${opts.agentTimeoutMultiplier}; only \`agent_kwargs.arm\` and the trials/job names differ.
\`smoke/\` holds the same configs with one task per domain and one attempt, in their own trials dirs.

${estimate.join("\n")}

## The staged run

\`run.sh\` runs the smoke configs, verifies them with fiable-agent's \`deno task verify\` (every guarded
trial has a ledger and full guard coverage, stock has no hooks), then the full ablation domain by domain
with the arms interleaved, verifying each domain before the next. It stops at the first failed verify; a
rerun resumes (Harbor keeps the finished trials of a job). From anywhere:

\`\`\`sh
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT}          # smoke, verify, full ablation
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} smoke    # the smoke run and its verify only
\`\`\`

\`FIABLE_AGENT_DIR\` defaults to \`../fiable-agent\` beside this chi-bench checkout.

## By hand

From the chi-bench root, the smoke run, then its verify from the fiable-agent checkout:

\`\`\`sh
${smoke}
${DENO} task verify ${verifySmoke}
\`\`\`

Then, only when verify exits 0, the full ablation in this order:

\`\`\`sh
${full}
\`\`\`

Aggregate from the fiable-agent checkout:

\`\`\`sh
${aggregateCommand(opts, "<chi-bench>")}
\`\`\`
`;
}

/** The run script: POSIX sh, `set -eu`, smoke → verify → full ablation (verify after each domain). */
export function runScript(opts: ExperimentOptions, estimate: string[]): string {
  const runs = (smoke: boolean) =>
    (Object.keys(DOMAINS) as Domain[]).map((domain) => {
      const slice = runOrder(opts, smoke).filter((r) => r.domain === domain);
      const lines = slice.map((r) => `run ${r.path}`);
      return smoke ? lines.join("\n") : [
        `# ${domain}`,
        ...lines,
        `verify ${slice.map((r) => `"$cb/${trialsDir(r.arm, r.domain, false)}"`).join(" ")}`,
      ].join("\n");
    }).join(smoke ? "\n" : "\n\n");
  const smokeDirs = runOrder(opts, true).map((r) => `"$cb/${trialsDir(r.arm, r.domain, true)}"`).join(
    " \\\n  ",
  );
  return `#!/bin/sh
# fiable-cc pre-registered ablation, staged (fiable-agent docs/EVALUATION_PROTOCOL.md, addendum 2026-12-01):
#   1. smoke: one task per domain per arm, one attempt (${SMOKE_DIR}/);
#   2. verify the smoke trials with fiable-agent's \`deno task verify\`, and stop unless the guard provably ran;
#   3. the full ablation, domain by domain with the arms interleaved, verifying each domain before the next.
# Written by fiable-agent install.ts experiments; regenerate it instead of editing.
#
${estimate.map((l) => `# ${l}`.trimEnd()).join("\n")}
#
# From anywhere (the script finds the chi-bench root from its own path):
#   FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} [all|smoke|full]
#     all    smoke, verify, then the full ablation (default)
#     smoke  the smoke run and its verify only
#     full   verify the smoke trials, then the full ablation
# FIABLE_AGENT_DIR defaults to ../fiable-agent beside the chi-bench checkout. A rerun resumes: Harbor keeps
# the finished trials of a job it has seen.
set -eu

stage=\${1:-all}
case "$stage" in
  all | smoke | full) ;;
  *)
    echo "Cannot run stage \\"$stage\\": it is unknown. Use one of all, smoke, full." >&2
    exit 2
    ;;
esac
cb=$(cd "$(dirname "$0")/../../.." && pwd)
fiable=\${FIABLE_AGENT_DIR:-$cb/../fiable-agent}
if [ ! -f "$fiable/verify.ts" ]; then
  echo "Cannot verify trials: $fiable is not a fiable-agent checkout (no verify.ts). Set FIABLE_AGENT_DIR to yours." >&2
  exit 2
fi
cd "$cb"

run() {
  echo "==> uv run cb experiment run -f $1"
  uv run cb experiment run -f "$1"
}

verify() {
  echo "==> verify $*"
  if ! (cd "$fiable" && ${DENO} task verify "$@"); then
    echo "Stopped: verify found a problem (listed above), so the guard did not provably run. Fix it and rerun $0; finished trials are kept." >&2
    exit 1
  fi
}

cat <<'ESTIMATE'
${estimate.join("\n")}
ESTIMATE

if [ "$stage" != full ]; then
${runs(true).split("\n").map((l) => `  ${l}`).join("\n")}
fi
verify ${smokeDirs}
if [ "$stage" = smoke ]; then
  echo "Smoke run verified. Start the ablation with: sh $0 full"
  exit 0
fi

${runs(false)}

echo "Ablation done and verified. Aggregate from the fiable-agent checkout:"
echo "  cd $fiable && ${aggregateCommand(opts, "$cb")}"
`;
}

/**
 * The files `install.ts experiments` writes: one YAML per arm × domain, the smoke slices, the staged run
 * script and a README, the cost estimate (already computed, as lines) in the script header and the README.
 */
export function experimentFiles(opts: ExperimentOptions, estimate: string[] = []): Desired[] {
  const enc = new TextEncoder();
  const out: Desired[] = [];
  for (const smoke of [false, true]) {
    for (const { arm, domain, path } of runOrder(opts, smoke)) {
      const what = smoke ? "smoke run (1 task, 1 attempt)" : "pre-registered ablation";
      const header = `# fiable-cc ${what}: arm ${arm}, domain ${domain}.\n` +
        "# Protocol: fiable-agent docs/EVALUATION_PROTOCOL.md. Same model, timeouts, attempts and concurrency\n" +
        "# in every arm; regenerate with install.ts experiments instead of editing.\n" +
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
  out.push({
    path: RUN_SCRIPT,
    bytes: enc.encode(runScript(opts, estimate)),
    owned: true,
    why: "staged run: smoke → verify → full ablation",
  });
  out.push({
    path: `${EXPERIMENTS_DIR}/README.md`,
    bytes: enc.encode(index(opts, estimate)),
    owned: true,
    why: "run order, staged run, cost estimate",
  });
  return out;
}
