/**
 * Two trials side by side (dashboard/pages/compare/: align.ts, model.ts and its route): the alignment
 * as table rows (identical, one insertion, divergence at the first call, empty trials, case calls before
 * harness-local ones, a middle too long to align), the refusals with their statuses, the pair a Matrix cell
 * picks, and the page through `app.request` on the sample trials with a replay overlay and on two real
 * leaderboard packets.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  argumentDiff,
  checkPairs,
  compareProblem,
  flatArgs,
  isCaseStep,
  pickPair,
  stepKey,
  stepsOf,
  type TrialStep,
} from "../dashboard/pages/compare/model.ts";
import { align } from "../dashboard/pages/compare/align.ts";
import type { CallItem, Item } from "../dashboard/read/transcript.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { createApp } from "../dashboard/app.tsx";
import { writeBigLedgerTrial, writeFixture } from "./support/dashboard_fixture.ts";
import { SMALL_LEDGER_BYTES } from "../dashboard/read/ledgers.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";

/** An alignment of two call strings ("abc"), one letter a call, as `a/b` pairs with `-` for a gap. */
function aligned(a: string, b: string, maxCells?: number): string {
  const { rows } = align([...a], [...b], (x) => x, { maxCells });
  return rows.map((r) => `${r.a ?? "-"}${r.b ?? "-"}`).join(" ");
}

const s = suite("compare");

const TABLE: [string, string, string, string, number][] = [
  // name, a, b, rows, first divergence
  ["identical", "abcd", "abcd", "aa bb cc dd", -1],
  ["one insertion in b", "abd", "abcd", "aa bb -c dd", 2],
  ["one deletion from b", "abcd", "abd", "aa bb c- dd", 2],
  ["divergence at the first call", "xbc", "ybc", "x- -y bb cc", 0],
  ["both empty", "", "", "", -1],
  ["a empty", "", "ab", "-a -b", 0],
  ["b empty", "ab", "", "a- b-", 0],
  ["a different end", "abcx", "abcy", "aa bb cc x- -y", 3],
  ["a retried call", "abbc", "abc", "aa bb b- cc", 2],
  ["a reordered pair keeps the longer match", "abcd", "acbd", "aa b- cc -b dd", 1],
];

for (const [name, a, b, rows, first] of TABLE) {
  s(`${name}: ${a || "∅"} / ${b || "∅"}`, () => {
    assert.is(aligned(a, b), rows);
    assert.is(align([...a], [...b], (x) => x).first, first);
  });
}

s("a step that counts outweighs any number of others: uppercase here", () => {
  const upper = (x: string) => x === x.toUpperCase();
  const got = align([..."Aab"], [..."abA"], (x) => x, { counts: upper });
  assert.is(got.rows.map((r) => `${r.a ?? "-"}${r.b ?? "-"}`).join(" "), "-a -b AA a- b-");
  assert.is(got.first, -1);
  assert.is(aligned("Aab", "abA"), "A- aa bb -A");
});

s("a middle too long to align exactly is listed a then b, and said so", () => {
  assert.is(aligned("axyb", "ayxb", 4), "aa x- y- -y -x bb");
  assert.is(align([..."axyb"], [..."ayxb"], (x) => x, { maxCells: 4 }).exact, false);
  assert.is(align([..."axyb"], [..."ayxb"], (x) => x).exact, true);
});

s("every call of each side appears once, in order", () => {
  const a = [..."the quick brown fox"], b = [..."a quick brown dog jumps"];
  const { rows } = align(a, b, (x) => x);
  assert.is(rows.filter((r) => r.a !== null).map((r) => r.a).join(""), a.join(""));
  assert.is(rows.filter((r) => r.b !== null).map((r) => r.b).join(""), b.join(""));
  for (const r of rows) if (r.a !== null && r.b !== null) assert.is(r.a, r.b);
});

/** A transcript of one agent step per call, `tool key=value …` each. */
function transcript(...calls: string[]): Item[] {
  return calls.map((text, step) => {
    const [tool, ...args] = text.split(" ");
    const keyArgs = args.map((a) => a.split("=") as [string, string]);
    // A capitalised name is a harness-local tool (Read, Bash): no registered name.
    const registered = /^[a-z]/.test(tool) ? tool : null;
    const call = {
      id: `c${step}`,
      raw: tool,
      tool: registered,
      input: Object.fromEntries(keyArgs),
      keyArgs,
    } as CallItem;
    return { kind: "agent", step, t: null, text: "", reasoning: "", metrics: null, calls: [call] };
  });
}

