/**
 * The tree walkers: each caller of lib/walk.ts finds, in one tree built to cross every filter (dot names,
 * `node_modules`, `sessions`, names with a dot, each depth limit, a linked folder, a find inside a find), the
 * files and folders it found with its own walk before they shared one.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findAggregates } from "../dashboard/read/sources/aggregates.ts";
import { LedgerFiles } from "../dashboard/read/sources/ledger_files.ts";
import { findSummaries, foldersWith } from "../dashboard/read/summary.ts";
import { findPackets } from "../lib/results/packet.ts";
import { scanReplay } from "../lib/results/redaction_marks.ts";
import { findTrials, walkTrialDirs, walkTrials } from "../lib/results/trials.ts";
import { WalkCache, walkTree } from "../lib/walk.ts";

const s = suite("walk");
const root = mkdtempSync(join(tmpdir(), "fiable-walk-"));
s.after(() => rmSync(root, { recursive: true, force: true }));

/** A folder `level` levels below the root: `a/b/…` (or another chain of one-letter names). */
const deep = (level: number, names = "abcdefghij") => names.slice(0, level).split("").join("/");

/** The tree: a file per path (its folders made), each name saying what it crosses. */
/** A Harbor trial's config.json, as it writes one when the trial starts. */
const TRIAL_CONFIG = JSON.stringify({ task: { path: "tasks/x" }, trial_name: "x__AbCdEfG" });
const FILES: Record<string, string> = {
  "aggregate.json": '{"rows":[]}',
  [`${deep(1)}/aggregate.json`]: '{"rows":[]}',
  [`${deep(3)}/aggregate.json`]: '{"rows":[]}',
  [`${deep(4)}/aggregate.json`]: '{"rows":[]}',
  "norows/aggregate.json": '{"table":[]}',
  "node_modules/aggregate.json": '{"rows":[]}',
  ".hidden/aggregate.json": '{"rows":[]}',
  "v1.2/aggregate.json": '{"rows":[]}',
  "l0.jsonl": "",
  ".dot.jsonl": "",
  [`${deep(1)}/l1.jsonl`]: "",
  [`${deep(8)}/l8.jsonl`]: "",
  [`${deep(9)}/l9.jsonl`]: "",
  "sessions/s.jsonl": "",
  "node_modules/n.jsonl": "",
  ".hidden/h.jsonl": "",
  "v1.2/v.jsonl": "",
  "skipped/k.jsonl": "",
  "p/results.csv": "",
  "p/decisions.parquet": "",
  "p/q/results.csv": "",
  "p/q/decisions.parquet": "",
  [`${deep(3)}/results.csv`]: "",
  [`${deep(3)}/decisions.parquet`]: "",
  "w/x/y/z/results.csv": "",
  "w/x/y/z/decisions.parquet": "",
  "node_modules/results.csv": "",
  "node_modules/decisions.parquet": "",
  ".hidden/results.csv": "",
  ".hidden/decisions.parquet": "",
  "v1.2/results.csv": "",
  "v1.2/decisions.parquet": "",
  "t/one/config.json": TRIAL_CONFIG,
  "t/two/result.json": "{}",
  [`${deep(9)}/config.json`]: TRIAL_CONFIG,
  [`${deep(10, "klmnopqrst")}/config.json`]: TRIAL_CONFIG,
  "sessions/s1/config.json": TRIAL_CONFIG,
  "setup/config.json": TRIAL_CONFIG,
  "artifacts/config.json": TRIAL_CONFIG,
  ".hidden/t/config.json": TRIAL_CONFIG,
  "v1.2/t/config.json": TRIAL_CONFIG,
};
for (const [path, text] of Object.entries(FILES)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
mkdirSync(join(root, "linked"));
symlinkSync(join(root, "t"), join(root, "linked", "t"));
symlinkSync(join(root, "p"), join(root, "linked", "p"));

/** The folders `a`, `a/b`, … down to `level`. */
const deepPaths = (level: number) => Array.from({ length: level }, (_, i) => join(root, deep(i + 1)));

/** Paths relative to the root, sorted. */
const rel = (paths: Iterable<string>) => [...paths].map((p) => p.slice(root.length + 1) || ".").sort();

const CALLERS: { caller: string; found: () => string[]; expected: string[] }[] = [
  {
    caller: "findAggregates: aggregate.json with rows, 3 levels down, node_modules in, no dotted folder",
    found: () => rel(findAggregates([root]).map((f) => f.path)),
    expected: [
      "a/aggregate.json",
      "a/b/c/aggregate.json",
      "aggregate.json",
      "node_modules/aggregate.json",
    ],
  },
  {
    caller: "LedgerFiles.find: .jsonl 8 levels down, no dot name, node_modules, sessions or skipped folder",
    found: () => {
      const files = new LedgerFiles();
      files.find([root, join(root, "skipped")], new Set([join(root, "skipped")]));
      return rel(files.tails.keys());
    },
    expected: ["a/b/c/d/e/f/g/h/l8.jsonl", "a/l1.jsonl", "l0.jsonl"],
  },
  {
    caller: "findSummaries: folders with decisions.parquet 3 levels down, none below a find, no dotted name",
    found: () => rel(findSummaries([root])),
    expected: ["a/b/c", "linked/p", "p"],
  },
  {
    caller: "foldersWith: any file name, the roots themselves included",
    found: () => rel(foldersWith([join(root, "p"), join(root, "w")], "results.csv")),
    expected: ["p", "w/x/y/z"],
  },
  {
    caller:
      "findPackets: folders with results.csv 3 levels down, dotted names in but not dot names, each once",
    found: () => rel(findPackets([root, join(root, "p")])),
    expected: ["a/b/c", "linked/p", "p", "v1.2"],
  },
  {
    caller: "walkTrials: trial folders 9 levels down, no dot name, sessions, setup or artifacts, each once",
    found: () => rel([...walkTrials([root, join(root, "t")])].map((r) => r.dir)),
    expected: ["a/b/c/d/e/f/g/h/i", "linked/t/one", "linked/t/two", "t/one", "t/two", "v1.2/t"],
  },
];

for (const { caller, found, expected } of CALLERS) {
  s(caller, () => assert.equal(found(), expected));
}

s("walkTree: no root, nothing; depth 0, the root alone; stopped, reads no further", () => {
  const all = { depth: Infinity, file: (name: string) => name.endsWith(".jsonl") };
  assert.equal([...walkTree([join(root, "missing")], all)], []);
  assert.equal(rel(walkTree([root], { ...all, depth: 0 })), [".dot.jsonl", "l0.jsonl"]);
  const read: string[] = [];
  const walk = walkTree([root], {
    ...all,
    skip: (name) => name.startsWith("."),
    folder: (dir) => !read.push(dir),
  });
  assert.equal(rel([walk.next().value!]), ["a/b/c/d/e/f/g/h/i/l9.jsonl"]);
  assert.equal(rel(read), rel([root, ...deepPaths(9)]));
});

s("walkTrials walks in name order, as findTrials sorts", () => {
  assert.equal([...walkTrials([root])].map((r) => r.dir), findTrials([root]).map((r) => r.dir));
});

s("a WalkCache reuses a folder unchanged since it was seen, and reads one that changed", () => {
  const tree = join(root, "cached");
  for (const t of ["arm/t1", "arm/t2"]) {
    mkdirSync(join(tree, t), { recursive: true });
    writeFileSync(join(tree, t, "config.json"), TRIAL_CONFIG);
  }
  const old = new Date(Date.now() - 60_000);
  const age = (dir: string) => utimesSync(dir, old, old);
  for (const d of [tree, join(tree, "arm"), join(tree, "arm/t1"), join(tree, "arm/t2")]) age(d);
  const cache = new WalkCache();
  const found = () => rel([...walkTrialDirs([tree], cache)]);
  assert.equal(found(), ["cached/arm/t1", "cached/arm/t2"]);
  // A new trial whose parent keeps its old modification time: only a fresh listing would find it.
  mkdirSync(join(tree, "arm/t3"));
  writeFileSync(join(tree, "arm/t3/config.json"), TRIAL_CONFIG);
  age(join(tree, "arm"));
  assert.equal(found(), ["cached/arm/t1", "cached/arm/t2"], "the unchanged folder's listing was reused");
  assert.equal(rel(walkTrialDirs([tree])), ["cached/arm/t1", "cached/arm/t2", "cached/arm/t3"]);
  // Touched now, the folder is read again (and, changed too recently to trust, again next time).
  utimesSync(join(tree, "arm"), new Date(), new Date());
  assert.equal(found(), ["cached/arm/t1", "cached/arm/t2", "cached/arm/t3"]);
  rmSync(join(tree, "arm/t2"), { recursive: true });
  assert.equal(found(), ["cached/arm/t1", "cached/arm/t3"], "a folder changed within the racy window");
  assert.is(cache.size, 3, "the root and the two trials; the folder changed just now is not remembered");
});

s("scanReplay: every .jsonl below a packet, any depth, any name (one record each)", () => {
  const out = join(root, "replay");
  const packet = join(out, "critic", "pk");
  const ledgers = [
    "x.jsonl",
    ".d/y.jsonl",
    "sessions/z.jsonl",
    "node_modules/n.jsonl",
    "dir.jsonl/v.jsonl",
    `${deep(10)}/w.jsonl`,
  ];
  for (const path of ledgers) {
    mkdirSync(dirname(join(packet, path)), { recursive: true });
    writeFileSync(join(packet, path), '{"decision":"record"}\n');
  }
  writeFileSync(join(packet, "notes.txt"), '{"decision":"record"}\n');
  assert.equal(scanReplay(out).map((r) => [r.arm, r.packet, r.records]), [[
    "critic",
    "pk",
    ledgers.length,
  ]]);
});

s.run();
