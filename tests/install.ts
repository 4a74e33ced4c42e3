/** install.ts on a fixture chi-bench tree: plan, apply, idempotence, byte-for-byte uninstall, refusals,
 * the generated Python harness's arm resolution (tests/e2e/harbor_trial.ts runs it through Harbor 0.20's whole
 * trial sequence), and the pre-registered experiment configs. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { ARMS } from "../lib/guard/engine/record.ts";
import { settingsJson } from "../lib/guard/config/claude_settings.ts";
import { HARNESSES, importPath } from "../lib/install/harnesses.ts";
import { lockedHarbor } from "../lib/install/checkout.ts";
import { DOMAINS, EXPERIMENTS_DIR, PILOT_DIR, RUN_SCRIPT, SMOKE_DIR } from "../lib/install/experiments.ts";
import { writeArm } from "./support/trial_dirs.ts";
import { lineDiff } from "../lib/install/render.ts";
import { PINNED_CLAUDE_CODE } from "../lib/install/claude_code.ts";
import { type FixtureOptions, REGISTRY_PY, uvLock } from "./support/chibench_fixture.ts";
import { cleanup, cli, fakeBundle, fixture, installed, tempDir } from "./support/install_cli.ts";
import { testBundle } from "./support/guard_process.ts";
import { chiBenchPython } from "./support/chibench_python.ts";
import { declaredArm } from "../lib/install/submission.ts";
import { faultyFs, SimulatedCrash } from "./support/faulty_fs.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const FAKE_BUNDLE = fakeBundle();
const STUB = join(ROOT, "tests", "support", "harbor_stub");
const AGENTS = "src/chi_bench/experiment/agents";
const REGISTRY = `${AGENTS}/registry.py`;
const HARNESS = `${AGENTS}/fiable_cc_harness.py`;
const GUARD = `${AGENTS}/fiable_guard.cjs`;
const TEMPLATE = readFileSync(join(ROOT, "templates", "fiable_cc.py"));
/** Every file and folder under dir, with file bytes as base64 (folders as "dir"). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(join(dir, path)).isDirectory()) {
        out[path] = "dir";
        walk(path);
      } else out[path] = readFileSync(join(dir, path)).toString("base64");
    }
  };
  walk("");
  return out;
}

function text(dir: string, path: string): string {
  return readFileSync(join(dir, path), "utf8");
}

// ---------------------------------------------------------------------------------------------------------
const s = suite("install");

s("dry run lists every change and writes nothing", async () => {
  const dir = fixture();
  const before = snapshot(dir);
  const run = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE]);
  assert.is(run.code, 0, run.err);
  for (
    const line of [
      `create  ${HARNESS}`,
      `create  ${GUARD}`,
      `edit    ${REGISTRY}`,
      "Dry run: nothing written",
    ]
  ) {
    assert.ok(run.out.includes(line), `missing "${line}" in:\n${run.out}`);
  }
  assert.ok(run.out.includes(`+     "fiable-cc": "${importPath(HARNESSES[0])}",`), run.out);
  assert.equal(snapshot(dir), before);
});

s("apply writes the module, the bundle, the registry entry and the env-var hint", async () => {
  const dir = await installed();
  assert.ok(readFileSync(join(dir, HARNESS)).equals(TEMPLATE), "harness module is the template verbatim");
  assert.ok(
    readFileSync(join(dir, GUARD)).equals(readFileSync(FAKE_BUNDLE)),
    "bundle copied beside the module",
  );
  const registry = text(dir, REGISTRY);
  assert.ok(
    registry.includes(
      `    "fiable-cc": "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode",\n`,
    ),
  );
  assert.ok(registry.includes(`    "fiable-cc": (\n        "ANTHROPIC_API_KEY",`));
  assert.equal(lineDiff(REGISTRY_PY, registry).filter((l) => l.startsWith("-")), [], "only additions");
  assert.is(text(dir, ".fiable-install/.gitignore"), "*\n");
});

s("a second apply changes nothing", async () => {
  const dir = await installed();
  const before = snapshot(dir);
  const run = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
  assert.is(run.code, 0, run.err);
  assert.ok(run.out.startsWith("Nothing to change: fiable-cc, fiable-agent are installed"), run.out);
  assert.equal(snapshot(dir), before);
});

s("a new template or bundle is an update that uninstall still undoes to the original", async () => {
  const dir = fixture();
  const pristine = snapshot(dir);
  await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
  const newer = join(tempDir("fiable-fake-bundle-"), "fiable-guard.cjs");
  writeFileSync(newer, "// newer bundle\n");
  const run = await cli(["--chi-bench", dir, "--bundle", newer, "--apply"]);
  assert.ok(run.out.includes(`edit    ${GUARD}`), run.out);
  assert.not.ok(run.out.includes(REGISTRY), "registry already has the entry");
  assert.is((await cli(["--chi-bench", dir, "--uninstall"])).code, 0);
  assert.equal(snapshot(dir), pristine);
});

s(
  "an install from before the guard bundle was renamed .cjs updates, and uninstall still restores it all",
  async () => {
    const dir = fixture();
    const pristine = snapshot(dir);
    await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
    // What that install left: the bundle as fiable_guard.mjs, and a manifest naming it so.
    const old = `${AGENTS}/fiable_guard.mjs`;
    renameSync(join(dir, GUARD), join(dir, old));
    const manifest = join(dir, ".fiable-install/manifest.json");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replaceAll(GUARD, old));
    const run = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
    assert.is(run.code, 0, run.err);
    assert.ok(run.out.includes(`create  ${GUARD}`), run.out);
    assert.ok(existsSync(join(dir, GUARD)) && existsSync(join(dir, old)));
    assert.is((await cli(["--chi-bench", dir, "--uninstall"])).code, 0);
    assert.equal(snapshot(dir), pristine);
  },
);

s("uninstall restores every touched file byte for byte, experiments included", async () => {
  const dir = fixture({ files: { "configs/prices.yaml": "prices: {}\n" } });
  const pristine = snapshot(dir);
  await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
  assert.is((await cli(["experiments", "--chi-bench", dir, "--shadow", "--apply"])).code, 0);
  const run = await cli(["--chi-bench", dir, "--uninstall"]);
  assert.is(run.code, 0, run.err);
  assert.ok(run.out.includes(`restore ${REGISTRY}`), run.out);
  assert.equal(snapshot(dir), pristine);
  assert.ok((await cli(["--chi-bench", dir, "--uninstall"])).out.startsWith("Nothing to uninstall"));
});

s("uninstall refuses to drop edits made after install; --force keeps them beside", async () => {
  const dir = await installed();
  const edited = text(dir, REGISTRY).replace('    "hermes"', '    "mine": "my.module:Mine",\n    "hermes"');
  writeFileSync(join(dir, REGISTRY), edited);
  const refused = await cli(["--chi-bench", dir, "--uninstall"]);
  assert.is(refused.code, 2);
  assert.ok(
    refused.err.startsWith(`Cannot uninstall: ${REGISTRY} changed since install.ts wrote it`),
    refused.err,
  );
  assert.ok(refused.err.includes("--force"), refused.err);
  assert.is(text(dir, REGISTRY), edited, "nothing touched on refusal");
  const forced = await cli(["--chi-bench", dir, "--uninstall", "--force"]);
  assert.is(forced.code, 0, forced.err);
  assert.is(text(dir, REGISTRY), REGISTRY_PY);
  assert.is(text(dir, `${REGISTRY}.fiable-kept`), edited);
});

const REFUSALS: [string, FixtureOptions, string[]][] = [
  ["not a chi-bench checkout (other project)", { project: "other" }, [
    "is not a chi-bench checkout",
    'does not name the project "chi-bench"',
    "Pass --chi-bench with the root of a clone of actava-ai/chi-bench",
  ]],
  ["not a chi-bench checkout (no registry)", { registry: null }, [`no ${REGISTRY}`, "Pass --chi-bench"]],
  ["uv.lock pins Harbor 0.22", { harbor: "0.22.1" }, [
    "uv.lock pins harbor 0.22.1",
    "written for Harbor 0.20.x",
    "uv sync --extra dev",
  ]],
  ["uv.lock pins Harbor 0.19", { harbor: "0.19.4" }, ["pins harbor 0.19.4"]],
  ["uv.lock locks no Harbor", { harbor: null }, ["uv.lock locks no harbor package", "uv sync --extra dev"]],
  ["no uv.lock", { noLock: true }, ["has no uv.lock", "uv sync --extra dev"]],
  ["registry dict renamed", { registry: REGISTRY_PY.replace(/IN_TREE_AGENT_IMPORT_PATHS:/, "AGENTS:") }, [
    `Cannot edit ${REGISTRY}`,
    "IN_TREE_AGENT_IMPORT_PATHS",
    "Add the entry by hand",
  ]],
  ["registry dict never closed", {
    registry: REGISTRY_PY.replace(/^}\n\nHARBOR/m, "\nHARBOR").replace(/^}\n$/m, ""),
  }, [
    `Cannot edit ${REGISTRY}`,
  ]],
  ["runner no longer dispatches the registry", { runner: "def run():\n    pass\n" }, [
    "no longer reads IN_TREE_AGENT_IMPORT_PATHS",
    "--agent-import-path",
  ]],
  ["fiable-cc already mapped elsewhere", {
    registry: REGISTRY_PY.replace('    "hermes"', '    "fiable-cc": "somewhere.else:Other",\n    "hermes"'),
  }, ['already maps it to "somewhere.else:Other"', "Remove that entry"]],
  ["a harness module install.ts did not write", { files: { [HARNESS]: "# mine\n" } }, [
    `Cannot write ${HARNESS}: the file exists and install.ts did not write it`,
    "Move it out of the way",
  ]],
];

for (const [name, options, says] of REFUSALS) {
  s(`refuses: ${name}`, async () => {
    const dir = fixture(options);
    const before = snapshot(dir);
    const run = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
    assert.is(run.code, 2, run.out);
    assert.ok(run.err.startsWith("Cannot "), run.err);
    for (const part of says) assert.ok(run.err.includes(part), `missing "${part}" in: ${run.err}`);
    assert.equal(snapshot(dir), before, "a refusal writes nothing");
  });
}

const CLI_ERRORS: [string[], string][] = [
  [
    ["experiments", "--chi-bench", ".", "--arm", "critc"],
    'Cannot write experiments: --arm "critc" is unknown. Use one of stock, shadow, plan, checklist, critic.',
  ],
  [
    ["--chi-bench", ".", "--arm", "plan"],
    "Cannot run install: unknown option --arm. Use one of: experiments, submission, --chi-bench, --bundle, --apply, --uninstall, --force, --help (see --help).",
  ],
  [
    ["--apply"],
    "Cannot install: --chi-bench is missing. Pass the root of your chi-bench checkout, e.g. --chi-bench ../chi-bench.",
  ],
  [
    ["experiments", "--chi-bench", ".", "--model", "opus"],
    'Cannot write experiments: --model "opus" has no provider prefix. Use a vendor-prefixed name such as anthropic/claude-opus-5.',
  ],
  [
    ["experiments", "--chi-bench", ".", "--concurrency", "0"],
    'Cannot write experiments: --concurrency "0" is not a positive whole number. Use e.g. 5.',
  ],
  [
    ["experiments", "--chi-bench", ".", "--environment", "k8s"],
    'Cannot write experiments: --environment "k8s" is unknown. Use one of docker, modal.',
  ],
  [
    ["--chi-bench", "/nonexistent/chi-bench", "--apply"],
    "Cannot install into /nonexistent/chi-bench: no such folder. Clone actava-ai/chi-bench there first.",
  ],
  [
    ["--chi-bench", ".", "--apply", "--uninstall"],
    "Cannot install: --apply and --uninstall contradict each other. Use one of them.",
  ],
];

for (const [args, message] of CLI_ERRORS) {
  s(`CLI: ${args.join(" ")}`, async () => {
    const run = await cli(args);
    assert.is(run.code, 2);
    assert.is(run.err, message);
  });
}

s("lockedHarbor reads the [[package]] pin, not the dev extra's specifier", () => {
  assert.is(lockedHarbor(uvLock("0.20.0")), "0.20.0");
  assert.is(lockedHarbor(uvLock(null)), null);
});

s.run();

// ---------------------------------------------------------------------------------------------------------
const trust = suite("install: what it reads back");

/** Every entry under dir as lstat sees it: links as their target (never followed), files as base64. */
function entries(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, path));
      if (st.isSymbolicLink()) out[path] = `link:${readlinkSync(join(dir, path))}`;
      else if (st.isDirectory()) {
        out[path] = "dir";
        walk(path);
      } else out[path] = readFileSync(join(dir, path)).toString("base64");
    }
  };
  walk("");
  return out;
}