/** The alignment of two transcripts' steps, as in `aligned`: `=` a match, `a`/`b` one side only. */
function stepRows(a: Item[], b: Item[]): string {
  return align(stepsOf(a), stepsOf(b), stepKey).rows.map((r) => (r.a && r.b ? "=" : r.a ? "a" : "b")).join(
    "",
  );
}

s("ids align by the order they first appear in, other values as they are", () => {
  const mine = transcript("cases.get case_id=CASE-1", "auth.submit case_id=CASE-1 final_action=submit_pa");
  const theirs = transcript("cases.get case_id=CASE-9", "auth.submit case_id=CASE-9 final_action=submit_pa");
  assert.is(stepRows(mine, theirs), "==");
  // Another decision on the same case, or the same call on a second case, is a difference.
  const held = transcript("cases.get case_id=CASE-9", "auth.submit case_id=CASE-9 final_action=hold");
  assert.is(stepRows(mine, held), "=ab");
  const other = transcript("cases.get case_id=CASE-9", "auth.submit case_id=CASE-7 final_action=submit_pa");
  assert.is(stepRows(mine, other), "=ab");
});

s("aligned calls whose other arguments differ are marked, field by field; ids by their order", () => {
  const step = (input: Record<string, unknown>) => {
    const [t] = transcript("auth.finalize case_id=CASE-1");
    const call = (t as { calls: CallItem[] }).calls[0];
    call.input = { case_id: "CASE-1", ...input };
    return stepsOf([t])[0] as Extract<TrialStep, { kind: "call" }>;
  };
  const a = step({ final_action: "hold", override_reason: "criterion 2 unmet", codes: ["M17.11"] });
  const b = step({ final_action: "hold", codes: ["M17.12"], docs: { ids: ["DOC-9"] } });
  assert.is(a.key, b.key, "aligned on tool and key arguments");
  assert.equal(argumentDiff(a.args, b.args), [
    ["codes[0]", "M17.11", "M17.12"],
    ["docs.ids[0]", null, "#2"],
    ["override_reason", "criterion 2 unmet", null],
  ]);
  assert.equal(argumentDiff(a.args, step({ ...Object.fromEntries(a.args), case_id: "CASE-7" }).args), []);
  assert.equal(
    [...flatArgs({ request_ids: ["R-1", "R-2"], n: 3, note: "x".repeat(500) }, (v) => `<${v}>`)],
    [["request_ids[0]", "<R-1>"], ["request_ids[1]", "<R-2>"], ["n", "3"], ["note", "x".repeat(200)]],
  );
});

s("harness-local calls are aligned but never the first divergence", () => {
  const a = transcript("Read file_path=/a", "cases.get case_id=C1", "auth.submit case_id=C1");
  const b = transcript(
    "Bash command=ls",
    "cases.get case_id=C2",
    "Read file_path=/b",
    "auth.hold case_id=C2",
  );
  const got = align(stepsOf(a), stepsOf(b), stepKey, { counts: isCaseStep });
  assert.is(stepRows(a, b), "ab=abb");
  assert.is(got.first, 3);
  assert.is(align(stepsOf(a), stepsOf(b), stepKey).first, 0);
  assert.is(align(stepsOf(a.slice(0, 2)), stepsOf(b.slice(0, 3)), stepKey, { counts: isCaseStep }).first, -1);
});

s("the stop gate's holds are steps, the guard's and a replay's apart; its allows are not", () => {
  const stop = (decision: string, would: boolean): Item => ({
    kind: "record",
    would,
    record: { v: 1, t: "", session: "s", event: "stop", decision } as unknown as LedgerRecord,
  });
  const a = [...transcript("docs.bundle case_id=C1"), stop("block", true), stop("allow", false)];
  const b = [...transcript("docs.bundle case_id=C2"), stop("block", false)];
  assert.equal(stepsOf(a).map((x) => x.kind), ["call", "stop"]);
  assert.is(stepRows(a, b), "=ab");
  assert.is(stepRows(b, b), "==");
});

