/** Guard profiles: YAML validated with zod; a literal secret anywhere rejects the whole profile. */
import * as z from "zod/mini";
import "./hook.ts"; // configures zod/mini with English messages
import { type Arm, ARMS, unknownArmNote } from "./ledger.ts";
import { SECRET_KEY, secretKind } from "./secrets.ts";
import { type Bounds, DEFAULT_BOUNDS } from "./decide.ts";

/** A guard profile as written in YAML. Every key is optional; unknown keys are refused. */
export const Profile = z.strictObject({
  arm: z.optional(
    z.enum(ARMS, { error: (issue) => `arm "${issue.input}" is unknown. Use one of ${ARMS.join(", ")}.` }),
  ),
  budgets: z.optional(z.strictObject({
    block_per_signature: z.optional(z.int().check(z.minimum(0), z.maximum(20))),
    stop_blocks: z.optional(z.int().check(z.minimum(0), z.maximum(7))),
    decision_ms: z.optional(z.int().check(z.minimum(50), z.maximum(30_000))),
  })),
  rules: z.optional(z.strictObject({
    enabled: z.optional(z.array(z.string())),
    disabled: z.optional(z.array(z.string())),
  })),
  ledger_dir: z.optional(z.string()),
  live_url: z.optional(z.string()),
  live_token: z.optional(z.string()),
});
/** A guard profile as written in YAML. */
export type Profile = z.infer<typeof Profile>;

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

const ENV_REF = /^\$\{([A-Z_][A-Z0-9_]*)\}$/;

/** Every secret-looking literal in a parsed profile, as `path: kind` (the value itself is never echoed). */
export function findSecrets(value: unknown, path: string[] = []): string[] {
  const found: string[] = [];
  if (typeof value === "string") {
    if (ENV_REF.test(value)) return found;
    const key = path.at(-1) ?? "";
    const kind = secretKind(value) ??
      (SECRET_KEY.test(key) && value ? "literal value under a secret-named key" : null);
    if (kind) found.push(`${path.join(".")}: ${kind}`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => found.push(...findSecrets(v, [...path, String(i)])));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) found.push(...findSecrets(v, [...path, k]));
  }
  return found;
}

/**
 * Parses and validates profile YAML; throws an Error whose message names each bad key and how to fix it.
 * The YAML parser is loaded only here, so hooks without a profile never pay for it.
 */
export async function parseProfile(text: string, source = "profile"): Promise<Profile> {
  const { parse } = await import("yaml");
  let raw: unknown;
  try {
    raw = parse(text) ?? {};
  } catch (err) {
    throw new Error(
      `Cannot load ${source}: it is not valid YAML (${(err as Error).message.split("\n")[0]}).`,
    );
  }
  return validateProfile(raw, source);
}

/** Validates an already-parsed profile: no literal secrets, no unknown keys, values in range. */
export function validateProfile(raw: unknown, source = "profile"): Profile {
  const secrets = findSecrets(raw);
  if (secrets.length) {
    throw new Error(
      `Cannot load ${source}: it holds a literal secret at ${secrets.join(", ")}. ` +
        "Write a reference such as ${FIABLE_LIVE_TOKEN} and set the variable in the environment instead.",
    );
  }
  const parsed = Profile.safeParse(raw);
  if (!parsed.success) {
    const allowed = Object.keys(Profile.shape).join(", ");
    throw new Error(
      `Cannot load ${source}:\n${z.prettifyError(parsed.error)}\nAllowed top-level keys: ${allowed}.`,
    );
  }
  return parsed.data;
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