/** A checkout beside a folder outside it holding a victim file and an empty folder. */
function besideOutside(): { dir: string; outside: string; up: string } {
  const dir = fixture();
  const outside = tempDir("fiable-outside-");
  writeFileSync(join(outside, "victim"), "not yours\n");
  mkdirSync(join(outside, "empty"));
  return { dir, outside, up: relative(dir, outside) };
}

function plant(dir: string, files: Record<string, unknown>[], dirs: string[] = [".fiable-install"]): void {
  mkdirSync(join(dir, ".fiable-install"), { recursive: true });
  writeFileSync(join(dir, ".fiable-install/manifest.json"), JSON.stringify({ v: 2, dirs, files }));
}

const PLANTED: [string, (o: { outside: string; up: string; dir: string }) => void, string][] = [
  [
    "a ../ path to restore",
    ({ dir, up }) => plant(dir, [{ path: `${up}/victim`, before: btoa("planted\n"), after: "0".repeat(64) }]),
    "../",
  ],
  [
    "a ../ path to delete",
    ({ dir, up }) => plant(dir, [{ path: `${up}/victim`, before: null, after: "0".repeat(64) }]),
    "../",
  ],
  [
    "an absolute path",
    ({ dir, outside }) =>
      plant(dir, [{ path: `${outside}/victim`, before: btoa("planted\n"), after: "0".repeat(64) }]),
    "which is not a path inside the checkout",
  ],
  [
    "a folder outside to remove",
    ({ dir, up }) => plant(dir, [], [".fiable-install", `${up}/empty`]),
    "empty",
  ],
  [
    "a link target above the root",
    ({ dir }) => plant(dir, [{ path: "x", before: null, after: "0".repeat(64), link: "../../etc/passwd" }]),
    '"x"',
  ],
  ["a path through a folder link out of the checkout", ({ dir, outside }) => {
    symlinkSync(outside, join(dir, "escape"));
    plant(dir, [{ path: "escape/victim", before: btoa("planted\n"), after: "0".repeat(64) }]);
  }, "escape is a link out of the checkout"],
  ["a file link out of the checkout", ({ dir, outside }) => {
    symlinkSync(join(outside, "victim"), join(dir, "victim.py"));
    plant(dir, [{ path: "victim.py", before: btoa("planted\n"), after: "0".repeat(64) }]);
  }, "victim.py is a link out of the checkout"],
  ["the state folder a link out of the checkout", ({ dir, outside }) => {
    mkdirSync(join(outside, "state"));
    writeFileSync(
      join(outside, "state/manifest.json"),
      JSON.stringify({ v: 2, dirs: [], files: [{ path: "README.md", before: null, after: "0".repeat(64) }] }),
    );
    symlinkSync(join(outside, "state"), join(dir, ".fiable-install"));
  }, ".fiable-install is a link out of the checkout"],
];

