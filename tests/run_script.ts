/**
 * The generated run.sh, driven as a team would drive it on a real-shaped checkout: stand-in `uv` and `docker`
 * on a PATH that holds nothing else but the few tools the script uses, and an `npx` that runs this checkout's
 * deno, so the real `deno task verify` and `deno task aggregate --pilot` run. No stage lists the stages and runs
 * nothing; each missing prerequisite is one line and exit 2 before anything is spent; the pilot runs smoke,
 * verify, pilot, verify, verdict in order with its spend and the prediction before the first trial; the full
 * ablation runs only when named, after a go (or --force), confirmed.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEFAULT_EXPERIMENT,
  DOMAINS,
  PILOT_RESULTS,
  pilotOrder,
  RUN_SCRIPT,
  runOrder,
} from "../lib/install/experiments.ts";
import { REGISTRY } from "../lib/install/checkout.ts";
import { writeGuardedTrial } from "./support/trial_dirs.ts";
import { REGISTRY_PY } from "./support/chibench_fixture.ts";
import { cleanup, cli, installed, tempDir } from "./support/install_cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const s = suite("run script");

/** A credential planted in the checkout's .env: run.sh must find it and never print it. */
const KEY = "sk-ant-api03-" + "Zq8v".repeat(20) + "-AA";
const PROVIDER_TASKS = [1, 2, 3, 4, 5, 6].map((i) => `pa_t00${i}_p00${i}_new_referral_provider`);
const CALLS = [{ tool: "review.get_md_review_data" }, { tool: "determination.finalize" }];

/** The tools run.sh and the stand-ins use, linked into one folder: the PATH holds nothing else. */
let tools: string | undefined;
function toolsDir(): string {
  if (tools && existsSync(tools)) return tools;
  tools = tempDir("fiable-tools-");
  for (const name of ["sh", "dirname", "cat", "grep", "tr", "ls", "sed", "mkdir", "cp"]) {
    const at = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
    assert.ok(at.startsWith("/"), `${name} is not on this machine's PATH`);
    symlinkSync(at, join(tools, name));
  }
  return tools;
}

interface Fake {
  bin: string;
  log: string;
  templates: string;
}

/**
 * Stand-ins: `uv` answers chi-bench's `cb --help`, Harbor's version (FAKE_HARBOR) and `cb experiment run`
 * (copies the arm's template trials into the config's trials_dir and job); `docker info` exits FAKE_DOCKER;
 * `npx` runs this checkout's deno. Every call goes to the log. `without` leaves stand-ins out.
 */
function fakeBin(without: string[] = []): Fake {
  const bin = tempDir("fiable-fakebin-");
  const templates = tempDir("fiable-fake-trials-");
  const log = join(bin, "calls.log");
  const scripts: Record<string, string> = {
    uv: `#!/bin/sh
echo "uv $*" >>"$FAKE_LOG"
case "$*" in
  "run cb --help") [ -z "\${FAKE_CB_BROKEN:-}" ] || exit 1; echo "Usage: cb [OPTIONS] COMMAND" ;;
  "run python -c"*) echo "\${FAKE_HARBOR:-0.20.0}" ;;
  "run cb experiment run -f "*)
    cfg=$6
    trials=$(sed -n 's/^trials_dir: //p' "$cfg")
    job=$(sed -n 's/^job_name: //p' "$cfg")
    arm=$(sed -n 's/^  arm: //p' "$cfg")
    mkdir -p "$trials/$job"
    cp -R "$FAKE_TRIALS/$arm/." "$trials/$job/"
    ;;
  *) echo "stand-in uv: unexpected $*" >&2; exit 9 ;;
esac
`,
    docker: `#!/bin/sh
echo "docker $*" >>"$FAKE_LOG"
exit "\${FAKE_DOCKER:-0}"
`,
    npx: `#!/bin/sh
echo "npx $*" >>"$FAKE_LOG"
if [ "$1" = -y ]; then shift 2; fi
exec '${Deno.execPath()}' "$@"
`,
  };
  for (const [name, text] of Object.entries(scripts)) {
    if (without.includes(name)) continue;
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  }
  return { bin, log, templates };
}

/**
 * Template trials for the stand-in `uv`: every arm's run copies its arm's six provider trials; critic passes
 * `criticPasses` of them, every other arm none (so the pilot's verdict is known in advance).
 */
