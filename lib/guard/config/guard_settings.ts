/**
 * The settings the guard runs with: environment over profile over defaults. On every hook's path, so it
 * imports no parser (the profile's schema is in profile.ts, loaded only when there is a profile).
 */
import type { Profile } from "./profile.ts";
import { type Arm, ARMS, unknownArmNote } from "../engine/record.ts";
import { type Bounds, DEFAULT_BOUNDS, type EngineConfig, TRIAL_PLACES } from "../engine/decide.ts";
import type { GuardPlaces } from "../../../rules/guard_untouched.ts";
import { resolvePath } from "../engine/shell_writes.ts";
import type { EventWord } from "../engine/hook.ts";
import { RULES } from "../../../rules/mod.ts";
import * as io from "../io.ts";
import { ENV_REF } from "../engine/secrets.ts";

/** The settings the guard runs with, after profile, environment and defaults. */
export interface GuardSettings {
  arm: Arm;
  armError?: string;
  bounds: Bounds;
  decisionMs: number;
  rules?: string[];
  disabled: string[];
  ledgerDir: string;
  liveUrl?: string;
  liveToken?: string;
  /** What GUARD-01 keeps out of the agent's tool calls: this guard's folder, hook settings and port. */
  places: GuardPlaces;
}

/**
 * The guard's places from its settings and environment: its ledger folder and the trial's, the hook settings in
 * `$CLAUDE_CONFIG_DIR` and the trial's, and `FIABLE_GUARD_PORT`.
 */
export function guardPlaces(
  ledgerDir: string,
  env: Record<string, string | undefined>,
  cwd = env.PWD ?? "/",
): GuardPlaces {
  const ledger = resolvePath(ledgerDir, { cwd }) ?? ledgerDir;
  const config = env.CLAUDE_CONFIG_DIR ? resolvePath(env.CLAUDE_CONFIG_DIR, { cwd }) ?? undefined : undefined;
  const port = Number(env.FIABLE_GUARD_PORT);
  return {
    dirs: [...new Set([ledger, ...TRIAL_PLACES.dirs])],
    files: [...new Set([...(config ? [`${config}/settings.json`] : []), ...TRIAL_PLACES.files])],
    ports: Number.isInteger(port) && port > 0 ? [port] : [],
    env: {
      ...TRIAL_PLACES.env,
      FIABLE_LEDGER_DIR: ledger,
      ...(config ? { CLAUDE_CONFIG_DIR: config } : {}),
      ...(env.HOME ? { HOME: env.HOME } : {}),
    },
  };
}

function expand(value: string | undefined, env: Record<string, string | undefined>): string | undefined {
  if (value === undefined) return undefined;
  const m = ENV_REF.exec(value);
  return m ? env[m[1]] : value;
}

/** Resolves settings: environment (`FIABLE_CC_ARM`, `FIABLE_LEDGER_DIR`, `FIABLE_LIVE_*`) over profile over defaults. */
export function resolveSettings(profile: Profile, env: Record<string, string | undefined>): GuardSettings {
  const armWord = env.FIABLE_CC_ARM ?? profile.arm ?? "checklist";
  const ledgerDir = env.FIABLE_LEDGER_DIR ?? profile.ledger_dir ?? ".fiable/ledger";
  const known = (ARMS as readonly string[]).includes(armWord);
  return {
    arm: known ? armWord as Arm : "shadow",
    armError: known ? undefined : unknownArmNote(armWord),
    bounds: {
      blockBudget: profile.budgets?.block_per_signature ?? DEFAULT_BOUNDS.blockBudget,
      stopBlocks: profile.budgets?.stop_blocks ?? DEFAULT_BOUNDS.stopBlocks,
    },
    decisionMs: profile.budgets?.decision_ms ?? 1500,
    rules: profile.rules?.enabled,
    disabled: profile.rules?.disabled ?? [],
    ledgerDir,
    liveUrl: env.FIABLE_LIVE_URL ?? expand(profile.live_url, env),
    liveToken: env.FIABLE_LIVE_TOKEN ?? expand(profile.live_token, env),
    places: guardPlaces(ledgerDir, env),
  };
}

/**
 * Settings from `FIABLE_PROFILE` (YAML) and the environment; a bad profile falls back to defaults with a note.
 * An unknown `FIABLE_CC_ARM` runs as shadow and says so in one line to `warn` (stderr: Claude Code's debug log
 * shows a hook's stderr) as well as in the note every record carries.
 * The profile parser (yaml, zod) is loaded only when there is a profile.
 */
export async function loadSettings(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = (line) => io.writeErr(`${line}\n`),
): Promise<{ settings: GuardSettings; note?: string }> {
  let note: string | undefined;
  let profile = {};
  if (env.FIABLE_PROFILE) {
    try {
      const { parseProfile } = await import("./profile.ts");
      profile = await parseProfile(io.readText(env.FIABLE_PROFILE), env.FIABLE_PROFILE);
    } catch (err) {
      note = (err as Error).message;
    }
  }
  const settings = resolveSettings(profile, env);
  if (settings.armError) warn(settings.armError);
  return { settings, note: [note, settings.armError].filter(Boolean).join(" ") || undefined };
}

/**
 * The settings for one event: the plan events (prompt, session-start) come once per session and may open the
 * handbook index, so they get `FIABLE_CONTEXT_MS` (default 5000, within Claude Code's 10 s hook timeout).
 */
export function eventSettings(
  word: EventWord,
  settings: GuardSettings,
  env: Record<string, string | undefined>,
): GuardSettings {
  if (word !== "prompt" && word !== "session-start") return settings;
  const contextMs = Number(env.FIABLE_CONTEXT_MS ?? 5000);
  return Number.isFinite(contextMs) && contextMs > settings.decisionMs
    ? { ...settings, decisionMs: contextMs }
    : settings;
}

/** The engine config for settings: arm, bounds and the enabled rules minus the disabled ones. */
export function engineConfig(settings: GuardSettings): EngineConfig {
  const ids = settings.rules ?? RULES.map((r) => r.meta.id);
  const rules = settings.disabled.length || settings.rules
    ? ids.filter((id) => !settings.disabled.includes(id))
    : undefined;
  return { arm: settings.arm, bounds: settings.bounds, rules, places: settings.places };
}
