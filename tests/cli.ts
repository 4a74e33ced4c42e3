/**
 * Every entry point as a new user meets it: `--help` exits 0 and starts `Usage:`, a bad flag exits 2 with
 * one `Cannot …` line naming the valid flags; bad arguments are refused before anything is written; the
 * README's script table is exactly what the help texts say. Plus the parser itself (lib/cli.ts).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { CliError, type CommandSpec, helpText, idRanges, knownItems, parse, runCli } from "../lib/cli.ts";
import {
  ENTRIES,
  entryName,
  MARKERS,
  pooled,
  type Ran,
  runEntry,
  scriptTable,
} from "../scripts/script_table.ts";
import { readmeWithTable } from "../scripts/rule_table.ts";
import { testBundle } from "./support/guard_process.ts";
import { bundleAgent } from "../bundle.ts";
import { fixtureTrials, writeTrials } from "./support/atif_fixture.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const made: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-cli-"));
  made.push(dir);
  return dir;
};

// ---- the parser ----------------------------------------------------------------------------------------
const p = suite("cli parser");

const SPEC: CommandSpec = {
  name: "thing",
  summary: "Does a thing.",
  usage: ["thing [--out DIR] FILE..."],
  options: {
    out: { type: "string", value: "DIR", default: "out", description: "where it goes" },
    tag: { type: "string", value: "T", multiple: true, description: "a tag" },
    logs: { type: "string", value: "DIR", list: true, description: "log dirs" },
    json: { type: "boolean", description: "as JSON" },
    child: { type: "boolean", description: "internal", hidden: true },
  },
  example: "thing --out x a.txt",
};

p("values, defaults, repeats, lists and positionals", () => {
  const r = parse(SPEC, ["a", "--tag", "x", "--tag=y", "--logs", "l1", "l2", "--json", "--", "--b"]);
  assert.equal(
    [r.string("out"), r.strings("tag"), r.strings("logs"), r.flag("json"), r.positionals],
    ["out", ["x", "y"], ["l1", "l2"], true, ["a", "--b"]],
  );
  assert.is(r.given("out"), false);
  assert.is(parse(SPEC, ["--out", "o"]).given("out"), true);
  assert.is(parse(SPEC, ["--child"]).flag("child"), true);
});

const REFUSED: [string[], string][] = [
  [
    ["--bogus"],
    "Cannot run thing: unknown option --bogus. Use one of: --out, --tag, --logs, --json, --help (see --help).",
  ],
  [["--out"], "Cannot run thing: --out needs a value. Use --out DIR."],
  [["--out", "--json"], "Cannot run thing: --out needs a value. Use --out DIR."],
  [["--json=yes"], 'Cannot run thing: --json takes no value (got "yes"). Use --json alone.'],
];
for (const [args, message] of REFUSED) {
  p(
    `refuses ${args.join(" ")}`,
    () =>
      assert.throws(() => parse(SPEC, args), (e: Error) => e instanceof CliError && e.message === message),
  );
}

const RANGES: [string[], string][] = [
  [["GLOBAL-01", "GLOBAL-02", "GLOBAL-03", "PP-01", "PP-03"], "GLOBAL-01…03, PP-01, PP-03"],
  [["UM-09", "UM-10", "UM-11"], "UM-09…11"],
  [["STOP-GATE", "CM-01", "CM-02"], "STOP-GATE, CM-01…02"],
  [[], ""],
];
for (const [ids, shown] of RANGES) {
  p(`idRanges ${ids.join(" ") || "(none)"} → ${shown || '""'}`, () => assert.is(idRanges(ids), shown));
}

const ITEMS: [string[], string[] | string | undefined][] = [
  [[], undefined],
  [["--tag", "a,b"], ["a", "b"]],
  [["--tag", " b , a "], ["b", "a"]],
  [["--tag", "a,NOPE-99"], 'Cannot run thing: --tag "NOPE-99" is unknown. Use one or more of a, b.'],
  [["--tag", ","], 'Cannot run thing: --tag "," is unknown. Use one or more of a, b.'],
];
for (const [args, want] of ITEMS) {
  p(`knownItems ${args.join(" ") || "(absent)"}`, () => {
    const got = () => knownItems(parse(SPEC, args), "tag", ["a", "b"]);
    if (typeof want === "string") {
      assert.throws(got, (e: Error) => e instanceof CliError && e.message === want);
    } else assert.equal(got(), want);
  });
}

p("a negative number is a value, not a flag", () => {
  assert.is(parse(SPEC, ["--out", "-1"]).string("out"), "-1");
});

p("the help: usage first, options with defaults, hidden flags left out, one example", () => {
  const help = helpText(SPEC);
  assert.is(help.split("\n")[0], "Usage: thing [--out DIR] FILE...");
  assert.match(help, /--out DIR +where it goes \(default: out\)/);
  assert.match(help, /--tag T +a tag \(repeatable\)/);
  assert.not.match(help, "--child");
  assert.match(help, /Example:\n {2}thing --out x a\.txt$/);
});

p("runCli: --help exits 0, a CliError is one line and exit 2, other errors propagate", async () => {
  const out: string[] = [], err: string[] = [];
  const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) };
  assert.is(runCli(SPEC, ["--help"], () => 1, io), 0);
  assert.is(runCli(SPEC, ["--bogus"], () => 1, io), 2);
  assert.is(await runCli(SPEC, [], () => Promise.reject(new CliError("Cannot run thing: no.")), io), 2);
  assert.equal(err, [REFUSED[0][1], "Cannot run thing: no."]);
  assert.throws(() =>
    runCli(SPEC, [], () => {
      throw new TypeError("bug");
    }, io), /bug/);
});

p.run();

// ---- every entry point ---------------------------------------------------------------------------------
const e = suite("cli entry points");

const firstLine = (text: string) => text.split("\n")[0];
const helps = new Map<string, Ran>();
const bogus = new Map<string, Ran>();

e.before(async () => {
  const runs = await pooled(ENTRIES, 3, async (entry) => ({
    entry,
    help: await runEntry(entry, ["--help"]),
    bad: await runEntry(entry, ["--bogus"]),
  }));
  for (const r of runs) {
    helps.set(entryName(r.entry), r.help);
    bogus.set(entryName(r.entry), r.bad);
  }
});

for (const entry of ENTRIES) {
  const name = entryName(entry);
  e(`${name} --help: exit 0, Usage, options, an example`, () => {
    const r = helps.get(name)!;
    assert.is(r.code, 0, r.stderr);
    assert.match(firstLine(r.stdout), /^Usage: /);
    assert.match(r.stdout, "\nOptions:\n");
    assert.match(r.stdout, /\nExample:\n {2}\S/);
  });
  e(`${name} --bogus: exit 2, one Cannot line naming the valid flags`, () => {
    const r = bogus.get(name)!;
    assert.is(r.code, 2, r.stdout + r.stderr);
    assert.match(firstLine(r.stderr), /^Cannot run .*: unknown option --bogus\. Use one of: .*--help/);
    assert.is(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
    assert.is(r.stdout, "");
  });
}

e("the README's script table is the help texts' usage and summary", () => {
  const table = scriptTable(
    ENTRIES.filter((x) => x.table !== false).map((x) => helps.get(entryName(x))!.stdout),
  );
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.match(readme, MARKERS.begin);
  assert.ok(
    readme === readmeWithTable(readme, table, MARKERS),
    "README.md's script table is stale: run deno run -A scripts/script_table.ts",
  );
});

e("the guard and agent bundles under node: --help exits 0, --bogus exits 2", async () => {
  const guard = await testBundle();
  const agent = await bundleAgent(join(temp(), "fiable-agent.mjs"));
  for (
    const [bundle, args, code, stream, first] of [
      [guard, ["--help"], 0, "stdout", /^Usage: /],
      [guard, ["--bogus"], 2, "stderr", /^Cannot run guard: unknown option --bogus/],
      [agent, ["--help"], 0, "stdout", /^Usage: /],
      [
        agent,
        ["--bogus"],
        2,
        "stderr",
        /^Cannot run agent: unknown option --bogus\. Use one of: --instruction-file/,
      ],
      [
        guard,
        ["settings", "--mode", "http", "--arm", "checklist"],
        2,
        "stderr",
        /^Cannot run guard settings: --mode http needs/,
      ],
    ] as [string, string[], number, "stdout" | "stderr", RegExp][]
  ) {
    const out = await new Deno.Command("node", { args: [bundle, ...args], stdin: "null" }).output();
    assert.is(out.code, code, args.join(" "));
    assert.match(firstLine(new TextDecoder().decode(out[stream])), first);
  }
});

e.run();

// ---- bad arguments are refused before anything is written ----------------------------------------------
const v = suite("cli refusals");

const entry = (file: string, sub?: string) => ({ file, sub });

v("aggregate /nope: exit 2, one line, no file written", async () => {
  const cwd = temp();
  const r = await runEntry(entry("aggregate.ts"), ["/nope"], cwd);
  assert.is(r.code, 2);
  assert.is(r.stderr.trimEnd(), 'Cannot run aggregate: /nope (arm "nope") does not exist. Use a trial root.');
  assert.equal(readdirSync(cwd), []);
});

v("replay /nope and verify /nope: exit 2, one line, no file written", async () => {
  const cwd = temp();
  for (const file of ["replay.ts", "verify.ts"]) {
    const r = await runEntry(entry(file), ["/nope"], cwd);
    assert.is(r.code, 2, file);
    assert.match(r.stderr, /^Cannot run (replay|verify): \/nope does not exist\. Pass /);
    assert.is(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  }
  assert.equal(readdirSync(cwd), []);
});

v("aggregate with a bad --control, --prices or --recipe writes no --out", async () => {
  const cwd = temp();
  const trials = join(cwd, "stock");
  Deno.mkdirSync(trials);
  for (
    const [args, says] of [
      [["--control", "guarded"], '--control "guarded" is no arm. Use one of stock.'],
      [["--prices", join(cwd, "none.yaml")], "none.yaml does not exist. Use a prices.yaml file."],
      [["--recipe", "Z"], '--recipe "Z" is unknown. Use one of A, B, C.'],
      [["--iters", "many"], '--iters "many" is not a whole number >= 0.'],
      [["--ledgers", `stock=${trials}`], `--ledgers stock=${trials} holds no ledger (*.jsonl)`],
    ] as [string[], string][]
  ) {
    const r = await runEntry(entry("aggregate.ts"), [trials, "--out", join(cwd, "out"), ...args], cwd);
    assert.is(r.code, 2, args.join(" "));
    assert.ok(r.stderr.startsWith("Cannot run aggregate: ") && r.stderr.includes(says), r.stderr);
    assert.equal(readdirSync(cwd), ["stock"]);
  }
});

v("guard.ts settings --mode http without --port: one line, exit 2, no stack trace", async () => {
  const r = await runEntry(entry("guard.ts", "settings"), ["--mode", "http", "--arm", "checklist"]);
  assert.is(r.code, 2);
  assert.is(
    r.stderr.trimEnd(),
    "Cannot run guard settings: --mode http needs the resident guard's port. Use --port N (e.g. --port 8787).",
  );
  assert.is(r.stdout, "");
});

v(
  "guard.ts with an unknown event word still answers {} and exits 0 (a hook never breaks a run)",
  async () => {
    const r = await runEntry(entry("guard.ts"), ["pre-tool"]);
    assert.is(r.code, 0);
    assert.is(r.stdout, "{}\n");
    assert.match(r.stderr, /^fiable-guard: unknown event "pre-tool"; answered \{\}/);
  },
);

v("missing or malformed values are one Cannot line with exit 2", async () => {
  const cases: [string, string | undefined, string[], RegExp][] = [
    ["replay.ts", undefined, [], /^Cannot run replay: no path given\./],
    [
      "replay.ts",
      undefined,
      [".", "--rules", "PP-01,NOPE-99"],
      /^Cannot run replay: --rules "NOPE-99" is unknown\. Use one or more of GLOBAL-01…06, PP-01…07, UM-01…/,
    ],
    ["verify.ts", undefined, [], /^Cannot run verify: no DIR given\./],
    ["dashboard/server.tsx", undefined, ["--logs", "/nope"], /^Cannot run dashboard: \/nope does not exist/],
    ["demo.ts", undefined, ["--port", "http"], /^Cannot run demo: --port "http" is not a port number/],
    [
      "guard.ts",
      "up",
      ["--port", "1", "--arm", "stock"],
      /^Cannot run guard up: --arm "stock" is not a guarded/,
    ],
    ["handbook.ts", "build", [], /^Cannot run handbook build: --ledger is missing/],
    [
      "tests/run.ts",
      undefined,
      ["--only", "no_such_suite"],
      /^Cannot run test: no suite named no_such_suite/,
    ],
  ];
  await pooled(cases, 3, async ([file, sub, args, says]) => {
    const r = await runEntry(entry(file, sub), args);
    assert.is(r.code, 2, `${file} ${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, says);
    assert.is(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  });
});

v(
  "a truncated result.json: replay and aggregate both name it unreadable, with its path, in one line, exit 1",
  async () => {
    const cwd = temp();
    const dirs = writeTrials(
      join(cwd, "stock"),
      fixtureTrials().filter((t) => !t.name.startsWith("cm_broken")),
    );
    const result = join(dirs[0], "result.json");
    writeFileSync(result, readFileSync(result, "utf8").slice(0, 40));
    const line = new RegExp(
      `Cannot read ${
        result.replaceAll("/", "\\/")
      }: it is truncated or not JSON \\(.*\\)\\. Re-run or remove the trial\\.`,
    );
    const replay = await runEntry(
      entry("replay.ts"),
      [join(cwd, "stock"), "--out", join(cwd, "replay")],
      cwd,
    );
    assert.is(replay.code, 1, replay.stderr);
    assert.match(replay.stdout, new RegExp(`arm checklist: ${dirs.length} trials, .* 1 unreadable`));
    assert.match(replay.stdout, new RegExp(`unreadable \\(1\\):\\n  ${line.source}`));
    const aggregate = await runEntry(
      entry("aggregate.ts"),
      [join(cwd, "stock"), "--out", join(cwd, "agg")],
      cwd,
    );
    assert.is(aggregate.code, 1, aggregate.stderr);
    assert.match(aggregate.stderr, new RegExp(`^\\[stock\\] ${line.source}$`, "m"));
    const json = JSON.parse(readFileSync(join(cwd, "agg", "aggregate.json"), "utf8"));
    assert.is(json.rows.find((r: { domain: string }) => r.domain === "overall").n_unreadable, 1);
  },
);

v("replay and aggregate on a pipe: no progress line on stderr", async () => {
  const cwd = temp();
  writeTrials(join(cwd, "stock"), fixtureTrials().filter((t) => !t.name.startsWith("cm_broken")));
  const replay = await runEntry(entry("replay.ts"), [join(cwd, "stock"), "--out", join(cwd, "replay")], cwd);
  assert.is(replay.code, 0, replay.stderr);
  assert.is(replay.stderr, "");
  const aggregate = await runEntry(
    entry("aggregate.ts"),
    [join(cwd, "stock"), "--out", join(cwd, "agg")],
    cwd,
  );
  assert.not.match(aggregate.stderr, /\r|trajectories|ETA/);
});

v("replay on a terminal: one progress line on stderr, redrawn with \\r, ending done", async () => {
  const cwd = temp();
  const n = writeTrials(
    join(cwd, "stock"),
    fixtureTrials().filter((t) => !t.name.startsWith("cm_broken")),
  ).length;
  const command = [Deno.execPath(), "run", "-A", join(ROOT, "replay.ts"), join(cwd, "stock"), "--no-ledgers"]
    .map((a) => `'${a}'`).join(" ");
  // util-linux script(1) runs the command on a pseudo-terminal: stderr is a TTY there.
  const out = await new Deno.Command("script", { args: ["-qec", command, "/dev/null"], cwd, stdin: "null" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  assert.is(out.code, 0, text);
  assert.match(text, `\rreplay: 0/${n} trials · ETA …`);
  assert.match(text, new RegExp(`\\rreplay: ${n}/${n} trials · done in \\d+ s\\x1b\\[K\\r?\\n`));
  assert.match(text, /arm checklist: /);
});

v("the resident guard warns once at start-up about an unknown FIABLE_CC_ARM", async () => {
  const ledger = temp();
  const child = spawn(Deno.execPath(), ["run", "-A", join(ROOT, "guard.ts"), "serve", "--port", "0"], {
    env: {
      ...Deno.env.toObject(),
      FIABLE_CC_ARM: "chekclist",
      FIABLE_LEDGER_DIR: ledger,
      FIABLE_SUPERVISE: "0",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`no warning within 20 s: ${text}`)), 20_000);
    child.stderr!.on("data", (chunk: Uint8Array) => {
      text += new TextDecoder().decode(chunk);
      if (text.includes("\n")) {
        clearTimeout(timer);
        resolve(text.split("\n")[0]);
      }
    });
  });
  child.kill("SIGTERM");
  assert.is(
    line,
    'fiable-guard: unknown FIABLE_CC_ARM "chekclist"; running as shadow (records, blocks nothing). ' +
      "Use one of: stock, shadow, plan, checklist, critic",
  );
});

v("user-facing text points to no file outside the repository", () => {
  for (const r of [...helps.values(), ...bogus.values()]) {
    assert.not.match(r.stdout + r.stderr, /\.md §|\/work\/|shared\/(?!leaderboard)/);
  }
});

v.after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

v.run();