function templates(fake: Fake, criticPasses: number, broken?: string): Fake {
  for (const arm of DEFAULT_EXPERIMENT.arms) {
    PROVIDER_TASKS.forEach((task, i) =>
      writeGuardedTrial(join(fake.templates, arm), {
        arm,
        calls: CALLS,
        domain: "pa_provider",
        task,
        id: `T${i}`,
        reward: arm === "critic" && i < criticPasses ? 1 : 0,
        ...(arm === broken ? { ledger: false } : {}),
      })
    );
  }
  return fake;
}

/** The environment run.sh sees: no key, no Modal token of this machine's; the stand-ins and tools only. */
function envFor(fake: Fake, extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) {
    if (/^(ANTHROPIC_|CLAUDE_CODE_|MODAL_)/.test(name)) delete env[name];
  }
  return {
    ...env,
    PATH: `${fake.bin}:${toolsDir()}`,
    FIABLE_AGENT_DIR: ROOT,
    FAKE_LOG: fake.log,
    FAKE_TRIALS: fake.templates,
    ...extra,
  };
}

function runIn(dir: string, fake: Fake, args: string[] = [], extra: Record<string, string> = {}) {
  const run = spawnSync("sh", [join(dir, RUN_SCRIPT), ...args], {
    encoding: "utf8",
    env: envFor(fake, extra),
    timeout: 240_000,
  });
  assert.not.ok(run.stdout.includes(KEY) || run.stderr.includes(KEY), "run.sh printed the API key");
  return run;
}

/** A checkout as a team's would be: fiable-cc registered, six tasks per domain at v1.0.0, the key in .env. */
let base: string | undefined;
async function ready(opts: string[] = []): Promise<string> {
  if (!base || !existsSync(base) || opts.length) {
    const tasks = { prior_auth_provider: 6, prior_auth_um: 6, care_management: 6 };
    const dir = await installed(undefined, { data: { tasks } });
    writeFileSync(join(dir, ".env"), `# chi-bench env_file\nANTHROPIC_API_KEY=${KEY}\n`);
    const run = await cli(["experiments", "--chi-bench", dir, ...opts, "--apply"]);
    assert.is(run.code, 0, run.err);
    if (opts.length) return dir;
    base = dir;
  }
  const copy = tempDir("fiable-checkout-");
  cpSync(base, copy, { recursive: true });
  return copy;
}

/** What run.sh ran, as words: the config runs, `verify smoke|pilot|<domain>`, `aggregate pilot`. */
function calls(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8").trim().split("\n").filter(Boolean).flatMap((l) => {
    if (l === "uv run cb --help" || l.startsWith("uv run python -c") || l === "docker info") return [];
    if (!l.startsWith("npx ")) return [l];
    if (l.startsWith("npx -y deno@2.9.6 task aggregate ")) {
      assert.match(
        l,
        / --arm stock=\S+\/fiable-pilot\/stock --arm critic=\S+\/fiable-pilot\/critic --pilot --out /,
      );
      return ["aggregate pilot"];
    }
    assert.ok(l.startsWith("npx -y deno@2.9.6 task verify "), l);
    const dirs = l.split(" ").slice(5).filter((d) => d !== "--trials");
    if (dirs.every((d) => d.includes("/logs/experiments/fiable-smoke/"))) {
      assert.is(dirs.length, 12);
      assert.ok(l.includes(" verify --trials "), "the smoke's verify lists each trial's hook mode");
      return ["verify smoke"];
    }
    if (dirs.every((d) => d.includes("/logs/experiments/fiable-pilot/"))) return ["verify pilot"];
    return [`verify ${[...new Set(dirs.map((d) => d.split("/").at(-1)))].join(",")}`];
  });
}

/** What run.sh should run, stage by stage. */
function expected(stage: "smoke" | "pilot" | "full"): string[] {
  const run = (r: { path: string }) => `uv run cb experiment run -f ${r.path}`;
  if (stage === "full") {
    return [
      "verify smoke",
      ...Object.keys(DOMAINS).flatMap((domain) => [
        ...runOrder(DEFAULT_EXPERIMENT).filter((r) => r.domain === domain).map(run),
        `verify ${domain}`,
      ]),
    ];
  }
  const smoke = [...runOrder(DEFAULT_EXPERIMENT, true).map(run), "verify smoke"];
  return stage === "smoke" ? smoke : [...smoke, ...pilotOrder().map(run), "verify pilot", "aggregate pilot"];
}

/** The line numbers of stdout lines matching each pattern, in order of the patterns. */
function at(stdout: string, ...patterns: RegExp[]): number[] {
  const lines = stdout.split("\n");
  return patterns.map((p) => {
    const i = lines.findIndex((l) => p.test(l));
    assert.ok(i >= 0, `no line matches ${p} in:\n${stdout}`);
    return i;
  });
}

