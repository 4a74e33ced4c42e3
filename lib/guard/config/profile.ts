/**
 * Guard profiles: YAML validated with zod; a literal secret anywhere rejects the whole profile. Loaded only
 * when a profile is set (`FIABLE_PROFILE`): a hook without one never loads yaml or zod.
 */
import * as z from "zod/mini";
import en from "zod/locales/en";
import { ARMS } from "../engine/record.ts";
import { ENV_REF, SECRET_KEY, secretKind } from "../engine/secrets.ts";
import { RULES } from "../../../rules/mod.ts";
import { idRanges } from "../../cli.ts";

z.config(en());

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
  for (const key of ["enabled", "disabled"] as const) {
    const bad = parsed.data.rules?.[key]?.find((id) => !RULE_IDS.includes(id));
    if (bad !== undefined) {
      throw new Error(
        `Cannot load ${source}: rules.${key} names "${bad}", which is no rule. Use rule IDs from ` +
          `${idRanges(RULE_IDS)} (rules/mod.ts).`,
      );
    }
  }
  return parsed.data;
}

const RULE_IDS = RULES.map((r) => r.meta.id);