for (const [name, setup, names] of PLANTED) {
  for (const command of ["--uninstall", "--apply"]) {
    trust(`a planted manifest (${name}): ${command} refuses in one line and writes nothing`, async () => {
      const place = besideOutside();
      setup(place);
      const [inside, outside] = [entries(place.dir), entries(place.outside)];
      const run = await cli(["--chi-bench", place.dir, "--bundle", FAKE_BUNDLE, command]);
      assert.is(run.code, 2, run.out);
      assert.ok(run.err.startsWith("Cannot "), run.err);
      assert.is(run.err.split("\n").length, 1, run.err);
      assert.ok(run.err.includes(names), `"${names}" not in: ${run.err}`);
      assert.equal(entries(place.outside), outside, "nothing outside the checkout changed");
      assert.equal(entries(place.dir), inside, "nothing in the checkout changed");
    });
  }
}

trust("a link planted at a temp file's name is refused in one line, never written through", async () => {
  const { dir, outside } = besideOutside();
  symlinkSync(join(outside, "victim"), join(dir, `${REGISTRY}.fiable-tmp`));
  const before = entries(outside);
  const run = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
  assert.is(run.code, 2, run.out);
  assert.match(run.err, `${REGISTRY}.fiable-tmp is a link out of the checkout`);
  assert.equal(entries(outside), before);
  // Dangling: it leads nowhere, so nothing follows it either.
  rmSync(join(dir, `${REGISTRY}.fiable-tmp`));
  symlinkSync(join(outside, "new"), join(dir, `${REGISTRY}.fiable-tmp`));
  const dangling = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"]);
  assert.is(dangling.code, 2, dangling.out);
  assert.match(dangling.err, "which leads nowhere");
  assert.equal(entries(outside), before);
});