s("no stage: the stages with their trials and cost; nothing runs, exit 0", async () => {
  const fake = fakeBin();
  const run = runIn(await ready(), fake);
  assert.is(run.status, 0, run.stderr);
  assert.equal(calls(fake.log), []);
  assert.not.ok(existsSync(fake.log), "not even the prerequisites are probed");
  assert.match(
    run.stdout,
    /Stages \(model anthropic\/claude-opus-5, Claude Code 2\.1\.\d+ in every arm, docker/,
  );
  assert.match(
    run.stdout,
    /^ {2}smoke {2}\s+12 trials {2}≈ \$57 \(the reference's tokens: \$42\): one task per domain/m,
  );
  assert.match(
    run.stdout,
    /^ {2}pilot {2}\s+12 trials {2}≈ \$41 .*it runs the smoke stage first: 24 trials ≈ \$99/m,
  );
  assert.match(
    run.stdout,
    /^ {2}full\s+216 trials {2}≈ \$1,035 .*only after a go \(or --force\), with --yes/m,
  );
  const unknown = runIn(await ready(), fake, ["everything"]);
  assert.is(unknown.status, 2);
  assert.match(
    unknown.stderr,
    /^Cannot run stage "everything": it is unknown\. Use one of smoke, pilot, full, check/,
  );
});

/** One row per prerequisite: what breaks it, and the one line run.sh must print. */
const MISSING: [string, (dir: string) => { without?: string[]; env?: Record<string, string> }, RegExp][] = [
  [
    "uv",
    () => ({ without: ["uv"] }),
    /^Cannot run chi-bench: uv is not on the PATH\. Install it .*uv sync --extra dev/,
  ],
  [
    "chi-bench's environment",
    () => ({ env: { FAKE_CB_BROKEN: "1" } }),
    /^Cannot run chi-bench: `uv run cb --help` failed in \S+\. Run `uv sync --extra dev` there\.$/,
  ],
  [
    "Harbor 0.20.x",
    () => ({ env: { FAKE_HARBOR: "0.21.0" } }),
    /^Cannot run fiable-cc: chi-bench's environment has Harbor 0\.21\.0, and fiable-cc is written for Harbor 0\.20\.x\./,
  ],
  [
    "docker on the PATH",
    () => ({ without: ["docker"] }),
    /^Cannot reach Docker: docker is not on the PATH\./,
  ],
  [
    "docker reachable",
    () => ({ env: { FAKE_DOCKER: "1" } }),
    /^Cannot reach Docker: `docker info` failed .*--environment modal\)\.$/,
  ],
  [
    "the task data",
    (dir) => (rmSync(join(dir, "data", "care_management", "tasks"), { recursive: true }), {}),
    /^Cannot find the task data: data\/care_management\/tasks is missing or empty\. Download it: uv run cb data download --revision chi-bench-v1\.0\.0$/,
  ],
  [
    "the data's version file",
    (dir) => (rmSync(join(dir, "data", ".chi-bench-version")), {}),
    /^Cannot check the task data's version: data\/\.chi-bench-version is missing, and these configs are written for chi-bench-v1\.0\.0\./,
  ],
  [
    "the data's version",
    (dir) => (writeFileSync(join(dir, "data", ".chi-bench-version"), "chi-bench-v1.1.0\n"), {}),
    /^Cannot run on this task data: data\/\.chi-bench-version records chi-bench-v1\.1\.0, and these configs are written for chi-bench-v1\.0\.0\./,
  ],
  [
    "an API key",
    (dir) => (writeFileSync(join(dir, ".env"), "ANTHROPIC_API_KEY=\nOTHER=1\n"), {}),
    /^Cannot find an API key: ANTHROPIC_API_KEY \(or CLAUDE_CODE_OAUTH_TOKEN\) is neither in the environment nor in \S+\/\.env/,
  ],
  [
    "fiable-cc registered",
    (dir) => (writeFileSync(join(dir, REGISTRY), REGISTRY_PY), {}),
    /^Cannot start the arms: fiable-cc is not registered in src\/chi_bench\/experiment\/agents\/registry\.py\. From fiable-agent: deno task install --chi-bench \S+ --apply$/,
  ],
  [
    "a fiable-agent checkout",
    () => ({ env: { FIABLE_AGENT_DIR: "/nonexistent/fiable-agent" } }),
    /^Cannot verify trials: \/nonexistent\/fiable-agent is not a fiable-agent checkout \(no verify\.ts\)\./,
  ],
  ["npx", () => ({ without: ["npx"] }), /^Cannot run fiable-agent's verify: npx is not on the PATH\./],
];

for (const [what, breakIt, line] of MISSING) {
  s(`missing ${what}: its line and its fix, exit 2, nothing run or priced`, async () => {
    const dir = await ready();
    const { without = [], env = {} } = breakIt(dir);
    const fake = fakeBin(without);
    const run = runIn(dir, fake, ["pilot"], env);
    assert.is(run.status, 2, run.stdout + run.stderr);
    const lines = run.stderr.trim().split("\n");
    assert.is(lines.length, 2, run.stderr);
    assert.match(lines[0], line);
    assert.is(lines[1], "Stopped before anything ran: 1 prerequisite missing (above). Nothing was spent.");
    assert.equal(calls(fake.log), []);
    assert.not.match(run.stdout, /==> /);
  });
}

s("Modal: a token and profile instead of Docker; several missing items, one line each", async () => {
  const dir = await ready(["--environment", "modal"]);
  const config = join(tempDir("fiable-modal-"), "modal.toml");
  const fake = fakeBin(["docker"]);
  const none = runIn(dir, fake, ["check"], { MODAL_CONFIG_PATH: config });
  assert.is(none.status, 2);
  assert.match(
    none.stderr,
    /^Cannot reach Modal: no Modal token \(MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are unset/m,
  );
  writeFileSync(config, '[fiable]\ntoken_id = "ak-x"\ntoken_secret = "as-x"\nactive = true\n');
  const profile = runIn(dir, fake, ["check"], { MODAL_CONFIG_PATH: config, MODAL_PROFILE: "other" });
  assert.match(profile.stderr, /^Cannot reach Modal: profile other \(MODAL_PROFILE\) is not in /m);
  const ok = runIn(dir, fake, ["check"], { MODAL_CONFIG_PATH: config, MODAL_PROFILE: "fiable" });
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^Every prerequisite is in place\.$/m);
  assert.ok(
    readFileSync(join(dir, runOrder(DEFAULT_EXPERIMENT, true)[0].path), "utf8").includes(
      "environment: modal",
    ),
  );
  assert.ok(readFileSync(join(dir, pilotOrder()[0].path), "utf8").includes("environment: modal"));
  // Two things missing at once: both named, counted once.
  rmSync(join(dir, ".env"));
  const two = runIn(dir, fakeBin(["docker", "uv"]), ["check"], { MODAL_CONFIG_PATH: config });
  assert.is(two.status, 2);
  assert.match(two.stderr, /^Cannot run chi-bench: uv is not on the PATH/m);
  assert.match(two.stderr, /^Cannot find an API key/m);
  assert.match(
    two.stderr,
    /Stopped before anything ran: 2 prerequisites missing \(above\)\. Nothing was spent\.\n$/,
  );
});

s(
  "pilot: smoke, verify (each trial's hook mode), pilot, verify, verdict, each stage priced first",
  async () => {
    const fake = templates(fakeBin(), 6);
    const dir = await ready();
    const run = runIn(dir, fake, ["pilot"]);
    assert.is(run.status, 0, run.stdout + run.stderr);
    assert.equal(calls(fake.log), expected("pilot"));
    const [smokeCost, firstSmoke, table, prediction, pilotCost, firstPilot, verdict] = at(
      run.stdout,
      /^==> smoke: 12 trials ≈ \$57 \(the reference's tokens: \$42\); this command's running total: ≈ \$57 /,
      /^==> uv run cb experiment run -f configs\/experiments\/fiable\/smoke\//,
      /^arm +trial +kind +hooks/,
      /^What replay predicts for the pilot \(data\/pilot_prediction\.json/,
      /^==> pilot: 12 trials ≈ \$41 .*; this command's running total: ≈ \$99 /,
      /^==> uv run cb experiment run -f configs\/experiments\/fiable\/pilot\//,
      /^Pilot verdict: go\. critic − stock on pa_provider: Δ pass@1 \+100\.0 pts/,
    );
    assert.ok(smokeCost < firstSmoke && firstSmoke < table && table < prediction, run.stdout);
    assert.ok(prediction < pilotCost && pilotCost < firstPilot && firstPilot < verdict, run.stdout);
    // The smoke's verify names each guarded trial's hook mode.
    assert.match(run.stdout, /^critic +\S+fiable-smoke\/critic\/pa_provider\S+ +guarded +http /m);
    assert.match(run.stdout, /Start the full ablation with: sh \S+ full/);
    assert.is(readFileSync(join(dir, PILOT_RESULTS, "pilot_verdict.txt"), "utf8"), "go\n");

    // full without --yes and without a terminal: refused, nothing run.
    writeFileSync(fake.log, "");
    const refused = runIn(dir, fake, ["full"]);
    assert.is(refused.status, 4, refused.stdout + refused.stderr);
    assert.equal(calls(fake.log), ["verify smoke"]);
    assert.match(refused.stdout, /^==> full: 216 trials ≈ \$1,035 .*running total: ≈ \$1,035/m);
    assert.match(
      refused.stderr,
      /^Cannot start the full ablation unconfirmed: .* Rerun with --yes, or from a terminal/m,
    );

    // On a terminal, anything but "yes" is a no.
    const script = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).stdout.trim();
    if (script) {
      for (const [typed, status] of [["no", 4], ["yes", 0]] as const) {
        writeFileSync(fake.log, "");
        const tty = spawnSync(script, ["-qec", `sh ${join(dir, RUN_SCRIPT)} full`, "/dev/null"], {
          encoding: "utf8",
          input: `${typed}\n`,
          env: envFor(fake),
          timeout: 240_000,
        });
        assert.is(tty.status, status, tty.stdout);
        assert.match(tty.stdout, /Type yes to start the full ablation \(216 trials\): /);
        assert.equal(calls(fake.log), typed === "yes" ? expected("full") : ["verify smoke"]);
      }
    } else console.warn("skipped the typed confirmation: no `script` to give run.sh a terminal");

    // --yes: the ablation, domain by domain, each verified.
    writeFileSync(fake.log, "");
    const done = runIn(dir, fake, ["full", "--yes"]);
    assert.is(done.status, 0, done.stdout + done.stderr);
    assert.equal(calls(fake.log), expected("full"));
    assert.match(
      done.stdout,
      /Ablation done and verified\. Aggregate from the fiable-agent checkout:\n {2}cd .* task aggregate --arm stock=.* --protocol/,
    );
  },
);

s("a guarded smoke trial the guard did not provably run stops everything after the smoke", async () => {
  const fake = templates(fakeBin(), 6, "checklist");
  const run = runIn(await ready(), fake, ["pilot"]);
  assert.is(run.status, 1, run.stderr);
  assert.equal(calls(fake.log), expected("smoke"));
  assert.match(
    run.stdout,
    /FAIL \[checklist\] Cannot trust .* as guarded \(arm checklist\): it has no guard ledger/,
  );
  assert.match(
    run.stderr,
    /^Stopped: verify found a problem .* rerun \S+ pilot; finished trials are kept\.$/m,
  );
});

s("a no-go pilot stops before the full ablation (exit 3); full --force --yes runs it anyway", async () => {
  const fake = templates(fakeBin(), 1);
  const dir = await ready();
  const nogo = runIn(dir, fake, ["pilot"]);
  assert.is(nogo.status, 3, nogo.stdout + nogo.stderr);
  assert.equal(calls(fake.log), expected("pilot"));
  assert.match(
    nogo.stdout,
    /^Pilot verdict: no-go\. critic − stock on pa_provider: Δ pass@1 \+16\.7 pts \[0\.0, /m,
  );
  assert.match(
    nogo.stderr,
    /Stopped before the full ablation: the pilot's verdict is no-go .* sh \S+ full --force/,
  );
  writeFileSync(fake.log, "");
  assert.is(runIn(dir, fake, ["full", "--yes"]).status, 3);
  assert.equal(calls(fake.log), ["verify smoke"]);
  writeFileSync(fake.log, "");
  const forced = runIn(dir, fake, ["full", "--force", "--yes"]);
  assert.is(forced.status, 0, forced.stdout + forced.stderr);
  assert.equal(calls(fake.log), expected("full"));
  assert.match(forced.stdout, /Pilot verdict: no-go; running the full ablation anyway \(--force\)\./);
  // `smoke` alone stops after its verify; `full` with no pilot yet stops too.
  const fresh = await ready();
  const smoke = templates(fakeBin(), 6);
  assert.is(runIn(fresh, smoke, ["smoke"]).status, 0);
  assert.equal(calls(smoke.log), expected("smoke"));
  const early = runIn(fresh, smoke, ["full", "--yes"]);
  assert.is(early.status, 3);
  assert.match(early.stderr, /the pilot's verdict is none \(no pilot has run\)/);
  assert.not.ok(existsSync(join(fresh, "logs", "experiments", "fiable")), "no ablation trial");
});

s.after(cleanup);

s.run();
