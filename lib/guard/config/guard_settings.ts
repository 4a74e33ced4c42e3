/**
 * The settings the guard runs with: environment over profile over defaults. On every hook's path, so it
 * imports no parser (the profile's schema is in profile.ts, loaded only when there is a profile).
 */
import type { Profile } from "./profile.ts";
import { type Arm, ARMS, unknownArmNote } from "../engine/record.ts";
import { type Bounds, DEFAULT_BOUNDS } from "../engine/decide.ts";
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
}

function expand(value: string | undefined, env: Record<string, string | undefined>): string | undefined {
  if (value === undefined) return undefined;
  const m = ENV_REF.exec(value);
  return m ? env[m[1]] : value;
}

/** Resolves settings: environment (`FIABLE_CC_ARM`, `FIABLE_LEDGER_DIR`, `FIABLE_LIVE_*`) over profile over defaults. */
export function resolveSettings(profile: Profile, env: Record<string, string | undefined>): GuardSettings {
  const armWord = env.FIABLE_CC_ARM ?? profile.arm ?? "checklist";
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
    ledgerDir: env.FIABLE_LEDGER_DIR ?? profile.ledger_dir ?? ".fiable/ledger",
    liveUrl: env.FIABLE_LIVE_URL ?? expand(profile.live_url, env),
    liveToken: env.FIABLE_LIVE_TOKEN ?? expand(profile.live_token, env),
  };
}
