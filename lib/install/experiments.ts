/**
 * The pre-registered ablation as chi-bench experiment configs (flat `ExperimentConfig` YAML, harness.md §4):
 * one file per arm × domain, every arm in its own trials_dir (chi-bench's aggregator would merge arms that
 * share a model), identical model, timeouts, attempts and concurrency across arms; the smoke slices (one
 * task per domain per arm, one attempt), the pilot (stock vs critic on every provider task) and the run
 * script that stages smoke → verify → pilot → verify → go / no-go → full ablation.
 * Protocol: docs/EVALUATION_PROTOCOL.md.
 */
import type { Arm } from "../guard/engine/record.ts";
import type { Desired } from "./plan.ts";
import { registeredAmong } from "../results/protocol.ts";
import { VERDICT_FILE } from "../results/pilot.ts";

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

function index(opts: ExperimentOptions, estimate: string[]): string {
  const smoke = runOrder(opts, true).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const full = runOrder(opts).map((r) => `uv run cb experiment run -f ${r.path}`).join("\n");
  const verifySmoke = runOrder(opts, true).map((r) => `<chi-bench>/${trialsDir(r.arm, r.domain, true)}`)
    .join(" ");
  const pilot = pilotOrder();
  const attempts = `${opts.pilotAttempts} attempt${opts.pilotAttempts === 1 ? "" : "s"}`;
  return `# fiable-cc ablation (pre-registered)

Written by fiable-agent \`install.ts experiments\` before any result exists; the protocol (hypotheses,
arms, metrics, tests, the pilot's go / no-go rule) is fiable-agent's docs/EVALUATION_PROTOCOL.md. Every file
here shares model \`${opts.model}\`, concurrency ${opts.concurrency}, max_retries ${opts.maxRetries} and
agent_timeout_multiplier ${opts.agentTimeoutMultiplier}; only \`agent_kwargs.arm\`, the attempts and the
trials/job names differ. \`smoke/\` holds the ablation's configs with one task per domain and one attempt;
\`pilot/\` holds ${PILOT_ARMS.join(" and ")} on every ${PILOT_DOMAIN} task with ${attempts}; the ablation
runs ${opts.nAttempts} attempts. Each has its own trials dirs.

${estimate.join("\n")}

## The staged run

\`run.sh\` runs the smoke configs and verifies them with fiable-agent's \`deno task verify\` (every guarded
trial has a ledger and full guard coverage, stock has no hooks); then the pilot, its verify, and its
aggregate with the go / no-go verdict; then, only on **go** (or with \`--force\`), the full ablation domain
by domain with the arms interleaved, verifying each domain before the next. It stops at the first failed
verify (exit 1) and before the full ablation on a no-go (exit 3); a rerun resumes (Harbor keeps the finished
trials of a job). From anywhere:

\`\`\`sh
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} pilot    # smoke, verify, pilot, verify, verdict
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT}          # the same, then the full ablation on go
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} full     # verify smoke, the full ablation on go
FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} smoke    # the smoke run and its verify only
\`\`\`

\`--force\` runs the full ablation whatever the pilot said. \`FIABLE_AGENT_DIR\` defaults to
\`../fiable-agent\` beside this chi-bench checkout.

## By hand

From the chi-bench root, the smoke run, then its verify from the fiable-agent checkout:

\`\`\`sh
${smoke}
${DENO} task verify ${verifySmoke}
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

/**
 * The run script: POSIX sh, `set -eu`; smoke → verify → pilot → verify → go / no-go → full ablation (verify
 * after each domain). Exit codes: 0 done, 1 a verify or aggregate failed, 2 bad usage, 3 stopped by the
 * pilot's verdict.
 */
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
  const pilot = pilotOrder();
  const attempts = `${opts.pilotAttempts} attempt${opts.pilotAttempts === 1 ? "" : "s"}`;
  return `#!/bin/sh
# fiable-cc pre-registered ablation, staged (fiable-agent docs/EVALUATION_PROTOCOL.md, addendum 2026-12-01
# and protocol v3):
#   1. smoke: one task per domain per arm, one attempt (${SMOKE_DIR}/);
#   2. verify the smoke trials with fiable-agent's \`deno task verify\`, and stop unless the guard provably ran;
#   3. pilot: ${
    PILOT_ARMS.join(" vs ")
  } on every ${PILOT_DOMAIN} task, ${attempts} (${PILOT_DIR}/); verify it; aggregate