trust("a symlinked registry inside the checkout is edited as a file and restored as the link", async () => {
  const dir = fixture();
  renameSync(join(dir, REGISTRY), join(dir, `${AGENTS}/registry_real.py`));
  symlinkSync("registry_real.py", join(dir, REGISTRY));
  const pristine = entries(dir);
  assert.is((await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"])).code, 0);
  assert.not.ok(lstatSync(join(dir, REGISTRY)).isSymbolicLink(), "replaced by the edited file");
  assert.match(text(dir, REGISTRY), '"fiable-cc"');
  assert.is(text(dir, `${AGENTS}/registry_real.py`), REGISTRY_PY, "the link's target untouched");
  assert.is((await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"])).code, 0, "a rerun");
  const run = await cli(["--chi-bench", dir, "--uninstall"]);
  assert.is(run.code, 0, run.err);
  assert.match(run.out, `restore ${REGISTRY}`);
  assert.equal(entries(dir), pristine);
  assert.is(readlinkSync(join(dir, REGISTRY)), "registry_real.py");
});

trust.run();

// ---------------------------------------------------------------------------------------------------------
const crash = suite("install: interrupted");

/** A copy of the tree at `dir` in a new temp folder. */
function copyTree(dir: string): string {
  const to = tempDir("fiable-chibench-copy-");
  cpSync(dir, to, { recursive: true });
  return to;
}

/** Runs install.ts on a filesystem that crashes at its k-th change; true when it crashed there. */
async function crashedAt(dir: string, args: Args, k: number): Promise<boolean> {
  try {
    await cli(args(dir), faultyFs(k));
    return false;
  } catch (err) {
    if (err instanceof SimulatedCrash) return true;
    throw err;
  }
}

type Args = (dir: string) => string[];
const apply = (bundle = FAKE_BUNDLE): Args => (dir) => ["--chi-bench", dir, "--bundle", bundle, "--apply"];
const uninstall =
  (force = false): Args => (dir) => ["--chi-bench", dir, "--uninstall", ...(force ? ["--force"] : [])];
const SECOND_BUNDLE = join(tempDir("fiable-fake-bundle-"), "fiable-guard.cjs");
writeFileSync(SECOND_BUNDLE, "// newer stand-in guard bundle\nconsole.log('{}');\n");
/** One arm keeps the experiment files few (8) while taking the same path as the full ablation. */
const experimentsApply: Args = (
  dir,
) => ["experiments", "--chi-bench", dir, "--arm", "stock", "--apply"];

/** A command interrupted after every change it makes, and the reruns that must each end in a known tree. */
interface Interruption {
  name: string;
  /** Brings a fresh fixture to the tree the interrupted command starts from. */
  setup: Args[];
  run: Args;
  /** Each rerun after the crash, on its own copy of the crashed tree, and the tree it must end in. */
  reruns: { args: Args[]; ends: "pristine" | "finished" | "start" }[];
}

const INTERRUPTIONS: Interruption[] = [
  {
    name: "a first --apply",
    setup: [],
    run: apply(),
    reruns: [{ args: [uninstall()], ends: "pristine" }, { args: [apply()], ends: "finished" }],
  },
  {
    name: "an update (--apply over an older install)",
    setup: [apply()],
    run: apply(SECOND_BUNDLE),
    reruns: [{ args: [uninstall()], ends: "pristine" }, { args: [apply(SECOND_BUNDLE)], ends: "finished" }],
  },
  {
    name: "experiments --apply",
    setup: [apply()],
    run: experimentsApply,
    reruns: [{ args: [uninstall()], ends: "pristine" }, { args: [experimentsApply], ends: "finished" }],
  },
  {
    name: "--uninstall",
    setup: [apply(), experimentsApply],
    run: uninstall(),
    reruns: [{ args: [uninstall()], ends: "pristine" }, { args: [apply(), experimentsApply], ends: "start" }],
  },
];

for (const c of INTERRUPTIONS) {
  crash(
    `${c.name} interrupted after any change: --uninstall restores the original, a rerun finishes it`,
    async () => {
      const pristineDir = fixture();
      const pristine = snapshot(pristineDir);
      for (const step of c.setup) assert.is((await cli(step(pristineDir))).code, 0);
      const startDir = pristineDir;
      const trees = { pristine, start: snapshot(startDir), finished: {} as Record<string, string> };
      const whole = copyTree(startDir);
      const counter = faultyFs(Infinity);
      const done = await cli(c.run(whole), counter);
      assert.is(done.code, 0, done.err);
      trees.finished = snapshot(whole);
      assert.ok(counter.ops.length > 5, counter.ops.join("\n"));
      for (let k = 1; k <= counter.ops.length; k++) {
        const dir = copyTree(startDir);
        assert.ok(await crashedAt(dir, c.run, k), `change ${k} (${counter.ops[k - 1]}) was reached`);
        for (const rerun of c.reruns) {
          const copy = copyTree(dir);
          const where = `crash at change ${k} (${counter.ops[k - 1]}), then ${
            rerun.args.map((a) => a("DIR").join(" ")).join("; ")
          }`;
          for (const args of rerun.args) {
            const again = await cli(args(copy));
            assert.is(again.code, 0, `${where}: ${again.err}`);
            assert.not.ok(again.out.endsWith(":"), `${where}: an empty list\n${again.out}`);
          }
          assert.equal(snapshot(copy), trees[rerun.ends], `${where} ends ${rerun.ends}`);
          rmSync(copy, { recursive: true });
        }
      }
    },
  );
}

crash(
  "--uninstall --force interrupted after any change: a rerun keeps the edits and restores the rest",
  async () => {
    const startDir = await installed();
    const edited = text(startDir, REGISTRY).replace(
      '    "hermes"',
      '    "mine": "my.module:Mine",\n    "hermes"',
    );
    writeFileSync(join(startDir, REGISTRY), edited);
    const whole = copyTree(startDir);
    const counter = faultyFs(Infinity);
    assert.is((await cli(uninstall(true)(whole), counter)).code, 0);
    const finished = snapshot(whole);
    assert.is(text(whole, `${REGISTRY}.fiable-kept`), edited);
    for (let k = 1; k <= counter.ops.length; k++) {
      const dir = copyTree(startDir);
      assert.ok(await crashedAt(dir, uninstall(true), k));
      const where = `crash at change ${k} (${counter.ops[k - 1]})`;
      const forced = copyTree(dir);
      assert.is((await cli(uninstall(true)(forced))).code, 0, where);
      assert.equal(snapshot(forced), finished, `${where}, then --uninstall --force`);
      // Without --force: refused while the edit is still in place, else finished; never an edit lost.
      const plain = copyTree(dir);
      const before = snapshot(plain);
      const run = await cli(uninstall()(plain));
      if (run.code === 2) {
        assert.ok(run.err.startsWith(`Cannot uninstall: ${REGISTRY} changed since`), run.err);
        assert.equal(snapshot(plain), before, `${where}: a refusal writes nothing`);
      } else {
        assert.is(run.code, 0, run.err);
        assert.equal(snapshot(plain), finished, `${where}, then --uninstall`);
      }
    }
  },
);

crash(
  "a full disk at any write: a one-line error saying what to do, nothing lost, a rerun finishes",
  async () => {
    const pristineDir = fixture();
    const pristine = snapshot(pristineDir);
    const whole = copyTree(pristineDir);
    const counter = faultyFs(Infinity);
    assert.is((await cli(apply()(whole), counter)).code, 0);
    const finished = snapshot(whole);
    const writes = counter.ops.filter((op) => op.startsWith("write "));
    assert.ok(writes.length >= 4, writes.join("\n"));
    for (let w = 1; w <= writes.length; w++) {
      const dir = copyTree(pristineDir);
      const run = await cli(apply()(dir), faultyFs(w, "enospc"));
      const path = writes[w - 1].slice(`write ${dir}/`.length).replace(/\.fiable-tmp$/, "");
      assert.is(run.code, 2, `write ${w}: ${run.out}`);
      assert.is(
        run.err,
        `Cannot write ${path}: the disk is full (ENOSPC). Nothing is lost: free some space, then run the same ` +
          "command again: it picks up where it stopped (or --uninstall restores the checkout as it was).",
      );
      assert.not.ok(
        Object.keys(snapshot(dir)).some((p) => p.endsWith(".fiable-tmp")),
        "no half-written temp file",
      );
      const undo = copyTree(dir);
      assert.is((await cli(uninstall()(undo))).code, 0);
      assert.equal(snapshot(undo), pristine, `full disk at write ${w}, then --uninstall`);
      assert.is((await cli(apply()(dir))).code, 0);
      assert.equal(snapshot(dir), finished, `full disk at write ${w}, then --apply`);
    }
  },
);

crash(
  "the issue's case: manifest written, registry.py.fiable-tmp left; the dry run says so, both finish",
  async () => {
    const pristineDir = fixture();
    const pristine = snapshot(pristineDir);
    const counter = faultyFs(Infinity);
    await cli(apply()(copyTree(pristineDir)), counter);
    const k =
      counter.ops.findIndex((op) => op.startsWith("rename ") && op.includes("registry.py.fiable-tmp")) + 1;
    assert.ok(k > 0, counter.ops.join("\n"));
    const dir = copyTree(pristineDir);
    assert.ok(await crashedAt(dir, apply(), k));
    assert.is(text(dir, REGISTRY), REGISTRY_PY, "registry.py untouched");
    assert.ok(text(dir, `${REGISTRY}.fiable-tmp`).length > 0, "the temp file is there");
    const dry = await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE]);
    assert.is(dry.code, 0, dry.err);
    assert.match(
      dry.out,
      new RegExp(`delete +${REGISTRY.replaceAll(".", "\\.")}\\.fiable-tmp +\\(left by an interrupted run`),
    );
    assert.match(dry.out, new RegExp(`edit +${REGISTRY.replaceAll(".", "\\.")} `));
    assert.ok(text(dir, `${REGISTRY}.fiable-tmp`).length > 0, "a dry run writes nothing");
    const undo = copyTree(dir);
    const un = await cli(uninstall()(undo));
    assert.is(un.code, 0, un.err);
    assert.equal(snapshot(undo), pristine);
    assert.is((await cli(apply()(dir))).code, 0);
    assert.is((await cli(uninstall()(dir))).code, 0);
    assert.equal(snapshot(dir), pristine);
  },
);

crash("only an empty .fiable-install/ left: --uninstall removes it and prints no empty list", async () => {
  const dir = fixture();
  const pristine = snapshot(dir);
  const counter = faultyFs(Infinity);
  await cli(apply()(copyTree(dir)), counter);
  const made = counter.ops.findIndex((op) => op.startsWith("mkdir ") && op.endsWith("/.fiable-install")) + 1;
  assert.ok(made > 0, counter.ops.join("\n"));
  assert.ok(await crashedAt(dir, apply(), made + 1), "crashes after creating .fiable-install/");
  assert.equal(readdirSync(join(dir, ".fiable-install")), []);
  const run = await cli(uninstall()(dir));
  assert.is(run.code, 0, run.err);
  assert.is(
    run.out,
    `Removed the .fiable-install/ folder an interrupted install left in ${dir}; nothing else was installed.`,
  );
  assert.equal(snapshot(dir), pristine);
});

crash(
  "an update interrupted before its first file, rerun with the old bundle: back to the old install",
  async () => {
    const dir = await installed();
    const old = snapshot(dir);
    const counter = faultyFs(Infinity);
    await cli(apply(SECOND_BUNDLE)(copyTree(dir)), counter);
    const journal = counter.ops.findIndex((op) => op.startsWith("rename ") && op.includes("manifest.json")) +
      1;
    assert.ok(
      await crashedAt(dir, apply(SECOND_BUNDLE), journal + 1),
      "crashes after the manifest is written",
    );
    assert.ok(
      text(dir, ".fiable-install/manifest.json").includes('"previous"'),
      "the manifest names the old bundle",
    );
    const back = await cli(apply()(dir));
    assert.is(back.code, 0, back.err);
    assert.match(back.out, /edit +\.fiable-install\/manifest\.json /);
    assert.equal(snapshot(dir), old, "the manifest says the old bundle again");
    assert.ok((await cli(apply()(dir))).out.startsWith("Nothing to change"));
  },
);

crash("a manifest from before the journal (version 1) still uninstalls byte for byte", async () => {
  const dir = fixture();
  const pristine = snapshot(dir);
  await cli(apply()(dir));
  const manifest = join(dir, ".fiable-install/manifest.json");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"v": 2', '"v": 1'));
  assert.is((await cli(uninstall()(dir))).code, 0);
  assert.equal(snapshot(dir), pristine);
});

crash.run();

// ---------------------------------------------------------------------------------------------------------
const py = suite("install: generated harness (Python, Harbor 0.20 stand-in)");

let realDir: string | undefined;
async function realInstall(): Promise<string> {
  realDir ??= await installed(await testBundle());
  return realDir;
}

py("the generated module compiles (python3 -m py_compile)", async () => {
  const dir = await realInstall();
  const copy = join(tempDir("fiable-pyc-"), "fiable_cc_harness.py");
  writeFileSync(copy, readFileSync(join(dir, HARNESS)));
  const run = spawnSync("python3", ["-m", "py_compile", copy], { encoding: "utf8" });
  assert.is(run.status, 0, run.stderr);
});

py("the harness resolves the arm from the kwarg, then the host FIABLE_CC_ARM, then checklist", async () => {
  const dir = await realInstall();
  const code = "from chi_bench.experiment.agents.fiable_cc_harness import FiableClaudeCode as C\n" +
    "a = C(logs_dir='/tmp/unused', arm='')\nb = C(logs_dir='/tmp/unused', arm='plan')\n" +
    "print(a.arm, b.arm, C(logs_dir='/tmp/unused').guard_port)";
  const run = spawnSync("python3", ["-c", code], {
    encoding: "utf8",
    env: {
      ...Deno.env.toObject(),
      FIABLE_CC_ARM: "stock",
      PYTHONPATH: `${STUB}:${join(dir, "src")}`,
      PYTHONDONTWRITEBYTECODE: "1",
    },
  });
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), "stock plan 8787");
});