const T = (id: string, task: string) => ({ id, name: `${task}__${id}`, task });

s("refusals: missing ids, an unknown id (404), the same trial, different tasks", () => {
  const x = T("x1", "task_a"), y = T("y1", "task_a"), z = T("z1", "task_b");
  assert.is(compareProblem({ a: "x1", b: "y1" }, x, y), null);
  const cases: [string, ReturnType<typeof compareProblem>, number, string][] = [
    ["b missing", compareProblem({ a: "x1", b: "" }, x, undefined), 400, "two trial ids are needed"],
    [
      "b unknown",
      compareProblem({ a: "x1", b: "nope" }, x, undefined),
      404,
      'b="nope": no trial has that id',
    ],
    ["a unknown", compareProblem({ a: "nope", b: "y1" }, undefined, y), 404, 'a="nope"'],
    ["the same trial", compareProblem({ a: "x1", b: "x1" }, x, x), 400, "it is the same trial"],
    ["different tasks", compareProblem({ a: "x1", b: "z1" }, x, z), 400, "different tasks (task_a, task_b)"],
  ];
  for (const [name, got, status, text] of cases) {
    assert.ok(got, name);
    assert.is(got!.status, status, name);
    assert.match(got!.message, /^Cannot compare[^:]*: .*\. .*\.$/s, name);
    assert.match(got!.message, text, name);
  }
});

s("a Matrix cell picks a pair whose outcomes differ, else the first of each", () => {
  const rows = [
    { id: "s1", arm: "stock", task: "t", outcome: "passed" },
    { id: "s2", arm: "stock", task: "t", outcome: "failed" },
    { id: "c1", arm: "checklist", task: "t", outcome: "passed" },
    { id: "o1", arm: "checklist", task: "other", outcome: "failed" },
  ];
  assert.equal(pickPair(rows, "t", { arm: "stock", with: "checklist" }), { a: "s2", b: "c1" });
  assert.equal(pickPair(rows, "t", { arm: "stock", with: "stock" }), { a: "s1", b: "s2" });
  assert.match(String(pickPair(rows, "t", { arm: "plan", with: "stock" })), 'arm "plan" has no trial of it');
  assert.match(String(pickPair(rows, "t", { arm: "checklist", with: "checklist" })), "has one trial of it");
});

s("checks: those failed on either side with both verdicts, the rest counted", () => {
  const got = checkPairs(
    [{ id: "x", passed: false }, { id: "y", passed: true }, { id: "z", passed: true }],
    [{ id: "x", passed: true }, { id: "y", passed: true }, { id: "z", passed: false }, {
      id: "w",
      passed: false,
    }],
  );
  assert.equal(got.failed, [
    { id: "x", a: false, b: true },
    { id: "z", a: true, b: false },
    { id: "w", a: null, b: false },
  ]);
  assert.is(got.passedBoth, 1);
});

s.run();

// ---------- the page, through app.request ----------

const p = suite("compare page");
const dir = mkdtempSync(join(tmpdir(), "fiable-compare-"));
const fx = writeFixture(dir);
await replayTrees([join(fx.logs, "stock")], {
  arms: ["checklist"],
  out: join(fx.logs, "replay-out"),
  workers: 1,
});
const { app, store } = createApp({ logs: [fx.logs], results: [] }, {
  scanMs: 0,
  tailMs: 0,
  control: "stock",
  figureWaitMs: 120_000,
});
store.refresh({ scanMs: 0, tailMs: 0 });
const TASK = "pa_t008_t008_o002_p01_new_referral_provider";
const stock = store.rows().find((r) => r.arm === "stock" && r.task === TASK)!;
const checklist = store.rows().find((r) => r.arm === "checklist" && r.task === TASK)!;
const other = store.rows().find((r) => r.task !== TASK && r.source === "trial")!;
p.after(() => rmSync(dir, { recursive: true, force: true }));

async function page(path: string): Promise<{ status: number; html: string; text: string; res: Response }> {
  const res = await app.request(path);
  const html = await res.text();
  const text = html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return { status: res.status, html, text, res };
}