#      it with the protocol's go / no-go verdict;
#   4. only on go (or with --force): the full ablation, domain by domain with the arms interleaved, verifying
#      each domain before the next.
# Written by fiable-agent install.ts experiments; regenerate it instead of editing.
#
${estimate.map((l) => `# ${l}`.trimEnd()).join("\n")}
#
# From anywhere (the script finds the chi-bench root from its own path):
#   FIABLE_AGENT_DIR=<fiable-agent checkout> sh ${RUN_SCRIPT} [all|smoke|pilot|full] [--force]
#     all      smoke, verify, pilot, verify, verdict, then the full ablation on go (default)
#     smoke    the smoke run and its verify only
#     pilot    smoke, verify, pilot, verify and the verdict; never the full ablation
#     full     verify the smoke trials, then the full ablation on the pilot's go
#     --force  run the full ablation whatever the pilot's verdict
# Exit codes: 0 done (pilot: the verdict is go), 1 a verify or the pilot's aggregate failed, 2 bad usage,
# 3 stopped before the full ablation by the pilot's verdict (no-go, no-result, or no pilot yet).
# FIABLE_AGENT_DIR defaults to ../fiable-agent beside the chi-bench checkout. A rerun resumes: Harbor keeps
# the finished trials of a job it has seen.
set -eu

stage=all
force=0
for arg in "$@"; do
  case "$arg" in
    all | smoke | pilot | full) stage=$arg ;;
    --force) force=1 ;;
    *)
      echo "Cannot run stage \\"$arg\\": it is unknown. Use one of all, smoke, pilot, full (and --force)." >&2
      exit 2
      ;;
  esac
done
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
  echo "Smoke run verified. Start the pilot with: sh $0 pilot"
  exit 0
fi

if [ "$stage" != full ]; then
${pilot.map((r) => `  run ${r.path}`).join("\n")}
  verify ${pilot.map((r) => `"$cb/${r.trials}"`).join(" ")}
  echo "==> aggregate the pilot"
  if ! (cd "$fiable" && ${
    pilotAggregateCommand("$cb", `"$cb/${PILOT_RESULTS}"`).replace(/=\$cb\/(\S+)/g, '="$cb/$1"')
  }); then
    echo "Stopped: the pilot's aggregate failed (listed above). Fix it and rerun $0 pilot; finished trials are kept." >&2
    exit 1
  fi
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

${runs(false)}

echo "Ablation done and verified. Aggregate from the fiable-agent checkout:"
echo "  cd $fiable && ${aggregateCommand(opts, "$cb")}"
`;
}

/**
 * The files `install.ts experiments` writes: one YAML per arm × domain, the smoke slices, the staged run
 * script and a README, the cost estimate (already computed, as lines) in the script header and the README.
 */
export async function experimentFiles(opts: ExperimentOptions, estimate: string[] = []): Promise<Desired[]> {
  // Loaded when used: install.ts imports no npm package before it can install them (lib/packages.ts).
  const { stringify } = await import("yaml");
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
  for (const { arm, path } of pilotOrder()) {
    const header =
      `# fiable-cc pilot (protocol v3): arm ${arm}, every ${PILOT_DOMAIN} task, ${opts.pilotAttempts} ` +
      `attempt${opts.pilotAttempts === 1 ? "" : "s"}.\n` +
      "# Protocol: fiable-agent docs/EVALUATION_PROTOCOL.md; its trials never enter the ablation's analysis.\n" +
      "# Regenerate with install.ts experiments instead of editing.\n" +
      `# Run: uv run cb experiment run -f ${path}\n`;
    out.push({
      path,
      bytes: enc.encode(header + stringify(pilotConfig(arm, opts), { lineWidth: 0 })),
      owned: true,
      why: `pilot, arm ${arm} × ${PILOT_DOMAIN}`,
    });
  }
  out.push({
    path: RUN_SCRIPT,
    bytes: enc.encode(runScript(opts, estimate)),
    owned: true,
    why: "staged run: smoke → verify → pilot → verify → go / no-go → full ablation",
  });
  out.push({
    path: `${EXPERIMENTS_DIR}/README.md`,
    bytes: enc.encode(index(opts, estimate)),
    owned: true,
    why: "run order, staged run, cost estimate",
  });
  return out;
}
