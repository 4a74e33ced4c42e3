/**
 * A chi-bench submission YAML for one guarded arm (`cb submission validate | run | status | prepare`,
 * chi-bench `src/chi_bench/experiment/submission.py`): agent fiable-cc, the model, one attempt per task and
 * all three domains as leaderboard policy asks, the dataset version the checkout pins, and notes that
 * disclose the scaffold. The schema has no agent kwargs, so the arm (and a pinned Claude Code version)
 * reach the harness through the host env; the header says how, and the notes name the arm so
 * `deno task packet` can check every trial ran it.
 */
import type { Arm } from "../guard/engine/record.ts";
import type { Desired } from "./plan.ts";
import { DATASET_VERSION_FILE, DOMAINS } from "./experiments.ts";

/** Where submission YAMLs go in the checkout (chi-bench's own example suggests it). */
export const SUBMISSIONS_DIR = "configs/submissions";
/** The checkout's dataset pin, which `cb submission run` checks against `dataset.version`. */
export { DATASET_VERSION_FILE };

/** What the submission is made of. */
export interface SubmissionOptions {
  /** The team's slug; the submission id is `<id>-fiable-cc-<arm>`. */
  id: string;
  arm: Arm;
  team: string;
  contact: string;
  model: string;
  environment: "docker" | "modal";
  /** Attempts per task: 1 is leaderboard policy (more is kept for analysis, pass@1 still published). */
  attempts: number;
  concurrency: number;
  datasetVersion: string;
  /** The Claude Code version to pin (FIABLE_CC_CLAUDE_VERSION); none: the image's. */
  claudeVersion?: string;
  /** The fiable-agent commit the installed guard was built from, for the notes. */
  guardCommit?: string | null;
}

/** A submission id chi-bench accepts: lowercase letters, digits, `-`, `_`. */
export const SLUG = /^[a-z0-9][a-z0-9_-]*$/;

/** The submission id for a team and arm. */
export function submissionId(o: Pick<SubmissionOptions, "id" | "arm">): string {
  return `${o.id}-fiable-cc-${o.arm}`;
}

/** Where the YAML goes in the checkout. */
export function submissionPath(o: Pick<SubmissionOptions, "id" | "arm">): string {
  return `${SUBMISSIONS_DIR}/${submissionId(o)}.yaml`;
}

/** The host env a run of this submission needs: the arm, and the Claude Code version when pinned. */
export function runEnv(o: Pick<SubmissionOptions, "arm" | "claudeVersion">): string {
  return `FIABLE_CC_ARM=${o.arm}${o.claudeVersion ? ` FIABLE_CC_CLAUDE_VERSION=${o.claudeVersion}` : ""}`;
}

/** The notes the leaderboard publishes: the scaffold, its arm and version, and that it makes no model calls. */
export function submissionNotes(o: SubmissionOptions): string {
  const cli = o.claudeVersion ? `Claude Code ${o.claudeVersion}` : "Claude Code as the image installs it";
  const guard = o.guardCommit ? `; fiable-agent ${o.guardCommit.slice(0, 12)}` : "";
  return `fiable-cc: ${cli}, unchanged, with the fiable-agent guard (arm ${o.arm}${guard}). Claude Code ` +
    "hooks check each irreversible χ-World call against the verifier's contract and block it with the exact " +
    "next call, and hold the stop while work is open; the guard makes zero model calls. Each trial's " +
    "result.json carries the guard's facts (agent_result.metadata.fiable_guard); FIABLE_GUARD.md in the " +
    "packet discloses the scaffold.";
}

/** The arm a submission's notes declare (as `submissionNotes` writes them); null when they name none. */
export function declaredArm(notes: unknown): string | null {
  return typeof notes === "string"
    ? /with the fiable-agent guard \(arm ([a-z]+)[;)]/.exec(notes)?.[1] ?? null
    : null;
}

/** The submission config, in the order chi-bench's example lists its keys. */
export function submissionConfig(o: SubmissionOptions): Record<string, unknown> {
  return {
    schema: "chi-bench/submission/v1",
    submission: {
      id: submissionId(o),
      team: o.team,
      contact: o.contact,
      agent: "fiable-cc",
      model: o.model,
      notes: submissionNotes(o),
    },
    run: {
      environment: o.environment,
      n_attempts: o.attempts,
      concurrency: o.concurrency,
      max_retries: 2,
      timeout_multiplier: 2.0,
      env_file: ".env",
    },
    dataset: { version: o.datasetVersion, domains: Object.keys(DOMAINS) },
  };
}

/** The YAML file: a header saying how to run it (the host env), then the config. */
export async function submissionFile(o: SubmissionOptions): Promise<Desired> {
  // Loaded when used: install.ts imports no npm package before lib/packages.ts can install them.
  const { stringify } = await import("yaml");
  const path = submissionPath(o);
  const header = [
    `# chi-bench submission: fiable-cc, arm ${o.arm}, ${o.model} (written by fiable-agent's install.ts submission;`,
    "# regenerate it rather than edit; install.ts --uninstall removes it).",
    "# A submission has no agent kwargs: the arm reaches the harness through the host env of the run.",
    `#   uv run cb submission validate -f ${path}`,
    `#   ${runEnv(o)} uv run cb submission run -f ${path}`,
    `#   uv run cb submission prepare -f ${path}`,
    "#   deno task packet <the packet dir prepare printed>   (from fiable-agent: checks it, writes FIABLE_GUARD.md)",
    "",
  ].join("\n");
  const body = stringify(submissionConfig(o), { lineWidth: 0 });
  return {
    path,
    bytes: new TextEncoder().encode(header + body),
    owned: true,
    why: `submission for arm ${o.arm} (${o.attempts} attempt${
      o.attempts === 1 ? "" : "s"
    }, all three domains)`,
  };
}