/** The cells of the alignment's rows as `A | B` text, one string a row. */
function alignmentRows(html: string): string[] {
  const body = html.slice(
    html.indexOf('<table id="alignment"'),
    html.indexOf("</table>", html.indexOf('id="alignment"')),
  );
  return [...body.matchAll(/<tr id="row-\d+"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    m[1].replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()
  );
}

p(
  "stock beside checklist on one task: aligned calls, the first divergence, guard and replay decisions",
  async () => {
    const { status, html, text } = await page(`/compare?a=${stock.id}&b=${checklist.id}`);
    assert.is(status, 200);
    const rows = alignmentRows(html);
    // The eight calls up to the submission bundle match; the stock agent then stops, where replaying the
    // checklist over it would have held it at the stop gate, and the checklist's gate did hold its agent.
    assert.is(rows.length, 12, rows.join("\n"));
    assert.match(rows[0], /^1 step 2 chart\.search_patients .* step 2 chart\.search_patients/);
    assert.match(rows[7], /docs\.create_submission_bundle .* docs\.create_submission_bundle/);
    assert.match(rows[8], /replay checklist would have: stop gate block .* —$/);
    assert.match(rows[9], /— stop stop gate block/);
    assert.match(
      rows[10],
      /— step \d+ auth\.finalize_provider_determination case_id = CASE-ACT-001 final_action = submit_pa/,
    );
    assert.match(rows[11], /— step \d+ auth\.submit_authorization/);
    assert.match(html, '<tr id="row-9" class="only-a diverge">');
    assert.match(text, "Their work on the case first parts at row 9, after 8 matching case calls");
    // Both sides' checks, pass and fail.
    assert.match(text, "provider_pre_submission.provider_determination_present failed passed");
    assert.match(text, /\d+ checks passed on both sides/);
    // Without the overlay the stock side has nothing at the stop, and the divergence moves to the real block.
    const none = alignmentRows((await page(`/compare?a=${stock.id}&b=${checklist.id}&replay=none`)).html);
    assert.is(none.length, 11);
    assert.match(none[8], /^9 first divergence — stop stop gate block/);
  },
);

p("a guard's deny shows on its call", async () => {
  const denied = store.rows().find((r) =>
    r.arm === "checklist" && r.rules.length &&
    store.records(r).some((x) => x.event === "pre" && x.decision === "deny")
  );
  assert.ok(denied, "the sample trials hold a checklist trial with a denied call");
  const peer = store.rows().find((r) => r.task === denied!.task && r.id !== denied!.id)!;
  const { status, html } = await page(`/compare?a=${peer.id}&b=${denied!.id}`);
  assert.is(status, 200);
  assert.match(html, /data-who="guard">[\s\S]*?badge d-deny/);
});

p("two copies of one trial: every call matches, no divergence", async () => {
  const copy = join(fx.logs, "again", "pa_provider", stock.name);
  cpSync(stock.trialDir!, copy, { recursive: true });
  store.refresh({ scanMs: 0, tailMs: 0 });
  const twin = store.rows().find((r) => r.trialDir === copy)!;
  const { status, html, text } = await page(`/compare?a=${stock.id}&b=${twin.id}&replay=none`);
  assert.is(status, 200);
  assert.ok(alignmentRows(html).every((r) => !r.includes("—")), "no gap");
  assert.match(text, "The two trials made the same calls, in the same order.");
  assert.not.match(html, "first divergence");
});

p("bad and mismatched ids: a clear message and a 4xx", async () => {
  const cases: [string, number, string][] = [
    [`/compare?a=${stock.id}`, 400, "Cannot compare: two trial ids are needed"],
    [
      `/compare?a=${stock.id}&b=ffffffffffffff`,
      404,
      'Cannot compare b="ffffffffffffff": no trial has that id',
    ],
    [`/compare?a=${stock.id}&b=${stock.id}`, 400, "it is the same trial"],
    [`/compare?a=${stock.id}&b=${other.id}`, 400, "they ran different tasks"],
    [`/compare?task=${TASK}&arm=plan&with=stock`, 404, 'arm "plan" has no trial of it'],
    [`/compare?a=${encodeURIComponent("<script>x</script>")}&b=1`, 404, "no trial has that id"],
  ];
  for (const [path, status, message] of cases) {
    const got = await page(path);
    assert.is(got.status, status, path);
    assert.match(got.text, message, path);
    assert.not.match(got.html, "<script>x", path);
  }
});

p(
  "entry points: the Trial page lists the task's other trials; a Matrix cell redirects to a pair",
  async () => {
    const trial = await page(`/trials/${stock.id}`);
    assert.match(trial.html, `href="/compare?a=${stock.id}&amp;b=${checklist.id}"`);
    const matrix = await page("/matrix");
    const href = `/compare?task=${TASK}&amp;arm=stock&amp;with=checklist`;
    assert.match(matrix.html, href);
    const go = await app.request(href.replaceAll("&amp;", "&"));
    assert.is(go.status, 302);
    assert.is(go.headers.get("location"), `/compare?a=${stock.id}&b=${checklist.id}`);
  },
);

p("a ledger too big to merge: its calls are aligned from the trajectory and the page says so", async () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-compare-big-"));
  try {
    const { dir: trial } = writeBigLedgerTrial(root, Math.ceil(SMALL_LEDGER_BYTES / 200) + 2000);
    const plain = join(root, "stock", "cm", "cm_big_ledger_001__Plain01");
    cpSync(trial, plain, { recursive: true });
    rmSync(join(plain, "agent", "fiable"), { recursive: true });
    const big = createApp({ logs: [root], results: [] }, { scanMs: 0, tailMs: 0 });
    big.store.refresh({ scanMs: 0, tailMs: 0 });
    while (big.store.pump(8 << 20, 1000));
    const [x, y] = [trial, plain].map((d) => big.store.rows().find((r) => r.trialDir === d)!.id);
    const res = await big.app.request(`/compare?a=${x}&b=${y}`);
    const text = (await res.text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").replaceAll("&#39;", "'");
    assert.is(res.status, 200);
    assert.match(
      text,
      /A's guard ledger is \d+\.\d MB, too big to merge: its calls are shown without the guard's/,
    );
    assert.not.match(text, "B's guard ledger");
    assert.match(text, "The two trials made the same calls, in the same order.");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

p(
  "real packets: two Claude Code runs of each task, the divergence on a case call, harness-local calls hideable",
  async () => {
    const packets = ["2026-05-28-claude-opus-4-8", "2026-07-06-sonnet-5-claude-code"]
      .map((n) => join(import.meta.dirname ?? ".", "..", "..", "shared", "leaderboard", n));
    if (!packets.every((d) => existsSync(d))) {
      console.log(`  (skipped: the leaderboard packets are not in ../shared)`);
      return;
    }
    const real = createApp({ logs: packets, results: [] }, { scanMs: 0, tailMs: 0 });
    real.store.refresh({ scanMs: 0, tailMs: 0 });
    const byTask = new Map<string, string[]>();
    for (const r of real.store.rows()) byTask.set(r.task, [...(byTask.get(r.task) ?? []), r.id]);
    const pairs = [...byTask.values()].filter((ids) => ids.length === 2);
    assert.ok(pairs.length >= 20, `${pairs.length} tasks in both packets`);
    for (const [x, y] of pairs) {
      const shown = await (await real.app.request(`/compare?a=${x}&b=${y}`)).text();
      const hidden = await (await real.app.request(`/compare?a=${x}&b=${y}&local=hide`)).text();
      const diverge = /<tr id="row-\d+" class="([^"]*diverge[^"]*)"/.exec(shown)?.[1];
      if (diverge) assert.not.match(diverge, "local", `${x} ${y}: the divergence is a case call`);
      assert.not.match(hidden, /<tr id="row-\d+" class="[^"]*local/, `${x} ${y}: local calls hidden`);
      // Shown, the harness's own calls pull no case call out of line: as many case calls match as when hidden.
      const same = (html: string) =>
        html.match(/<tr id="row-\d+" class="same(?: args-differ)?"/g)?.length ?? 0;
      assert.ok(same(hidden) > 0, `${x} ${y}`);
      assert.is(same(shown), same(hidden), `${x} ${y}`);
    }
  },
);

p.run();