py(
  "where trials share the host's network (Singularity), each trial's guard gets a free port of its own",
  async () => {
    const dir = await realInstall();
    const code = [
      "from chi_bench.experiment.agents.fiable_cc_harness import FiableClaudeCode as C",
      "class Env:",
      "    def __init__(self, kind): self.kind = kind",
      "    def type(self): return self.kind",
      "shared, own = Env('singularity'), Env('docker')",
      "trials = [C(logs_dir='/tmp/unused', arm='critic') for _ in range(8)]",
      "ports = [t.trial_port(shared) for t in trials]",
      "assert len(set(ports)) == 8 and 8787 not in ports, ports",
      "assert [t.trial_port(shared) for t in trials] == ports, 'a resumed run keeps its port'",
      "assert all(f' up --port {p} ' in t.start_guard_command() for t, p in zip(trials, ports))",
      "assert C(logs_dir='/tmp/unused', arm='critic').trial_port(own) == 8787",
      "assert C(logs_dir='/tmp/unused', arm='critic', guard_port='9100').trial_port(shared) == 9100",
      "print('ok')",
    ].join("\n");
    const run = spawnSync("python3", ["-c", code], {
      encoding: "utf8",
      env: {
        ...Deno.env.toObject(),
        PYTHONPATH: `${STUB}:${join(dir, "src")}`,
        PYTHONDONTWRITEBYTECODE: "1",
      },
    });
    assert.is(run.status, 0, run.stderr);
    assert.is(run.stdout.trim(), "ok");
  },
);

py("the template's arms and asset name match the project's", () => {
  const source = TEMPLATE.toString();
  assert.ok(
    source.includes(`ARMS = (${ARMS.map((a) => `"${a}"`).join(", ")})`),
    "ARMS tuple = lib/guard/ledger/ledger.ts ARMS",
  );
  const asset = HARNESSES[0].files.find((f) => "asset" in f.from)!.to;
  assert.ok(source.includes(`Path(__file__).with_name("${asset}")`));
});

py("the bundle's own settings subcommand prints settingsJson bytes for the container paths", async () => {
  const bundle = await testBundle();
  const base = { ledgerDir: "/logs/agent/fiable", guard: "/installed-agent/fiable-guard.cjs", port: 8787 };
  for (const mode of ["http", "command"] as const) {
    for (const arm of ["stock", "critic"] as const) {
      for (const servers of [[], ["chi-bench-provider", "chi-bench-payer"]]) {
        const run = spawnSync("node", [
          bundle,
          "settings",
          "--mode",
          mode,
          "--arm",
          arm,
          "--ledger",
          base.ledgerDir,
          "--port",
          String(base.port),
          "--guard",
          base.guard,
          ...servers.flatMap((name) => ["--server", name]),
        ], { encoding: "utf8" });
        const expected = settingsJson({ mode, arm, ...base, ...(servers.length ? { servers } : {}) });
        assert.is(run.stdout, expected, `${mode} ${arm} ${servers}`);
      }
    }
  }
});

py.run();

// ---------------------------------------------------------------------------------------------------------
const ex = suite("install: experiments");

/** chi-bench's ExperimentConfig (src/chi_bench/experiment/config.py), strict so a misspelt key fails. */
const ExperimentConfig = z.strictObject({
  dataset: z.string(),
  agent: z.string().optional(),
  model: z.string().nullable().optional(),
  provider_agent: z.string().nullable().optional(),
  provider_model: z.string().nullable().optional(),
  payer_agent: z.string().nullable().optional(),
  payer_model: z.string().nullable().optional(),
  concurrency: z.number().int().optional(),
  n_attempts: z.number().int().min(1).optional(),
  trials_dir: z.string().nullable().optional(),
  job_name: z.string().nullable().optional(),
  env_file: z.string().optional(),
  registry_path: z.string().nullable().optional(),
  environment: z.enum(["docker", "modal"]).optional(),
  modal: z.strictObject({
    profile: z.string().optional(),
    sandbox_timeout_secs: z.number().int().optional(),
    force_build: z.boolean().nullable().optional(),
  }).optional(),
  timeout_multiplier: z.number().nullable().optional(),
  agent_timeout_multiplier: z.number().nullable().optional(),
  verifier_timeout_multiplier: z.number().nullable().optional(),
  agent_setup_timeout_multiplier: z.number().nullable().optional(),
  environment_build_timeout_multiplier: z.number().nullable().optional(),
  max_retries: z.number().int().min(0).nullable().optional(),
  retry_include: z.array(z.string()).optional(),
  retry_exclude: z.array(z.string()).optional(),
  include_task_name: z.array(z.string()).optional(),
  exclude_task_name: z.array(z.string()).optional(),
  n_tasks: z.number().int().min(1).nullable().optional(),
  agent_kwargs: z.record(z.string(), z.string()).optional(),
  verifier_env: z.record(z.string(), z.string()).optional(),
  tool_mode: z.string().optional(),
  skill_ablation: z.array(z.string()).optional(),
});
type ExperimentConfig = z.infer<typeof ExperimentConfig>;

