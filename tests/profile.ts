/** Guard profiles: validation, secrets, and resolution against the environment. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseProfile } from "../lib/guard/config/profile.ts";
import { resolveSettings } from "../lib/guard/config/guard_settings.ts";

const s = suite("profile");

/** The error a refused profile raises, after checking it names every fragment. */
async function refusal(yaml: string, ...fragments: string[]): Promise<Error> {
  try {
    await parseProfile(yaml, "p.yaml");
  } catch (err) {
    for (const f of fragments) assert.match((err as Error).message, f);
    return err as Error;
  }
  throw new Error(`expected the profile to be refused: ${yaml}`);
}

async function refused(yaml: string, ...fragments: string[]): Promise<void> {
  await refusal(yaml, ...fragments);
}

s("a full profile parses", async () => {
  const p = await parseProfile(
    "arm: critic\nbudgets:\n  block_per_signature: 1\n  stop_blocks: 2\nrules:\n  disabled: [PP-03]\n" +
      "ledger_dir: /logs/agent/fiable\nlive_url: http://127.0.0.1:8790\nlive_token: ${FIABLE_LIVE_TOKEN}\n",
  );
  assert.is(p.arm, "critic");
  assert.equal(p.rules?.disabled, ["PP-03"]);
});

s(
  "an unknown rule id in rules.enabled or rules.disabled is refused, naming the known ids",
  async () => {
    await refused("rules:\n  enabled: [PP-01, NOPE-99]\n", 'rules.enabled names "NOPE-99"', "GLOBAL-01…06");
    await refused("rules:\n  disabled: [pp-03]\n", 'rules.disabled names "pp-03"', "PP-01…07");
  },
);

s(
  "an unknown key names its path and the allowed keys",
  () => refused("arms: critic\n", "arms", "Allowed top-level keys: arm"),
);
s(
  "a nested unknown key names its path",
  () => refused("budgets:\n  stop_block: 2\n", "stop_block", "budgets"),
);
s("an unknown arm lists the arms", () => refused("arm: critc\n", "critc", "checklist"));
s(
  "a stop budget at Claude Code's cap is refused",
  () => refused("budgets:\n  stop_blocks: 8\n", "stop_blocks"),
);
s("invalid YAML says so", () => refused("arm: [\n", "not valid YAML"));

s("a literal secret is refused, naming the key and never echoing the value", async () => {
  const value = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
  const err = await refusal(`live_token: ${value}\n`, "live_token: Anthropic key", "${FIABLE_LIVE_TOKEN}");
  assert.not.match(err.message, value);
});

s("any literal under a secret-named key is refused", () => refused("live_token: hunter2\n", "live_token"));

s("environment overrides the profile; ${ENV} references expand", () => {
  const settings = resolveSettings(
    { arm: "critic", live_url: "${URL}", live_token: "${TOKEN}" },
    { FIABLE_CC_ARM: "plan", URL: "http://127.0.0.1:1", TOKEN: "t" },
  );
  assert.is(settings.arm, "plan");
  assert.is(settings.liveUrl, "http://127.0.0.1:1");
  assert.is(settings.liveToken, "t");
  assert.equal(settings.bounds, { blockBudget: 2, stopBlocks: 3 });
});

s.run();
