/**
 * The pre-registered ablation as chi-bench experiment configs (flat `ExperimentConfig` YAML, harness.md §4):
 * one file per arm × domain, every arm in its own trials_dir (chi-bench's aggregator would merge arms that
 * share a model), identical model, timeouts, attempts and concurrency across arms. Protocol:
 * docs/EVALUATION_PROTOCOL.md.
 */
import { stringify } from "yaml";
import type { Arm } from "../ledger.ts";
import type { Desired } from "./plan.ts";

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

/** The config path for an arm on a domain. */
export function experimentPath(arm: Arm, domain: Domain): string {
  return `${EXPERIMENTS_DIR}/${arm}_${domain}.yaml`;
}

function runOrder(opts: ExperimentOptions): string[] {
  return (Object.keys(DOMAINS) as Domain[]).flatMap((d) => opts.arms.map((a) => experimentPath(a, d)));
}

function index(opts: ExperimentOptions): string {
  const runs = runOrder(opts).map((p) => `uv run cb experiment run -f ${p}`).join("\n");
  const arms = opts.arms.map((a) => `--arm ${a}=<chi-bench>/${TRIALS_ROOT}/${a}`).join(" ");
  return `# fiable-cc ablation (pre-registered)

Written by fiable-agent \`install.ts experiments\` before any result exists; the protocol (hypotheses,
arms, metrics, tests) is fiable-agent's docs/EVALUATION_PROTOCOL.md. Every file here shares model
\`${opts.model}\`, ${opts.nAttempts} attempts, concurrency ${opts.concurrency}, max_retries ${opts.maxRetries} and
agent_timeout_multiplier ${opts.agentTimeoutMultiplier}; only \`agent_kwargs.arm\` and the trials/job names differ.

Run from the chi-bench root, domain by domain with the arms interleaved:

\`\`\`sh
${runs}
\`\`\`

Aggregate from the fiable-agent checkout:

\`\`\`sh
deno task aggregate ${arms} --control stock
\`\`\`
`;
}

/** The files `install.ts experiments` writes: one YAML per arm × domain plus a README with the run order. */
export function experimentFiles(opts: ExperimentOptions): Desired[] {
  const enc = new TextEncoder();
  const out: Desired[] = [];
  for (const domain of Object.keys(DOMAINS) as Domain[]) {
    for (const arm of opts.arms) {
      const path = experimentPath(arm, domain);
      const header = `# fiable-cc pre-registered ablation: arm ${arm}, domain ${domain}.\n` +
        "# Protocol: fiable-agent docs/EVALUATION_PROTOCOL.md. Same model, timeouts, attempts and concurrency\n" +
        "# in every arm; regenerate with install.ts experiments instead of editing.\n" +
        `# Run: uv run cb experiment run -f ${path}\n`;
      const body = stringify(experimentConfig(arm, domain, opts), { lineWidth: 0 });
      out.push({ path, bytes: enc.encode(header + body), owned: true, why: `arm ${arm} × ${domain}` });
    }
  }
  out.push({
    path: `${EXPERIMENTS_DIR}/README.md`,
    bytes: enc.encode(index(opts)),
    owned: true,
    why: "run order",
  });
  return out;
}