function configs(dir: string, under = EXPERIMENTS_DIR): Map<string, ExperimentConfig> {
  const out = new Map<string, ExperimentConfig>();
  for (const name of readdirSync(join(dir, under)).filter((n) => n.endsWith(".yaml")).sort()) {
    out.set(name, ExperimentConfig.parse(parse(text(dir, `${under}/${name}`))));
  }
  return out;
}

ex(
  "default: stock, plan, checklist, critic × pa_provider, pa_um, cm, 3 attempts, one trials_dir per arm",
  async () => {
    const dir = await installed();
    const run = await cli([
      "experiments",
      "--chi-bench",
      dir,
      "--model",
      "anthropic/claude-sonnet-5",
      "--apply",
    ]);
    assert.is(run.code, 0, run.err);
    const all = configs(dir);
    const arms = ["stock", "plan", "checklist", "critic"];
    assert.equal(
      [...all.keys()],
      Object.keys(DOMAINS).flatMap((d) => arms.map((a) => `${a}_${d}.yaml`)).sort(),
    );
    const trialsDirs = new Set<string>();
    for (const [name, c] of all) {
      const [arm, ...rest] = name.replace(/\.yaml$/, "").split("_");
      const domain = rest.join("_") as keyof typeof DOMAINS;
      assert.is(c.agent, "fiable-cc");
      assert.is(c.model, "anthropic/claude-sonnet-5");
      assert.is(c.n_attempts, 3);
      assert.equal(c.agent_kwargs, { arm, version: PINNED_CLAUDE_CODE });
      assert.is(c.dataset, `data/${DOMAINS[domain]}/tasks`);
      assert.is(c.registry_path, `data/${DOMAINS[domain]}/registry.json`);
      assert.is(c.trials_dir, `logs/experiments/fiable/${arm}/${domain}`);
      trialsDirs.add(c.trials_dir!);
    }
    assert.is(trialsDirs.size, all.size, "every arm × domain has its own trials_dir");
    const shared = (c: ExperimentConfig) =>
      JSON.stringify([
        c.model,
        c.concurrency,
        c.n_attempts,
        c.max_retries,
        c.agent_timeout_multiplier,
        c.timeout_multiplier,
        c.environment,
      ]);
    assert.is(
      new Set([...all.values()].map(shared)).size,
      1,
      "same model, timeouts and concurrency in every arm",
    );
    assert.ok(
      text(dir, `${EXPERIMENTS_DIR}/README.md`).includes(
        "--arm critic=<chi-bench>/logs/experiments/fiable/critic --protocol",
      ),
    );
  },
);

ex("--shadow adds the shadow arm; a rerun with the same flags changes nothing", async () => {
  const dir = await installed();
  assert.is((await cli(["experiments", "--chi-bench", dir, "--shadow", "--apply"])).code, 0);
  const all = configs(dir);
  assert.is(all.size, 15);
  assert.equal(all.get("shadow_cm.yaml")!.agent_kwargs, { arm: "shadow", version: PINNED_CLAUDE_CODE });
  assert.is(all.get("critic_pa_um.yaml")!.model, "anthropic/claude-opus-5");
  const before = snapshot(dir);
  const again = await cli(["experiments", "--chi-bench", dir, "--shadow", "--apply"]);
  assert.ok(again.out.includes("\nNothing to change"), again.out);
  assert.equal(snapshot(dir), before);
});

ex("--arm picks arms, --claude-version pins the CLI in every arm", async () => {
  const dir = await installed();
  const run = await cli([
    "experiments",
    "--chi-bench",
    dir,
    "--arm",
    "stock,critic",
    "--claude-version",
    "2.1.219",
    "--apply",
  ]);
  assert.is(run.code, 0, run.err);
  const all = configs(dir);
  assert.equal([...all.keys()].map((n) => n.split("_")[0]).sort(), [
    "critic",
    "critic",
    "critic",
    "stock",
    "stock",
    "stock",
  ]);
  for (const c of all.values()) assert.is(c.agent_kwargs!.version, "2.1.219");
});

ex(
  "--apply refuses a checkout where fiable-cc is not registered: one line naming the command that registers it",
  async () => {
    const dir = fixture();
    const before = snapshot(dir);
    const dry = await cli(["experiments", "--chi-bench", dir, "--arm", "stock"]);
    assert.is(dry.code, 0, dry.err);
    assert.ok(
      dry.out.includes(
        `Note: fiable-cc is not in ${REGISTRY} yet; --apply refuses until you run deno task install --chi-bench ${dir} --apply.`,
      ),
      dry.out,
    );
    const run = await cli(["experiments", "--chi-bench", dir, "--arm", "stock", "--apply"]);
    assert.is(run.code, 2, run.out);
    assert.is(
      run.err,
      `Cannot write experiments into ${dir}: fiable-cc is not registered in ${REGISTRY}, so every arm would fail ` +
        `to start. Run deno task install --chi-bench ${dir} --apply first, then this command again.`,
    );
    assert.is(run.out, "");
    assert.equal(snapshot(dir), before);
    assert.is((await cli(["--chi-bench", dir, "--bundle", FAKE_BUNDLE, "--apply"])).code, 0);
    assert.is((await cli(["experiments", "--chi-bench", dir, "--arm", "stock", "--apply"])).code, 0);
  },
);

ex("a dry run prints the cost estimate and every file it would write, and writes nothing", async () => {
  const dir = fixture();
  const before = snapshot(dir);
  const run = await cli(["experiments", "--chi-bench", dir]);
  assert.is(run.code, 0, run.err);
  assert.equal(snapshot(dir), before);
  const lines = run.out.split("\n");
  assert.match(
    lines[0],
    /^Cost estimate, before anything runs: anthropic\/claude-opus-5 at \$5\/\$25\/\$0\.5/,
  );
  assert.match(
    run.out,
    /reference's tokens: mean token use per trial in actava-ai\/leaderboard submissions\/2026-07-06-sonnet-5/,
  );
  assert.match(run.out, /smoke: 12 trials \(4 arms × 3 domains × 1 task × 1 attempt\) ≈ \$\d+/);
  assert.match(run.out, /full: {2}900 trials \(4 arms × 75 tasks × 3 attempts\) ≈ \$[\d,]+/);
  for (
    const path of [`${SMOKE_DIR}/stock_pa_provider.yaml`, RUN_SCRIPT, `${EXPERIMENTS_DIR}/critic_cm.yaml`]
  ) {
    assert.match(run.out, new RegExp(`create +${path.replaceAll(".", "\\.")} `));
  }
  assert.ok(run.out.includes("Dry run: nothing written. Run again with --apply"), run.out);
  assert.ok(
    lines.findIndex((l) => l.startsWith("Cost estimate")) < lines.findIndex((l) => l.includes("create")),
  );
});

