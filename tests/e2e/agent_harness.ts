/**
 * fiable-agent e2e: the Harbor 0.20 harness (templates/fiable_agent.py) on the Harbor stand-in uploads the Node
 * bundle, runs it with the instruction, the MCP URL and the arm, and fills the context from the trajectory.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentBundle, FAKE_KEY, ROOT } from "../support/agent_bed.ts";
import { startModelServer } from "../support/e2e/model_server.ts";
import { startHealthverse } from "../support/e2e/healthverse.ts";
import { PAYER_PROMPT } from "../support/e2e/scenario.ts";
import { chiBenchFixture } from "../support/chibench_fixture.ts";
import { main as installMain } from "../../install.ts";
import { DEFAULT_AGENT_BUNDLE } from "../../bundle.ts";

const STUB = join(ROOT, "tests", "support", "harbor_stub");
const DRIVER = join(ROOT, "tests", "support", "agent_harness_drive.py");

const s = suite("e2e/agent_harness");

s(
  "install uploads the bundle; run pipes the task to it with URL and arm; context comes from the trajectory",
  async () => {
    const work = mkdtempSync(join(tmpdir(), "fiable-agent-harness-"));
    const mod = join(work, "module");
    mkdirSync(mod);
    copyFileSync(join(ROOT, "templates", "fiable_agent.py"), join(mod, "fiable_agent_harness.py"));
    copyFileSync(await agentBundle(), join(mod, "fiable_agent.mjs"));
    const instruction = join(work, "instruction.md");
    writeFileSync(instruction, PAYER_PROMPT + '\nQuote: it\'s "$HOME" `here`.');
    const model = await startModelServer([
      { calls: [{ name: "payer_intake_hub_list_intake_queue", input: {} }] },
      { text: "Stopping." },
    ]);
    const hv = await startHealthverse("payer");
    try {
      const out = await new Deno.Command("python3", {
        args: [DRIVER, join(work, "box"), hv.url, instruction, "arm=shadow", "max_turns=5"],
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? work,
          PYTHONPATH: `${STUB}:${mod}`,
          ANTHROPIC_API_KEY: FAKE_KEY,
          ANTHROPIC_BASE_URL: model.url,
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.is(out.code, 0, stderr);
      const report = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.is(report.name, "fiable-agent");
      assert.is(report.arm, "shadow");
      assert.equal(report.uploads[0][1], join(work, "box", "installed-agent", "fiable-agent.mjs"));
      const run = report.commands.at(-1);
      assert.match(run.command, `--mcp-url ${hv.url}`);
      assert.match(run.command, "--arm shadow");
      assert.match(run.command, "--max-turns 5");
      assert.equal(run.env_keys, [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_MODEL",
        "FIABLE_AGENT_INSTRUCTION",
        "FIABLE_LEDGER_DIR",
      ]);
      assert.not.match(JSON.stringify(report.commands), FAKE_KEY);
      // The task text reached the model verbatim, quotes and all.
      assert.match(JSON.stringify(model.main()[0].body.messages[0]), 'it\'s \\"$HOME\\" `here`.');
      assert.is(model.main()[0].body.model, "claude-sonnet-5");
      assert.equal(hv.calls.map((c) => c.tool), ["payer_intake_hub.list_intake_queue"]);
      const logs = join(work, "box", "logs", "agent");
      assert.ok(existsSync(join(logs, "trajectory.json")));
      assert.ok(existsSync(join(logs, "fiable-agent.txt")));
      const trajectory = JSON.parse(readFileSync(join(logs, "trajectory.json"), "utf8"));
      const fm = trajectory.final_metrics;
      assert.equal(report.context, {
        n_input_tokens: fm.total_prompt_tokens,
        n_cache_tokens: fm.total_cached_tokens,
        n_output_tokens: fm.total_completion_tokens,
        cost_usd: fm.total_cost_usd,
      });
      assert.ok(report.context.n_input_tokens > 0);
      assert.not.match(readFileSync(join(logs, "fiable-agent.txt"), "utf8"), FAKE_KEY);
    } finally {
      await model.close();
      await hv.close();
      rmSync(work, { recursive: true, force: true });
    }
  },
);

s("a bad arm or limit is refused before anything runs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-agent-py-"));
  copyFileSync(join(ROOT, "templates", "fiable_agent.py"), join(dir, "fiable_agent_harness.py"));
  const calls = ["h.resolve_arm('critc', None)", "h.resolve_limit('max_turns', 'lots')", "h.mcp_url([])"];
  const script = "import fiable_agent_harness as h\n" +
    calls.map((c) => `try:\n    ${c}\nexcept Exception as e:\n    print(e)`).join("\n");
  const r = await new Deno.Command("python3", {
    args: ["-c", script],
    env: { PYTHONPATH: `${STUB}:${dir}` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  rmSync(dir, { recursive: true, force: true });
  const lines = new TextDecoder().decode(r.stdout).trim().split("\n");
  assert.equal(lines, [
    'Cannot start fiable-agent: arm "critc" is unknown. Use one of stock, shadow, plan, checklist, critic.',
    'Cannot start fiable-agent: max_turns "lots" is not a non-negative number. Use e.g. max_turns=100.',
    "Cannot start fiable-agent: the task declares no MCP server with a URL. " +
    "fiable-agent needs the healthverse MCP server of a chi-bench task.",
  ], new TextDecoder().decode(r.stderr));
});

s(
  "install.ts registers fiable-agent beside fiable-cc, and uninstall restores the checkout byte for byte",
  async () => {
    const dir = chiBenchFixture();
    const fakeGuard = join(dir, "..", `fake-guard-${crypto.randomUUID()}.mjs`);
    writeFileSync(fakeGuard, "// stand-in guard\n");
    const registryPath = join(dir, "src", "chi_bench", "experiment", "agents", "registry.py");
    const before = readFileSync(registryPath, "utf8");
    const quiet = { log: console.log, error: console.error };
    console.log = console.error = () => {};
    try {
      assert.is(await installMain(["--chi-bench", dir, "--bundle", fakeGuard, "--apply"]), 0);
      const agents = join(dir, "src", "chi_bench", "experiment", "agents");
      assert.ok(
        readFileSync(join(agents, "fiable_agent_harness.py")).equals(
          readFileSync(join(ROOT, "templates", "fiable_agent.py")),
        ),
      );
      assert.ok(readFileSync(join(agents, "fiable_agent.mjs")).equals(readFileSync(DEFAULT_AGENT_BUNDLE)));
      assert.match(
        readFileSync(registryPath, "utf8"),
        '"fiable-agent": "chi_bench.experiment.agents.fiable_agent_harness:FiableAgent",',
      );
      assert.is(await installMain(["--chi-bench", dir, "--uninstall"]), 0);
      assert.is(readFileSync(registryPath, "utf8"), before);
      assert.not.ok(existsSync(join(agents, "fiable_agent_harness.py")));
    } finally {
      Object.assign(console, quiet);
      rmSync(dir, { recursive: true, force: true });
      rmSync(fakeGuard, { force: true });
    }
  },
);

s.run();