ex(
  "an unpriced model's cost is unknown, never $0; --reference takes a packet id or a trial dir",
  async () => {
    const dir = fixture();
    const unpriced = await cli(["experiments", "--chi-bench", dir, "--model", "acme/mystery-1"]);
    assert.match(unpriced.out, /^Cost estimate: unknown\. acme\/mystery-1 has no price in .*It is not \$0\./);
    assert.not.match(unpriced.out, /\$0\b(?!\.)/);
    const named = await cli(["experiments", "--chi-bench", dir, "--reference", "2026-05-28-claude-opus-4-8"]);
    assert.match(
      named.out,
      /basis, the reference's tokens: .*submissions\/2026-05-28-claude-opus-4-8 \(recipe B\) at anthropic\/claude-opus-5's prices, because --reference names it/,
    );
    const trials = tempDir("fiable-ref-");
    writeArm(
      [{ task: "cm_a", domain: "cm", tokens: { input: 2_000_000, cache: 1_000_000, output: 40_000 } }],
      trials,
    );
    const local = await cli(["experiments", "--chi-bench", dir, "--reference", trials]);
    assert.match(local.out, /per trial: pa_provider unknown, pa_um unknown, cm \$6\.50/);
    assert.match(
      local.out,
      /full: {2}900 trials .* ≈ unknown \(the published rate: \$4,311\)/,
    );
    const bad = await cli(["experiments", "--chi-bench", dir, "--reference", "no-such-packet"]);
    assert.is(bad.code, 2);
    assert.match(bad.err, /^Cannot estimate the cost: --reference "no-such-packet" is neither a packet/);
  },
);

ex(
  "smoke slices: one task, one attempt, their own trials dir and job, everything else as the ablation",
  async () => {
    const dir = await installed();
    assert.is((await cli(["experiments", "--chi-bench", dir, "--apply"])).code, 0);
    const full = configs(dir);
    const smoke = configs(dir, SMOKE_DIR);
    assert.equal([...smoke.keys()], [...full.keys()]);
    for (const [name, c] of smoke) {
      const f = full.get(name)!;
      assert.equal([c.n_attempts, c.n_tasks], [1, 1]);
      assert.is(
        c.trials_dir,
        f.trials_dir!.replace("logs/experiments/fiable/", "logs/experiments/fiable-smoke/"),
      );
      assert.is(c.job_name, f.job_name!.replace("fiable-", "fiable-smoke-"));
      const same = (x: ExperimentConfig) => ({
        ...x,
        n_attempts: 0,
        n_tasks: 0,
        trials_dir: "",
        job_name: "",
      });
      assert.equal(same(c), same(f), name);
    }
  },
);

ex(
  "the pilot: stock and critic on every provider task, 1 attempt (--pilot-attempts N), its own trials dirs",
  async () => {
    const dir = await installed();
    const run = await cli(["experiments", "--chi-bench", dir, "--pilot-attempts", "2", "--apply"]);
    assert.is(run.code, 0, run.err);
    const pilot = configs(dir, PILOT_DIR);
    assert.equal([...pilot.keys()], ["critic_pa_provider.yaml", "stock_pa_provider.yaml"]);
    const full = configs(dir);
    for (const [name, c] of pilot) {
      const f = full.get(name)!;
      assert.equal([c.n_attempts, c.n_tasks], [2, undefined], name);
      assert.is(
        c.trials_dir,
        f.trials_dir!.replace("logs/experiments/fiable/", "logs/experiments/fiable-pilot/"),
      );
      assert.is(c.job_name, f.job_name!.replace("fiable-", "fiable-pilot-"));
      const same = (x: ExperimentConfig) => ({ ...x, n_attempts: 0, trials_dir: "", job_name: "" });
      assert.equal(same(c), same(f), name);
    }
    const one = await installed();
    assert.is((await cli(["experiments", "--chi-bench", one, "--apply"])).code, 0);
    assert.ok([...configs(one, PILOT_DIR).values()].every((c) => c.n_attempts === 1));
    const bad = await cli(["experiments", "--chi-bench", one, "--pilot-attempts", "0"]);
    assert.is(bad.code, 2);
    assert.match(bad.err, /--pilot-attempts "0" is not a positive whole number/);
  },
);

ex(
  "on the real-shaped checkout: per-domain costs (the pilot at the provider rate), the first command's total, " +
    "the pin and the prediction with its source packets",
  async () => {
    const tasks = { prior_auth_provider: 25, prior_auth_um: 25, care_management: 25 };
    const run = await cli(["experiments", "--chi-bench", fixture({ data: { tasks } })]);
    assert.is(run.code, 0, run.err);
    const lines = run.out.split("\n");
    assert.match(
      lines[1],
      /^ {2}basis, the published rate: the mean cost per trial the 2026-07-24-opus-5-claude-code packet publishes per domain .*; per trial: pa_provider \$3\.45, pa_um \$4\.37, cm \$6\.56\.$/,
    );
    assert.match(
      lines[2],
      /^ {2}beside it, the reference's tokens: .*2026-07-06-sonnet-5-claude-code.*per trial: pa_provider \$2\.84, pa_um \$3\.51, cm \$4\.26\.$/,
    );
    const stage = (name: string) => lines.find((l) => l.startsWith(`  ${name}`))!;
    // The opus-5 packet's published provider rate, $3.45 per trial, prices the 50 pilot trials: $172, not $240.
    assert.match(
      stage("smoke:"),
      /^ {2}smoke: 12 trials \(4 arms × 3 domains × 1 task × 1 attempt\) ≈ \$57 \(the reference's tokens: \$42\)$/,
    );
    assert.match(
      stage("pilot:"),
      /^ {2}pilot: 50 trials \(stock vs critic × 25 pa_provider tasks × 1 attempt\) ≈ \$172 \(the reference's tokens: \$142\)$/,
    );
    assert.match(
      stage("run.sh pilot"),
      /62 trials ≈ \$230 \(the reference's tokens: \$185\) in all, the first spend\.$/,
    );
    assert.match(stage("full:"), /900 trials \(4 arms × 75 tasks × 3 attempts\) ≈ \$4,311 /);
    assert.not.match(run.out, /tasks assumed/);
    const text = run.out.replaceAll("\n", " ");
    assert.match(
      text,
      new RegExp(`Every arm installs Claude Code ${PINNED_CLAUDE_CODE.replaceAll(".", "\\.")} \\(the newest`),
    );
    assert.match(text, /What replay predicts for the pilot \(data\/pilot_prediction\.json, /);
    for (const id of ["2026-05-28-claude-opus-4-8", "2026-07-06-sonnet-5-claude-code"]) {
      assert.match(
        text,
        new RegExp(`${id} \\(anthropic/[\\w-]+, 25 provider trials\\): in \\d+ of its \\d+ failed trials`),
      );
    }
    assert.match(
      text,
      /says go with 80% probability only when the full guard adds about \+\d+ to \+\d+ provider/,
    );
  },
);

ex("refuses outside a chi-bench checkout like install does", async () => {
  const run = await cli(["experiments", "--chi-bench", fixture({ harbor: "0.21.0" })]);
  assert.is(run.code, 2);
  assert.ok(run.err.includes("pins harbor 0.21.0"), run.err);
});

ex.after(cleanup);

ex.run();

// ---------------------------------------------------------------------------------------------------------
const sub = suite("install: submission");
const SUB_DIRS: string[] = [];

/** An installed fixture checkout with a pinned dataset version and a git user. */
async function submissionCheckout(version = "chi-bench-v1.0.0"): Promise<string> {
  // installed() brings its own stand-in bundle (the experiments suite's cleanup took FAKE_BUNDLE).
  const dir = await installed();
  SUB_DIRS.push(dir);
  mkdirSync(join(dir, "data"), { recursive: true });
  if (version) writeFileSync(join(dir, "data", ".chi-bench-version"), `${version}\n`);
  return dir;
}

const SUB_ARGS = (dir: string) => ["submission", "--chi-bench", dir, "--arm", "critic", "--id", "acme-lab"];

sub("writes a submission chi-bench's own SubmissionConfig accepts; --uninstall removes it", async () => {
  const dir = await submissionCheckout();
  const before = snapshot(dir);
  const dry = await cli([...SUB_ARGS(dir), "--contact", "team@acme.test"]);
  assert.is(dry.code, 0, dry.err);
  assert.match(dry.out, "Would write the submission acme-lab-fiable-cc-critic");
  assert.equal(snapshot(dir), before, "a dry run writes nothing");
  const py = chiBenchPython();
  const python = "python" in py ? ["--python", py.python] : [];
  if (!("python" in py)) console.warn(`  (chi-bench's SubmissionConfig not run: ${py.why})`);
  const run = await cli([
    ...SUB_ARGS(dir),
    "--contact",
    "team@acme.test",
    "--claude-version",
    "2.1.219",
    ...python,
    "--apply",
  ]);
  assert.is(run.code, 0, run.err);
  const path = "configs/submissions/acme-lab-fiable-cc-critic.yaml";
  assert.match(
    run.out,
    `FIABLE_CC_ARM=critic FIABLE_CC_CLAUDE_VERSION=2.1.219 uv run cb submission run -f ${path}`,
  );
  const yaml = parse(text(dir, path));
  assert.equal(yaml.submission.agent, "fiable-cc");
  assert.equal([yaml.run.n_attempts, yaml.dataset.version, yaml.dataset.domains], [1, "chi-bench-v1.0.0", [
    "pa_provider",
    "pa_um",
    "cm",
  ]]);
  assert.is(declaredArm(yaml.submission.notes), "critic");
  assert.match(yaml.submission.notes, "Claude Code 2.1.219");
  assert.match(yaml.submission.notes, "zero model calls");
  if ("python" in py) {
    // chi-bench's own schema, run on the written file: the model it builds is the YAML's.
    const check = spawnSync(py.python, [
      "-c",
      "import json, sys\nfrom chi_bench.experiment.submission import SubmissionConfig\n" +
      "c = SubmissionConfig.from_yaml(sys.argv[1])\n" +
      "print(json.dumps([c.submission.id, c.submission.agent, c.run.n_attempts, c.dataset.domains, str(c.paths.output_root)]))",
      join(dir, path),
    ], { encoding: "utf8" });
    assert.is(check.status, 0, check.stderr);
    assert.equal(JSON.parse(check.stdout), [
      "acme-lab-fiable-cc-critic",
      "fiable-cc",
      1,
      ["pa_provider", "pa_um", "cm"],
      "logs/submissions/acme-lab-fiable-cc-critic",
    ]);
    assert.match(run.out, "Validated with chi-bench's SubmissionConfig");
  }
  assert.is(
    (await cli([...SUB_ARGS(dir), "--contact", "team@acme.test", "--claude-version", "2.1.219", "--apply"]))
      .out.split("\n")[0],
    `Nothing to change: ${join(dir, path)} is current.`,
  );
  assert.is((await cli(["--chi-bench", dir, "--uninstall"])).code, 0);
  assert.not.ok(existsSync(join(dir, path)), "uninstall removes the submission");
});

sub("a YAML that cannot be validated with chi-bench's SubmissionConfig is not written", async () => {
  // A Python without chi-bench's submission module (the fixture's src has none): validation fails, nothing written.
  const dir = await submissionCheckout();
  const run = await cli([...SUB_ARGS(dir), "--contact", "a@b.test", "--python", "python3", "--apply"]);
  assert.is(run.code, 2, run.out);
  assert.match(
    run.err,
    /validating it with chi-bench's SubmissionConfig failed \(.*No module named/,
    run.err,
  );
  assert.not.ok(existsSync(join(dir, "configs", "submissions")), run.err);
});

const SUB_REFUSALS: [string, string[], string][] = [
  [
    "no arm",
    ["--arm", "critc"],
    'Cannot write the submission: --arm "critc" is unknown. Use one of stock, shadow',
  ],
  [
    "an id that is no slug",
    ["--id", "Acme Lab"],
    'Cannot write the submission: --id "Acme Lab" is not a slug.',
  ],
  [
    "more than 10 attempts",
    ["--attempts", "11"],
    'Cannot write the submission: --attempts "11" is not 1 to 10.',
  ],
  ["a model without vendor", ["--model", "opus"], '--model "opus" has no provider prefix'],
  ["a blank dataset version", ["--dataset-version", " "], "--dataset-version is blank"],
];
for (const [name, extra, says] of SUB_REFUSALS) {
  sub(`refuses ${name}, writing nothing`, async () => {
    const dir = await submissionCheckout();
    const args = [...SUB_ARGS(dir), "--contact", "a@b.test"];
    for (let i = 0; i < extra.length; i += 2) {
      const at = args.indexOf(extra[i]);
      if (at >= 0) args[at + 1] = extra[i + 1];
      else args.push(extra[i], extra[i + 1]);
    }
    const run = await cli([...args, "--apply"]);
    assert.is(run.code, 2, run.out);
    assert.match(run.err, says);
    assert.not.ok(existsSync(join(dir, "configs", "submissions")));
  });
}

sub("refuses without a dataset version or a contact, saying how to get each", async () => {
  const dir = await submissionCheckout("");
  const noVersion = await cli([...SUB_ARGS(dir), "--contact", "a@b.test"]);
  assert.is(noVersion.code, 2);
  assert.match(noVersion.err, "data/.chi-bench-version is missing or empty");
  // No git user anywhere: not in the checkout, nor in a global or system config.
  const empty = join(dir, "empty.gitconfig");
  writeFileSync(empty, "");
  Deno.env.set("GIT_CONFIG_GLOBAL", empty);
  Deno.env.set("GIT_CONFIG_NOSYSTEM", "1");
  const noContact = await cli([...SUB_ARGS(dir), "--dataset-version", "chi-bench-v1.0.0"]).finally(() => {
    Deno.env.delete("GIT_CONFIG_GLOBAL");
    Deno.env.delete("GIT_CONFIG_NOSYSTEM");
  });
  assert.is(noContact.code, 2);
  assert.match(noContact.err, "--contact is missing");
});

sub.after(() => {
  for (const dir of SUB_DIRS) rmSync(dir, { recursive: true, force: true });
});

sub.run();
