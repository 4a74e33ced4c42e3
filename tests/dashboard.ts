/**
 * The dashboard through `app.request()`: pages and fragments, the one set of figures (aggregate.ts's), replays
 * as overlays never arms, the matrix, the sortable paged table, transcripts for every harness, big ledgers,
 * search, the live view, escaping, path traversal, the Host allow-list and /ingest's streamed size limit.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs, serve } from "../dashboard/server.tsx";
import {
  dashboardCommand,
  DEFAULT_EXPERIMENT,
  experimentFiles,
  RUN_SCRIPT,
} from "../lib/install/experiments.ts";
import { createApp } from "../dashboard/app.tsx";
import { loadPrices } from "../dashboard/read/prices.ts";
import { hostName, isLoopback } from "../lib/guard/resident/access.ts";
import { postLive } from "../lib/guard/ledger/live.ts";
import { armNames, claimOf } from "../dashboard/read/arms.ts";
import { ledgerStats, LedgerTail, PAGE_LINES, SMALL_LEDGER_BYTES } from "../dashboard/read/ledgers.ts";
import { type Row, rowId } from "../dashboard/read/model.ts";
import { armInputs, pickControl, replayCheckCounts, replayFigures } from "../dashboard/read/figures.ts";
import { taskMatrix } from "../dashboard/pages/matrix/model.ts";
import { armVerdict, summarizeChecks, type TrialReplay } from "../lib/trajectories/verdict.ts";
import {
  firesInFailed,
  firesInPassed,
  firesInTime,
  type RuleFires,
  ruleFires,
} from "../dashboard/pages/rules/model.ts";
import { JUDGES } from "../lib/guard/engine/judges/mod.ts";
import { sliceOf } from "../dashboard/pages/live/experiments.ts";
import { filterRows, parseQuery, sortRows, tablePage } from "../dashboard/pages/trials/table.ts";
import { indexTerms, matchChecks, matchRules, queryTerms } from "../dashboard/read/search.ts";
import {
  buildTranscript,
  checkLinks,
  keyArgs,
  ledgerTranscript,
  scriptArgs,
} from "../dashboard/read/transcript.ts";
import { armColor, COLORS, niceTicks, overlaps, placeLabels } from "../dashboard/pages/arms/charts.tsx";
import { attemptLabel, Name } from "../dashboard/ui/format.tsx";
import { aggregateArms } from "../lib/results/aggregate.ts";
import { toMarkdown } from "../lib/results/aggregate_report.ts";
import { findTrials } from "../lib/results/trials.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { parseTrajectory, toolEvents } from "../lib/trajectories/atif.ts";
import { RULES } from "../rules/mod.ts";
import {
  HOSTILE,
  liveRecord,
  PAYLOADS,
  writeAblation,
  writeBigLedgerTrial,
  writeFixture,
  writeStagedRun,
} from "./support/dashboard_fixture.ts";
import { fixtureTrials, writeTrials } from "./support/atif_fixture.ts";
import { KNOWN, writeHandbook } from "./support/handbook_fixture.ts";

const dir = mkdtempSync(join(tmpdir(), "fiable-dash-"));
const fx = writeFixture(dir);
// Replay output under --logs, as a user would leave it: it must never become an arm.
const replayOut = join(fx.logs, "replay-out");
await replayTrees([join(fx.logs, "stock")], { arms: ["checklist", "critic"], out: replayOut, workers: 1 });
const TOKEN = "test-token-0123456789";
const WAIT = { figureWaitMs: 120_000 };
const { app, store } = createApp({ logs: [fx.logs, join(dir, "live")], results: [join(dir, "results")] }, {
  token: TOKEN,
  scanMs: 0,
  tailMs: 0,
  control: "stock",
  ...WAIT,
});
const hx = { headers: { "HX-Request": "true" } };
const RULE_META = RULES.map((r) => r.meta);

async function get(
  path: string,
  init?: RequestInit,
  on = app,
): Promise<{ status: number; text: string; res: Response }> {
  const res = await on.request(path, init);
  return { status: res.status, text: await res.text(), res };
}

function rows(): readonly Row[] {
  store.refresh({ scanMs: 0, tailMs: 0 });
  return store.rows();
}

function rowNamed(name: string): Row {
  const row = rows().find((r) => r.name === name);
  if (!row) throw new Error(`fixture: trial ${name} not found`);
  return row;
}

/** No payload survives unescaped: no live tag or attribute it tried to inject. */
function inert(html: string): void {
  assert.not.match(html, /<script>window/);
  assert.not.match(html, /<img src=x/);
  assert.not.match(html, /<svg onload/);
  assert.not.match(html, /onerror="window/);
  assert.not.match(html, /href="javascript:/);
}

function text(html: string): string {
  return html.replace(/<wbr\/?>/g, "").replace(/<[^>]+>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/\s+/g, " ");
}

function pct(v: number | null): string {
  return v === null ? "—" : `${(v * 100).toFixed(1)}%`;
}

const pages = suite("dashboard pages");

for (
  const [path, marker] of [
    ["/", 'id="arms"'],
    ["/matrix", 'id="matrix"'],
    ["/trials", 'id="trials-rows"'],
    ["/rules", 'id="coverage"'],
    ["/checks", 'id="checks"'],
    ["/live", 'id="live-rows"'],
    ["/search?q=afib", 'id="search-results"'],
    ["/handbook", 'id="handbook-results"'],
  ]
) {
  pages(`${path} renders the full page with Vary: HX-Request and a CSP`, async () => {
    const { status, text, res } = await get(path);
    assert.is(status, 200);
    assert.match(text, "<html");
    assert.match(text, marker);
    assert.match(res.headers.get("vary") ?? "", "HX-Request");
    assert.match(res.headers.get("content-security-policy") ?? "", "script-src 'self'");
  });
}

for (
  const [path, start] of [
    ["/trials", '<div id="trials-view"'],
    ["/live", '<section id="live-now"'],
    ["/search?q=checklist", '<ul id="search-results"'],
    ["/", '<section id="arms-figures"'],
  ]
) {
  pages(`${path} with HX-Request returns only its fragment`, async () => {
    const { status, text } = await get(path, hx);
    assert.is(status, 200);
    assert.ok(text.startsWith(start), text.slice(0, 80));
    assert.not.match(text, "<html");
  });
}

pages("a trial with HX-Request returns only its transcript", async () => {
  const { text } = await get(`/trials/${rows().find((r) => r.trajectory)!.id}`, hx);
  assert.ok(text.startsWith('<ol id="timeline"'), text.slice(0, 80));
});

pages("htmx is served from the npm package, not a CDN", async () => {
  const { status, text, res } = await get("/static/htmx.min.js");
  assert.is(status, 200);
  assert.match(res.headers.get("content-type") ?? "", "javascript");
  assert.match(text, "htmx");
  const page = await get("/");
  assert.match(page.text, '<script src="/static/htmx.min.js">');
  assert.not.match(page.text, /https?:\/\/(unpkg|cdn)/);
});

pages("a history restore gets the full page even with HX-Request", async () => {
  const { text } = await get("/trials", {
    headers: { "HX-Request": "true", "HX-History-Restore-Request": "true" },
  });
  assert.match(text, "<html");
});

pages.run();

const arms = suite("dashboard arms: one set of figures, aggregate.ts's");

arms(
  "every arm's pass@1, CI, cost and Δ are exactly aggregate.ts's, with the cost recipe named",
  async () => {
    const { text: html } = await get("/");
    const table = html.slice(
      html.indexOf('<table id="arms"'),
      html.indexOf("</table>", html.indexOf('id="arms"')),
    );
    const expected = aggregateArms(armInputs(store), { control: "stock", prices: loadPrices().prices });
    const overall = expected.rows.filter((r) => r.domain === "overall");
    assert.is((table.match(/<tr class=/g) ?? []).length, overall.length, "one row per arm");
    for (const r of overall) {
      const tr = text(table.slice(table.indexOf(`>${r.arm}</a>`) + 1));
      const ci = `${pct(r.pass_at_1_ci.value)} [${pct(r.pass_at_1_ci.lo)}, ${pct(r.pass_at_1_ci.hi)}]`;
      assert.ok(tr.startsWith(r.arm), r.arm);
      assert.match(tr.slice(0, 400), ci);
      if (r.mean_cost_usd !== null) assert.match(tr.slice(0, 400), `$${r.mean_cost_usd.toFixed(2)}`);
    }
    for (const tr of table.split("<tr class=").slice(1)) {
      assert.is((text(tr).match(/\d%\s\[/g) ?? []).length, 1, "one pass@1 interval per arm");
    }
    const integrity = text(html.slice(html.indexOf('id="integrity"')));
    for (const r of overall.filter((x) => x.integrity)) {
      const i = r.integrity!;
      const cell = !i.with_ledger && !i.marked
        ? "— (no guard in this arm)"
        : `${i.full_coverage} of ${i.trials}`;
      assert.match(integrity, `${r.arm}${i.marked ? " ⚠ not fully guarded" : ""} ${cell}`);
    }
    assert.ok(
      overall.find((r) => r.arm === "checklist")!.integrity!.full_coverage > 0,
      "samples are guarded",
    );
    const checklist = expected.comparisons.find((c) => c.arm === "checklist" && c.domain === "overall")!;
    assert.match(text(table), `+${(checklist.diff! * 100).toFixed(1)} pts`);
    assert.match(html, "cost / trial (recipe B)");
    assert.match(text(html), "cost per trial is recipe B — uncached input, output and cache-read tokens");
    assert.not.match(html, "harness-reported", "the Arms page shows one cost per arm");
  },
);

arms("--control is honoured: against checklist, stock's difference is the opposite sign", async () => {
  const { app: other } = createApp({ logs: [fx.logs], results: [] }, { control: "checklist", ...WAIT });
  const html = text((await get("/", undefined, other)).text);
  const expected = aggregateArms(armInputs(store), { control: "checklist", prices: loadPrices().prices });
  const stock = expected.comparisons.find((c) => c.arm === "stock" && c.domain === "overall")!;
  assert.ok(stock.diff! < 0);
  assert.match(html, `Δ pass@1 vs checklist`);
  assert.match(html, `${(stock.diff! * 100).toFixed(1)} pts`);
  const { app: bad } = createApp({ logs: [fx.logs], results: [] }, { control: "nosuch", ...WAIT });
  assert.match(text((await get("/", undefined, bad)).text), 'Cannot compare against --control "nosuch"');
  // The Matrix names the unknown arm too, not "no control arm".
  const matrixText = text((await get("/matrix", undefined, bad)).text);
  assert.match(matrixText, 'Cannot compare against --control "nosuch": no such arm here. Use one of');
  assert.not.match(matrixText, "No control arm");
});

arms(
  "replay output under --logs is never an arm: only real arms, would-have-blocked figures apart",
  async () => {
    const html = (await get("/")).text;
    const table = html.slice(
      html.indexOf('<table id="arms"'),
      html.indexOf("</table>", html.indexOf('id="arms"')),
    );
    const names = [...table.matchAll(/<a href="\/trials\?arm=([^"]+)">/g)].map((m) =>
      decodeURIComponent(m[1])
    );
    assert.equal(names.sort(), ["checklist", "hostile", "stock"]);
    assert.not.match(table, "replay");
    assert.match(html, 'id="replay-figures"');
    const replay = html.slice(html.indexOf('id="replay-figures"'));
    assert.match(text(replay), "critic stock");
    assert.match(text(replay), "checklist stock");
    assert.is(rows().filter((r) => r.source === "trial").length, findTrials([fx.logs]).length);
    assert.ok(rows().filter((r) => r.arm === "stock").every((r) => r.replays.length === 2));
  },
);

arms("would-have-blocked figures are replay's own summary of the replayed trials", () => {
  const figures = replayFigures(rows());
  const report = JSON.parse(readFileSync(join(replayOut, "summary.json"), "utf8"));
  for (const arm of ["checklist", "critic"]) {
    const f = figures.find((x) => x.replay === arm && x.arm === "stock")!;
    assert.equal(f.summary, report.summary[arm], arm);
    assert.is(f.withoutVerdict, 0);
  }
  const stock = rows().filter((r) => r.arm === "stock");
  assert.is(figures.find((x) => x.replay === "checklist")!.summary.trials, stock.length);
});

arms(
  "saved aggregate results are listed and shown with the same table; integrity renders when present",
  async () => {
    const results = join(dir, "results", "saved");
    mkdirSync(results, { recursive: true });
    const result = aggregateArms(armInputs(store), { control: "stock", prices: loadPrices().prices });
    const withIntegrity = {
      ...result,
      rows: result.rows.map((r) =>
        r.arm === "checklist" && r.domain === "overall"
          ? {
            ...r,
            integrity: {
              trials: 9,
              with_ledger: 8,
              without_ledger: 1,
              full_coverage: 7,
              below_coverage: 2,
              coverage_min: 0.5,
              hook_modes: { http: 7, command: 1 },
              fail_open_errors: 3,
              tool_calls: 120,
              errors_per_100_calls: 2.5,
              errors_flag: true,
              gaps: 1,
              restarts: 2,
              plan_injected: 9,
              stop_blocks: 3,
              marked: true,
              problems: ["2 trials below full coverage"],
            },
          }
          : r
      ),
    };
    writeFileSync(join(results, "aggregate.json"), JSON.stringify(withIntegrity));
    const home = (await get("/")).text;
    const link = /href="(\/aggregate\/[0-9a-f]+)"/.exec(home)?.[1];
    assert.ok(link, "the saved aggregate is listed");
    const page = text((await get(link!)).text);
    assert.match(page, "Run integrity");
    assert.match(page, "⚠ not fully guarded");
    assert.match(page, "7 of 9");
    assert.match(page, "http 7 · command 1");
    assert.match(page, "⚠ above 1 per 100");
    assert.match(page, "2 trials below full coverage");
    writeFileSync(join(results, "aggregate.json"), JSON.stringify({ rows: [{ arm: 1 }] }));
    const broken = /href="(\/aggregate\/[0-9a-f]+)"/.exec((await get("/")).text)![1];
    assert.match((await get(broken)).text, "Cannot show");
    rmSync(results, { recursive: true, force: true });
  },
);

arms(
  "labels: pass^2 in full, agent time with its unit, a difference in points as summary.md has it",
  async () => {
    const ab = await writeAblation(join(dir, "labels"));
    const { app: other, store: otherStore } = createApp({ logs: [ab.logs], results: [] }, {
      control: "stock",
      ...WAIT,
    });
    const html = text((await get("/", undefined, other)).text);
    const result = aggregateArms(armInputs(otherStore), { control: "stock", prices: loadPrices().prices });
    const row = toMarkdown(result).split("\n").find((l) => l.startsWith("| checklist − stock | overall |"))!;
    const diff = row.split(" | ")[3];
    assert.match(diff, / pts \[[-+]?\d+\.\d, [-+]?\d+\.\d\]$/);
    assert.match(
      html,
      `${diff} on ${
        result.comparisons.find((c) => c.arm === "checklist" && c.domain === "overall")!.n_shared
      } tasks`,
    );
    assert.match(html, /pass\^2 \d+\.\d%/);
    assert.not.match(html, /(^|[^s])\^2 \d/, "no bare ^2");
    assert.match(html, "agent time / trial");
    assert.match(html, /\d+ s unscored|\d+ s \d/);
    assert.not.match(html, "agent s");
  },
);

/**
 * A scorecard as chi-bench's verifier writes it (its own build_scorecard, its e2e checks' details, the judges'
 * rubric_items as rejudge writes them), from chi-bench's Python; null when that Python is not here.
 */
async function chiBenchScorecard(
  checks: Record<string, boolean>,
  details: Record<string, Record<string, string>>,
  explanations: Record<string, string>,
): Promise<string | null> {
  const tool = join(import.meta.dirname ?? ".", "..", "..", "shared", "tools", "chi-bench-python.sh");
  const sources = join(import.meta.dirname ?? ".", "..", "..", "shared", "sources", "chi-bench");
  if (!existsSync(tool) || !existsSync(sources)) return null;
  const python = new TextDecoder().decode(new Deno.Command("sh", { args: [tool] }).outputSync().stdout)
    .trim();
  const script = `
import json, sys
from chi_bench.verifier.task_runtime import build_scorecard
from chi_bench.verifier.stages._base import StageResult
from chi_bench.verifier.stages.e2e_consistency import _project_check_result, CheckResult
spec = json.loads(sys.stdin.read())
checks, details = {}, {}
for name, passed in spec["checks"].items():
    _project_check_result(checks=checks, details=details, check=CheckResult(
        name=name, status="passed" if passed else "failed", message="", details=spec["details"].get(name, {})))
card = build_scorecard(checks, stage_results=[StageResult(stage="e2e", checks=checks, details=details)])
card["rubric_items"] = [{"rubric_id": r, "pass": False, "explanation": e, "evidence_refs": []}
                        for r, e in spec["explanations"].items()]
print(json.dumps(card))
`;
  const child = new Deno.Command(python, {
    args: ["-c", script],
    cwd: sources,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify({ checks, details, explanations })));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`chi-bench's Python failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** The arms the Arms page lists, each with its scored trials. */
function armsListed(html: string): Record<string, number> {
  const table = html.slice(
    html.indexOf('<table id="arms"'),
    html.indexOf("</table>", html.indexOf('id="arms"')),
  );
  return Object.fromEntries(
    table.split("<tr class=").slice(1).map((tr) => {
      const cells = tr.split("<td").slice(1).map((td) => text("<td" + td).trim());
      return [/<a [^>]*>([^<]+)<\/a>/.exec(tr)![1], Number(cells[1])];
    }),
  );
}

arms(
  "trials laid out as run.sh writes them (smoke, pilot; two arms each): four arms, none pooled",
  async () => {
    const checkout = join(dir, "staged");
    const logs = writeStagedRun(checkout, { smoke: ["stock", "critic"], pilot: ["stock", "critic"] });
    const count = (root: string) => findTrials([join(checkout, root)]).length;
    const { app: staged } = createApp({ logs: [logs], results: [] }, { control: "stock", ...WAIT });
    const html = (await get("/", undefined, staged)).text;
    assert.equal(armsListed(html), {
      "fiable-pilot · critic": count("logs/experiments/fiable-pilot/critic"),
      "fiable-pilot · stock": count("logs/experiments/fiable-pilot/stock"),
      "fiable-smoke · critic": count("logs/experiments/fiable-smoke/critic"),
      "fiable-smoke · stock": count("logs/experiments/fiable-smoke/stock"),
    });
    assert.not.match(html, "mixed-arms");
    assert.not.match(html, "Cannot treat these trials as one arm");
    // Pointed at one stage, its arms are the arms alone.
    const { app: pilot } = createApp({ logs: [join(logs, "fiable-pilot")], results: [] }, WAIT);
    assert.equal(Object.keys(armsListed((await get("/", undefined, pilot)).text)), ["critic", "stock"]);
  },
);

arms(
  "a folder whose trials ran as two arms is split, never pooled, and the Arms page says so first",
  async () => {
    const checkout = join(dir, "mixed");
    const logs = join(writeStagedRun(checkout, { smoke: ["stock", "checklist"] }), "fiable-smoke");
    const [stray] = findTrials([join(logs, "stock")]);
    const job = dirname(findTrials([join(logs, "checklist", "cm")])[0].dir);
    cpSync(stray.dir, join(job, `${stray.task}__Stray01`), { recursive: true });
    const { app: mixed } = createApp({ logs: [logs], results: [] }, WAIT);
    const html = (await get("/", undefined, mixed)).text;
    const listed = armsListed(html);
    assert.equal(Object.keys(listed), ["checklist", "stock"]);
    assert.is(listed.stock, findTrials([join(logs, "stock")]).length + 1, "the stray counts where it ran");
    const warning = text(
      html.slice(html.indexOf('id="mixed-arms"'), html.indexOf("</div>", html.indexOf("mixed-arms"))),
    );
    assert.match(warning, `Cannot pool the trials in ${job} : they ran as checklist (`);
    assert.match(warning, "stock (1)");
    assert.ok(html.indexOf("mixed-arms") < html.indexOf('<table id="arms"'), "said before the figures");
    // Named with --logs NAME=DIR, the folder's arms keep the name and stay apart.
    const named = parseArgs(["--logs", `mine=${logs}`]);
    assert.equal(named.names, { [logs]: "mine" });
    const { app: mine } = createApp({ logs: named.logs, names: named.names, results: [] }, WAIT);
    assert.equal(Object.keys(armsListed((await get("/", undefined, mine)).text)), [
      "mine · checklist",
      "mine · stock",
    ]);
    const { app: one } = createApp({
      logs: [join(logs, "stock")],
      names: { [join(logs, "stock")]: "control" },
      results: [],
    }, WAIT);
    assert.equal(Object.keys(armsListed((await get("/", undefined, one)).text)), ["control"]);
  },
);

arms("pickControl: --control, else stock, else none with the reason", () => {
  assert.equal(pickControl(["a", "stock"], "a"), { control: "a", note: null });
  assert.equal(pickControl(["a", "stock"]), { control: "stock", note: null });
  assert.is(pickControl(["a", "b"]).control, null);
  assert.match(pickControl(["a", "b"], "c").note ?? "", "Cannot compare against --control");
});

arms.run();

const matrix = suite("dashboard matrix");

matrix("one row per task, one column per arm, cells passes/attempts linking to their trials", async () => {
  const html = (await get("/matrix")).text;
  const result = aggregateArms(armInputs(store), { control: "stock", prices: loadPrices().prices });
  const m = taskMatrix(result);
  assert.equal(m.arms, ["checklist", "hostile", "stock"]);
  for (const row of m.rows) {
    for (const [i, cell] of row.cells.entries()) {
      if (!cell) continue;
      const href = `/trials?arm=${encodeURIComponent(m.arms[i])}&amp;task=${encodeURIComponent(row.task)}`;
      assert.match(html, `${href}"`);
      const filtered = (await get(href.replaceAll("&amp;", "&"), hx)).text;
      assert.is((filtered.match(/class="trial-link"/g) ?? []).length, cell.n, `${row.task} × ${m.arms[i]}`);
    }
  }
});

matrix("tasks that flipped against the control are marked, as aggregate.ts's gained/lost lists", async () => {
  const html = (await get("/matrix")).text;
  const result = aggregateArms(armInputs(store), { control: "stock", prices: loadPrices().prices });
  const c = result.comparisons.find((x) => x.arm === "checklist" && x.domain === "overall")!;
  const flips = [...html.matchAll(/data-flip="(gained|lost)"/g)].length;
  assert.is(flips, c.gained.length + c.lost.length);
  assert.ok(c.gained.length > 0, "the samples have a gained task");
});

matrix.run();

const table = suite("dashboard trials table");

table("filters by arm, outcome, rule, task, failed check, replay and name", async () => {
  const stock = (await get("/trials?arm=stock", hx)).text;
  assert.ok((stock.match(/class="trial-link"/g) ?? []).length > 0);
  assert.not.match(stock, "<td>checklist</td>");
  assert.not.match((await get("/trials?outcome=failed", hx)).text, ">passed<");
  const rule = rows().find((r) => r.rules.length)!.rules[0];
  const q = (over: Record<string, string>) => parseQuery(over);
  const fired = (r: Row, id: string) => r.rules.includes(id) || r.replays.some((m) => m.rules.includes(id));
  assert.ok(filterRows(rows(), q({ rule })).every((r) => fired(r, rule)));
  // A rule that fired only in replays still finds its trials.
  const replayOnly = rows().flatMap((r) => r.replays.flatMap((m) => m.rules))
    .find((id) => !rows().some((r) => r.rules.includes(id)))!;
  assert.ok(replayOnly && filterRows(rows(), q({ rule: replayOnly })).length > 0, replayOnly);
  const check = rows().find((r) => r.failedChecks.length)!.failedChecks[0];
  assert.ok(filterRows(rows(), q({ check })).length > 0);
  assert.ok(filterRows(rows(), q({ check })).every((r) => r.failedChecks.includes(check)));
  assert.ok(filterRows(rows(), q({ replay: "yes" })).every((r) => r.replays.some((m) => m.blocked)));
  const afib = filterRows(rows(), q({ q: "AFIB" }));
  assert.ok(afib.length > 0 && afib.every((r) => r.task.includes("afib")));
});

table("sorts by every column both ways, unknown values last", () => {
  const all = rows();
  for (
    const [col, key] of [
      ["name", (r: Row) => r.name],
      ["cost", (r: Row) => r.cost],
      ["calls", (r: Row) => r.toolCalls],
      ["blocks", (r: Row) => r.blocks],
      ["arm", (r: Row) => r.arm],
      ["task", (r: Row) => r.task],
      ["domain", (r: Row) => r.domain],
    ] as const
  ) {
    for (const dir of ["asc", "desc"] as const) {
      const values = sortRows(all, col, dir).map((r) => (key as (r: Row) => string | number | null)(r));
      const known = values.filter((v) => v !== null) as (string | number)[];
      assert.ok(values.slice(known.length).every((v) => v === null), `${col} ${dir}: nulls last`);
      for (let i = 1; i < known.length; i++) {
        const ok = dir === "asc" ? known[i - 1] <= known[i] : known[i - 1] >= known[i];
        assert.ok(ok, `${col} ${dir} at ${i}: ${known[i - 1]} then ${known[i]}`);
      }
    }
  }
  for (const col of ["outcome", "rules", "replay"] as const) {
    assert.is(sortRows(all, col, "asc").length, all.length);
  }
});

table("pages: rows a–b of N, next and previous links, the last page when asked past it", async () => {
  const total = rows().length;
  const p2 = tablePage(rows(), parseQuery({ size: "5", page: "2" }));
  assert.is(p2.first, 5);
  assert.is(p2.rows.length, 5);
  assert.is(p2.pages, Math.ceil(total / 5));
  assert.is(tablePage(rows(), parseQuery({ size: "5", page: "999" })).page, p2.pages);
  const html = (await get("/trials?size=5&page=2&sort=cost&dir=desc", hx)).text;
  assert.match(text(html), `rows 6–10 of ${total}`);
  assert.match(html, 'rel="next"');
  assert.match(html, 'rel="prev"');
  assert.match(html, 'aria-sort="descending"');
  assert.match(html, 'hx-swap-oob="true"');
});

table.run();

const checks = suite("dashboard checks");

/** The trial links a Trials URL lists, across every page. */
async function listed(href: string): Promise<number> {
  const html = (await get(`${href.replaceAll("&amp;", "&")}&size=500`, hx)).text;
  return (html.match(/class="trial-link"/g) ?? []).length;
}

checks("the check filter takes an id, a stage prefix or a pattern, and composes with the others", () => {
  const q = (over: Record<string, string>) => filterRows(rows(), parseQuery(over));
  const failed = rows().flatMap((r) => r.failedChecks);
  const id = failed[0];
  const stage = id.slice(0, id.indexOf(".") + 1);
  assert.ok(q({ check: id }).every((r) => r.failedChecks.includes(id)));
  const byStage = q({ check: stage });
  assert.is(byStage.length, rows().filter((r) => r.failedChecks.some((c) => c.startsWith(stage))).length);
  assert.ok(byStage.length >= q({ check: id }).length);
  assert.equal(
    q({ check: `${id.slice(0, -2)}*` }).map((r) => r.id).sort(),
    q({ check: id }).map((r) => r.id).sort(),
  );
  assert.is(q({ check: id.slice(0, -2) }).length, 0, "a bare prefix without . or * is not a match");
  for (const arm of ["stock", "checklist"]) {
    assert.equal(q({ check: stage, arm }), byStage.filter((r) => r.arm === arm), arm);
  }
});

checks("the Trials table shows each trial's failed checks, compact, and links its ledger", async () => {
  const html = (await get("/trials?size=500", hx)).text;
  assert.match(html, 'data-sort="checks"');
  const row = rows().reduce((a, r) => (r.failedChecks.length > a.failedChecks.length ? r : a));
  assert.ok(row.failedChecks.length > 1, "a trial with several failed checks");
  const tr = html.slice(html.indexOf(`href="/trials/${row.id}"`)).split("</tr>")[0];
  assert.match(tr, `title="${row.failedChecks.join("\n")}"`);
  const more = row.failedChecks.length > 2 ? ` +${row.failedChecks.length - 2} more` : "";
  assert.match(text(tr), `${row.failedChecks.slice(0, 2).join(" ")}${more}`);
  for (const r of rows().filter((x) => x.source === "trial")) {
    const has = html.includes(`href="/trials/${r.id}/ledger"`);
    assert.is(has, r.guarded, `${r.name}: a ledger link exactly when a ledger exists`);
  }
  const page = (await get("/trials")).text;
  assert.match(page, 'id="f-check"');
  assert.match(page.slice(page.indexOf(`<datalist id="check-ids"`)), `value="${row.failedChecks[0]}"`);
});

checks("every count on the Checks page opens the trials it counts", async () => {
  const html = (await get("/checks")).text;
  const links = [...html.matchAll(/<a href="(\/trials\?[^"]+)"(?: class="[^"]*")?>(\d+)<\/a>/g)];
  assert.ok(links.length >= 10, `${links.length} count links`);
  for (const [, href, n] of links) assert.is(await listed(href), Number(n), href);
  const failed = new Set(rows().flatMap((r) => r.failedChecks));
  assert.is((html.match(/<tr id="check-/g) ?? []).length, failed.size, "one row per failed check");
});

checks("in-time counts are replay's verdicts of the same trials, counted by summarizeChecks", async () => {
  const html = (await get("/checks")).text;
  const saved = JSON.parse(readFileSync(join(replayOut, "summary.json"), "utf8")).trials as TrialReplay[];
  for (const arm of ["checklist", "critic"] as const) {
    const fromReplay = summarizeChecks(
      saved.map((t) => ({
        passed: t.passed,
        observable: t.observable !== false,
        verdict: armVerdict(t, arm),
      })),
    );
    const mine = replayCheckCounts(rows(), arm);
    assert.equal(mine, fromReplay, arm);
    assert.ok(Object.values(mine).some((c) => c.in_time > 0), `${arm}: some block came in time`);
    for (const [id, c] of Object.entries(mine)) {
      const tr = text(html.slice(html.indexOf(`<tr id="check-${id}"`)).split("</tr>")[0]);
      assert.match(
        tr,
        `${c.in_time} in time ${c.too_late} too late ${
          c.failed - c.in_time - c.too_late
        } none of ${c.failed}`,
      );
    }
  }
});

checks(
  "a check's protectors are the rules, judges and gate obligations naming it; unprotected ones say so",
  async () => {
    const html = text((await get("/checks")).text);
    const rule = RULES.find((r) =>
      r.meta.protects.some((c) => rows().some((x) => x.failedChecks.includes(c)))
    )!;
    assert.match(html, `${rule.meta.id} ${rule.meta.name}`);
    assert.match(html, "nothing protects it");
    assert.match(html, "closure gate:");
  },
);

checks.run();

const ledgerPage = suite("dashboard ledger page");

ledgerPage(
  "a guarded trial's page links its ledger; the ledger filters by each decision it holds",
  async () => {
    const row = rows().find((r) => r.source === "trial" && r.guarded && r.blocks > 0)!;
    assert.match(
      (await get(`/trials/${row.id}`)).text,
      `<a href="/trials/${row.id}/ledger" id="ledger-link">`,
    );
    const bare = rows().find((r) => r.source === "trial" && !r.guarded)!;
    assert.not.match((await get(`/trials/${bare.id}`)).text, 'id="ledger-link"');
    const records = store.records(row);
    const all = (await get(`/trials/${row.id}/ledger`)).text;
    const decisions = [...new Set(records.map((r) => String(r.decision)))];
    assert.ok(decisions.includes("deny") && decisions.length > 1, decisions.join(" "));
    for (const d of decisions) {
      const n = records.filter((r) => String(r.decision) === d).length;
      assert.match(all, `data-decision="${d}">${d} ${n}</a>`);
      const only = (await get(`/trials/${row.id}/ledger?decision=${d}`)).text;
      assert.is((only.match(/<li id="line-/g) ?? []).length, n, d);
      assert.is(
        (only.match(/class="badge d-/g) ?? []).length,
        (only.match(new RegExp(`class="badge d-${d}"`, "g")) ?? []).length,
      );
    }
    const unknown = (await get(`/trials/${row.id}/ledger?decision=nope`)).text;
    assert.match(text(unknown), 'Cannot filter by decision "nope": this ledger has no such record.');
    assert.is((unknown.match(/<li id="line-/g) ?? []).length, records.length);
  },
);

ledgerPage.run();

const rulesPage = suite("dashboard rules");

rulesPage(
  "every count of a rule's fires opens exactly the trials it counts, guarded or replayed",
  async () => {
    const html = (await get("/rules")).text;
    const links = [...html.matchAll(/<a href="(\/trials\?rule=[^"]+&amp;by=[^"]+)">(\d+)<\/a>/g)];
    assert.ok(links.some((l) => l[1].includes("by=guard")), "guarded counts are links");
    assert.ok(links.some((l) => /by=(checklist|critic)/.test(l[1])), "replayed counts are links");
    for (const [, href, n] of links) {
      const page = (await get(`${href.replaceAll("&amp;", "&")}&size=500`)).text;
      assert.is((page.match(/class="trial-link"/g) ?? []).length, Number(n), href);
    }
  },
);

rulesPage("fired rules by fires in failed, then in time, then in passed; the rest folded away", async () => {
  const html = (await get("/rules")).text;
  const model = ruleFires(rows());
  const ids = (table: string) => {
    const at = html.indexOf(`<table id="${table}"`);
    return [...html.slice(at, html.indexOf("</table>", at)).matchAll(/<tr id="rule-([^"]+)"/g)].map((m) =>
      m[1]
    );
  };
  assert.equal(ids("rule-fires"), model.fired.map((f) => f.id));
  assert.ok(model.fired.length > 3 && model.never.length > 3);
  const key = (f: RuleFires) => [firesInFailed(f), firesInTime(f), firesInPassed(f)];
  for (let i = 1; i < model.fired.length; i++) {
    const [a, b] = [key(model.fired[i - 1]), key(model.fired[i])];
    assert.ok(
      a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] >= b[2]))),
      `${a} then ${b}`,
    );
  }
  assert.ok(model.fired.every((f) => firesInFailed(f) + firesInPassed(f) + f.other > 0));
  assert.ok(model.never.every((f) => firesInFailed(f) + firesInPassed(f) + f.other === 0));
  const folded = html.slice(html.indexOf('<details id="never-fired"'));
  assert.match(text(folded.slice(0, 200)), `${model.never.length} rules never fired here`);
  assert.equal(ids("rule-unfired"), model.never.map((f) => f.id));
  const every = [...RULE_META.map((r) => r.id), ...JUDGES.map((j) => j.meta.id)];
  assert.equal(
    [...ids("rule-fires"), ...ids("rule-unfired")].filter((id) => every.includes(id)).sort(),
    every.sort(),
  );
});

rulesPage(
  "each row shows its replayed deny reasons' next call, complete of all, as replay counts them",
  async () => {
    const html = (await get("/rules")).text;
    assert.match(html, "replayed reasons: next call complete");
    const graded = ruleFires(rows()).fired.filter((f) =>
      f.nextCall.complete + f.nextCall.partial + f.nextCall.none
    );
    assert.ok(graded.length > 0, "no replayed deny reason was graded");
    for (const f of graded) {
      const row = html.slice(html.indexOf(`<tr id="rule-${f.id}"`));
      const cell = /<td class="next-call">([^<]*)<\/td>/.exec(row)?.[1];
      assert.is(
        cell,
        `${f.nextCall.complete} of ${f.nextCall.complete + f.nextCall.partial + f.nextCall.none}`,
        f.id,
      );
    }
  },
);

rulesPage("the CRITIC row is the critic panel's own block, named and explained", async () => {
  const fired = { ...rows().find((r) => r.outcome === "failed")!, rules: ["CRITIC"], replays: [] };
  const panel = ruleFires([...rows(), fired]).fired.find((f) => f.id === "CRITIC")!;
  assert.equal([panel.kind, panel.name, panel.protects], [
    "panel",
    "critic panel: two of three judges objected",
    [],
  ]);
  assert.is(panel.failed, 1);
  const page = text((await get("/rules")).text);
  assert.match(
    page,
    "CRITIC the critic panel's own block: two of its three judges objected at a decision point",
  );
  assert.match(page, "STOP-GATE the closure gate");
});

rulesPage.run();

const transcript = suite("dashboard transcript");

transcript(
  "a guarded trial: prompt, the agent's steps with tokens, key arguments, the guard's decisions",
  async () => {
    const row = rows().find((r) => r.arm === "checklist" && r.blocks > 0 && r.failedChecks.length) ??
      rows().find((r) => r.arm === "checklist" && r.blocks > 0)!;
    const html = (await get(`/trials/${row.id}`)).text;
    const t = text(html);
    assert.match(html, 'class="ev prompt"');
    assert.match(t, "task prompt");
    assert.match(t, /step \d+ in \d/);
    assert.match(html, '<span class="k">case_id</span>');
    assert.match(html, 'class="call call-deny');
    assert.match(t, "the block reason as the model read it");
    assert.match(html, /<span class="checks">\s*→/);
    // Each block message once: in the reason the model read, not again beside the rule's id.
    const box = html.slice(
      html.indexOf('class="guard gd-deny'),
      html.indexOf("</details>", html.indexOf("gd-deny")),
    );
    const message = /<pre>([^<]*fiable-guard blocked[^<]*)<\/pre>/.exec(box)?.[1] ?? "";
    assert.ok(message, "the deny shows its reason");
    assert.not.match(box, 'class="msg"');
    // Nor again as the call's result, which for a denied call is that same reason.
    const call = html.slice(
      html.indexOf('class="call call-deny'),
      html.indexOf('class="args"', html.indexOf("call-deny")),
    );
    assert.match(call, "result: the block reason above, as the model read it");
    assert.is((call.match(/fiable-guard blocked/g) ?? []).length, 1, "the reason once in the denied call");
    assert.match(t, "plan given to the agent");
    assert.match(html, 'id="scorecard"');
  },
);

transcript("each failed check links to transcript entries that exist on the page they point to", async () => {
  for (const row of rows().filter((r) => r.failedChecks.length && r.trajectory).slice(0, 6)) {
    const html = (await get(`/trials/${row.id}`)).text;
    const links = [...html.matchAll(/class="step-link" href="([^"]+)"/g)].map((m) =>
      m[1].replaceAll("&amp;", "&")
    );
    assert.ok(links.length > 0, `${row.name} links its failed checks`);
    for (const link of links.slice(0, 3)) {
      const [path, anchor] = link.split("#");
      assert.match((await get(path)).text, `id="${anchor}"`);
    }
  }
});

transcript("a replayed trial shows the replay's would-be decisions on its own transcript", async () => {
  const row = rows().find((r) => r.arm === "stock" && r.replays.find((m) => m.arm === "checklist")?.blocked)!;
  const page = (await get(`/trials/${row.id}`)).text;
  assert.match(page, "replay (checklist) would have:");
  assert.match(page, 'class="overlays"');
  assert.match((await get(`/trials/${row.id}?replay=critic`)).text, "replay (critic) would have:");
  assert.not.match((await get(`/trials/${row.id}?replay=none`)).text, "would have:");
});

transcript("the scorecard links each replayed block to the step it would first have come at", async () => {
  const row = rows().find((r) =>
    r.replays.some((m) => m.verdict?.verdict && Object.keys(m.verdict.steps).length)
  )!;
  const html = (await get(`/trials/${row.id}`)).text;
  const replays = html.slice(
    html.indexOf('class="replays"'),
    html.indexOf("</ul>", html.indexOf('class="replays"')),
  );
  const links = [...replays.matchAll(/href="([^"]+)">([^<]+)<\/a>/g)].map((x) => ({
    href: x[1].replaceAll("&amp;", "&"),
    label: x[2],
  }));
  assert.ok(links.length > 0, "a replayed rule links to its step");
  for (const { href, label } of links) {
    const step = /at step (\d+)/.exec(label)![1];
    const [path, anchor] = href.split("#");
    assert.match(path, /replay=(checklist|critic)/);
    const page = (await get(path)).text;
    const item = page.slice(
      page.indexOf(`id="${anchor}"`),
      page.indexOf("</li>", page.indexOf(`id="${anchor}"`)),
    );
    assert.match(item, `step ${step}</span>`);
    assert.match(item, "would have:");
  }
});

transcript(
  "the Trial page explains the failure: Harbor's exception, each failed check's explanation as chi-bench writes it",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-why-"));
    try {
      const source = rows().find((r) => r.arm === "stock" && r.failedChecks.length >= 2 && r.trialDir)!;
      const trial = join(root, "stock", "cm", source.name);
      cpSync(source.trialDir!, trial, { recursive: true });
      const result = JSON.parse(readFileSync(join(trial, "result.json"), "utf8"));
      result.exception_info = {
        exception_type: "NonZeroAgentExitCodeError",
        exception_message: "claude exited with code 1\nTraceback (most recent call last): …",
      };
      writeFileSync(join(trial, "result.json"), JSON.stringify(result));
      const [det, judged] = source.failedChecks;
      const card = await chiBenchScorecard(
        Object.fromEntries(source.failedChecks.map((c) => [c, false])),
        { [det]: { expected: "hold", actual: "submit_pa <script>x</script>" } },
        { [judged.replace(/^judge\./, "")]: "The letter cites no chart evidence for criterion 2." },
      );
      if (card === null) {
        console.log(
          "  (chi-bench's Python absent: explanations checked on the dashboard's own reading only)",
        );
        return;
      }
      writeFileSync(join(trial, "verifier", "scorecard.json"), card);
      const { app: why, store: s } = createApp({ logs: [root], results: [] }, {
        scanMs: 0,
        tailMs: 0,
        ...WAIT,
      });
      s.refresh({ scanMs: 0 });
      const row = s.rows()[0];
      const html = (await get(`/trials/${row.id}`, undefined, why)).text;
      assert.match(text(html), "Harbor: NonZeroAgentExitCodeError : claude exited with code 1");
      const item = (id: string) =>
        text(
          html.slice(
            html.indexOf(`data-check="${id}"`),
            html.indexOf("</li>", html.indexOf(`data-check="${id}"`)),
          ),
        );
      assert.match(item(det), "expected: hold; actual: submit_pa <script>x</script>");
      assert.not.match(html, "<script>x</script>");
      assert.match(item(judged), "The letter cites no chart evidence for criterion 2.");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

transcript(
  "a replay without --ledgers: its figures show, the overlay says to rerun with --ledgers",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-noledgers-"));
    try {
      const trials = join(root, "trials");
      writeTrials(trials);
      const out = join(root, "replay-out");
      await replayTrees([trials], { arms: ["checklist"], out, ledgers: false, workers: 0 });
      assert.equal(readdirSync(out).sort(), [
        "decisions.parquet",
        "summary.json",
        "trials.parquet",
        "verdicts.parquet",
      ]);
      // With DuckDB (decisions.parquet gives the replayed sessions) and without (summary.json's verdicts alone).
      for (const duckdb of [undefined, false as const]) {
        const { app: h, store: s } = createApp({ logs: [trials], results: [out], duckdb }, {
          scanMs: 0,
          tailMs: 0,
          ...WAIT,
        });
        s.refresh({ scanMs: 0 });
        const row = s.rows().find((r) => r.replays.find((m) => m.arm === "checklist")?.blocked)!;
        assert.ok(row, "the blocked verdict comes from summary.json");
        const page = (await get(`/trials/${row.id}`, undefined, h)).text;
        assert.match(page, 'id="replay-ledgers"');
        assert.match(text(page), "Replay checklist ran without --ledgers");
        assert.match(text(page), "Rerun deno task replay with --ledgers");
        assert.not.match(page, "would have:");
        assert.not.match(
          (await get(`/trials/${row.id}?replay=none`, undefined, h)).text,
          'id="replay-ledgers"',
        );
      }
      await replayTrees([trials], { arms: ["checklist"], out, workers: 0 });
      const { app: h, store: s } = createApp({ logs: [trials], results: [out] }, {
        scanMs: 0,
        tailMs: 0,
        ...WAIT,
      });
      s.refresh({ scanMs: 0 });
      const row = s.rows().find((r) => r.replays.find((m) => m.arm === "checklist")?.blocked)!;
      const page = (await get(`/trials/${row.id}`, undefined, h)).text;
      assert.not.match(page, 'id="replay-ledgers"');
      assert.match(page, "replay (checklist) would have:");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

transcript("two packets holding a trial of the same name each show their own replay", async () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-dash-packets-"));
  try {
    const all = fixtureTrials();
    const blocked = all.find((t) => t.name.endsWith("aaaaaaa"))!;
    const clean = all.find((t) => t.name.endsWith("ggggggg"))!;
    for (
      const [packet, trial] of [["pkt-a", blocked], ["pkt-b", { ...clean, name: blocked.name }]] as const
    ) {
      writeTrials(join(root, packet), [trial]);
      writeFileSync(join(root, packet, "results.csv"), "agent,model\n");
    }
    const out = join(root, "replay-out");
    await replayTrees([root], { arms: ["checklist"], rules: ["PP-01"], out, workers: 0 });
    const { store: s } = createApp({ logs: [root], results: [] }, { scanMs: 0, tailMs: 0, ...WAIT });
    s.refresh({ scanMs: 0 });
    const same = s.rows().filter((r) => r.name === blocked.name && r.trialDir);
    const verdict = (packet: string) =>
      same.find((r) => r.trialDir!.includes(packet))!.replays.find((m) => m.arm === "checklist")!.blocked;
    assert.is(same.length, 2);
    assert.equal([verdict("pkt-a"), verdict("pkt-b")], [true, false]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

transcript(
  "Claude Code v1.2 and v1.7, codex exec scripts and openai-agents all read as transcripts",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-harness-"));
    try {
      writeTrials(root);
      const { app: h, store: s } = createApp({ logs: [root], results: [] }, {
        scanMs: 0,
        tailMs: 0,
        ...WAIT,
      });
      s.refresh({ scanMs: 0 });
      const want: Record<string, string[]> = {
        aaaaaaa: ["auth.submit_authorization", "case_id", "submitted"],
        ccccccc: ["determination.finalize", "decision", "approved"],
        ddddddd: ["cm_intake.open_case", "referral_id", "codex script", "CM-CASE-CM_AFIB_001"],
        fffffff: ["cm_care_plan.finalize", "case_id", "bad state"],
        ggggggg: ["auth.finalize_provider_determination", "final_action", "submit_pa"],
      };
      for (const [suffix, words] of Object.entries(want)) {
        const row = s.rows().find((r) => r.name.endsWith(suffix))!;
        const { status, text: html } = await get(`/trials/${row.id}`, undefined, h);
        assert.is(status, 200, suffix);
        assert.match(html, 'class="ev prompt"', suffix);
        for (const w of words) assert.match(text(html), w, `${suffix}: ${w}`);
      }
      const broken = s.rows().find((r) => r.name.endsWith("eeeeeee"))!;
      assert.is((await get(`/trials/${broken.id}`, undefined, h)).status, 200);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

const PACKETS = [join("..", "shared", "leaderboard"), join("..", "shared", "leaderboard-extra")]
  .map((p) => join(import.meta.dirname ?? ".", "..", p));

transcript(
  "a real trial of every harness in the packets renders as a transcript (skips without them)",
  async () => {
    const roots = PACKETS.flatMap((p) => existsSync(p) ? readdirSync(p).map((n) => join(p, n)) : [])
      .filter((p) => existsSync(join(p, "results.csv")) || existsSync(join(p, "submission.json")));
    if (!roots.length) {
      console.log("  (skipped: ../shared/leaderboard packets are absent)");
      return;
    }
    const seen = new Set<string>();
    for (const root of roots) {
      const ref = findTrials([root]).find((r) => r.trajectory);
      if (!ref) continue;
      const { app: p, store: s } = createApp({ logs: [ref.dir], results: [] }, { scanMs: 0, ...WAIT });
      s.refresh({ scanMs: 0 });
      const row = s.rows()[0];
      const t = s.trajectory(row)!;
      seen.add(t.harness);
      const html = (await get(`/trials/${row.id}`, undefined, p)).text;
      assert.match(html, 'class="ev prompt"', root);
      assert.match(html, 'class="call', root);
      const calls = toolEvents(t).calls.filter((c) => c.tool);
      if (calls.length) assert.match(html, calls[0].tool!, root);
    }
    assert.ok(seen.has("claude-code") && seen.has("codex") && seen.has("openai-agents"), [...seen].join(","));
  },
);

transcript("guard lifecycle records and unknown events or decisions render without breaking", async () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-dash-guard-"));
  try {
    const ledger = join(root, "session-g.jsonl");
    const base = { v: 1, t: "2026-07-20T10:00:00.000Z", session: "session-g", arm: "checklist" };
    writeFileSync(
      ledger,
      [
        { ...base, event: "guard", decision: "restart", note: "supervisor restart" },
        {
          ...base,
          event: "guard",
          decision: "gap",
          gap: {
            since: "2026-07-20T10:00:01Z",
            until: "2026-07-20T10:00:09Z",
            missed: 3,
            tools: ["triage.get"],
          },
        },
        { ...base, event: 'weird"><b>', decision: "zzz<i>", note: "from the future" },
      ].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const { app: g, store: s } = createApp({ logs: [root], results: [] }, { scanMs: 0, tailMs: 0, ...WAIT });
    s.refresh({ scanMs: 0 });
    const row = s.rows()[0];
    assert.is(row.gaps, 1);
    assert.is(row.restarts, 1);
    const html = (await get(`/trials/${row.id}`, undefined, g)).text;
    assert.match(text(html), "guard restart the guard came (back) up for this ledger");
    assert.match(text(html), "3 missed · triage.get");
    assert.match(text(html), "from the future");
    assert.not.match(html, "<b>");
    assert.not.match(html, "<i>");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

transcript("key arguments: known ones first, then ids and codes, at most six, values clipped", () => {
  assert.equal(keyArgs({ note: "x", final_action: "submit_pa", case_id: "CASE-1" }), [
    ["case_id", "CASE-1"],
    ["final_action", "submit_pa"],
  ]);
  assert.equal(keyArgs({ cpt_codes: ["73721", "73722"] }), [["cpt_codes", "73721, 73722"]]);
  assert.is(keyArgs({ case_id: "x".repeat(200) })[0][1].length, 80);
  assert.is(keyArgs(Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`a${i}_id`, "v"]))).length, 6);
  assert.equal(keyArgs({ file_path: "/workspace/SKILL.md" }), [["file_path", "/workspace/SKILL.md"]]);
  assert.equal(scriptArgs('const r = await tools.exec_command({cmd:"ls -la /x", workdir: "/w"});'), [[
    "cmd",
    "ls -la /x",
  ]]);
  assert.equal(scriptArgs("// note\nconst rows = [];"), [["script", "const rows = [];"]]);
});

transcript("a ledger alone makes a transcript; a result echoed as a user message is not shown twice", () => {
  const base = { v: 1 as const, t: "2026-07-20T10:00:00.000Z", session: "s", arm: "checklist" as const };
  const items = ledgerTranscript([
    {
      ...base,
      event: "pre",
      decision: "allow",
      tool: "triage.get",
      tool_use_id: "t1",
      input: { case_id: "C" },
    },
    { ...base, event: "post", decision: "record", tool: "triage.get", tool_use_id: "t1", result: "ok" },
    { ...base, event: "stop", decision: "block", obligations: ["UM-LETTER: no letter"] },
  ]);
  assert.is(items.length, 2);
  assert.is(items[0].kind === "agent" && items[0].calls[0].result, "ok");
  const t = parseTrajectory(
    [
      JSON.stringify({
        _atif_header: { schema_version: "ATIF-v1.2", session_id: "s", agent: { name: "openai-agents" } },
      }),
      JSON.stringify({ source: "user", message: "# Task" }),
      JSON.stringify({
        source: "agent",
        message: "",
        tool_calls: [{ tool_call_id: "c1", function_name: "triage__get", arguments: { case_id: "C" } }],
        observation: { results: [{ source_call_id: "c1", content: "RESULT TEXT" }] },
      }),
      JSON.stringify({ source: "user", message: "RESULT TEXT" }),
    ].join("\n"),
  );
  const built = buildTranscript({ trajectory: t, calls: toolEvents(t).calls, records: [] });
  assert.equal(built.map((i) => i.kind), ["prompt", "agent"]);
  const links = checkLinks(built, ["triage.route_matches"], RULE_META);
  assert.equal(links.get("triage.route_matches")!.map((l) => l.label), ["step 2"]);
});

transcript.run();

const big = suite("dashboard big ledgers");

big("a trial whose ledger is too big to merge shows the trajectory and pages the ledger", async () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-dash-big-"));
  try {
    const lines = Math.ceil(SMALL_LEDGER_BYTES / 200) + 2000;
    const { dir: trial } = writeBigLedgerTrial(root, lines);
    const { app: b, store: s } = createApp({ logs: [root], results: [] }, { scanMs: 0, tailMs: 0, ...WAIT });
    s.refresh({ scanMs: 0, budget: 1 << 20 });
    const row = s.rows().find((r) => r.trialDir === trial)!;
    assert.ok(row.indexing !== null, "still indexing after one budgeted refresh");
    const first = await get(`/trials/${row.id}`, undefined, b);
    assert.is(first.status, 200);
    assert.match(first.text, 'id="big-ledger"');
    assert.ok(first.text.length < 200_000, `first view is ${first.text.length} bytes`);
    while (s.pump(4 << 20));
    assert.is(s.ledgerLines(s.row(row.id)!), lines);
    const page = (await get(`/trials/${row.id}/ledger?page=3`, undefined, b)).text;
    assert.match(page, `id="line-${2 * PAGE_LINES}"`);
    assert.match(page, `id="line-${3 * PAGE_LINES - 1}"`);
    assert.not.match(page, `id="line-${3 * PAGE_LINES}"`);
    assert.is(s.row(row.id)!.blocks, Math.floor(lines / 1000));
    // Filtered by decision: the denies are every thousandth line; page 3 of the allows skips line 999's deny.
    const denies = (await get(`/trials/${row.id}/ledger?decision=deny`, undefined, b)).text;
    const listed = [...denies.matchAll(/<li id="line-(\d+)"/g)].map((m) => Number(m[1]));
    assert.equal(listed, Array.from({ length: Math.floor(lines / 1000) }, (_, i) => 1000 * i + 999));
    assert.match(
      text(denies),
      `decision: all ${lines} · allow ${lines - listed.length} · deny ${listed.length}`,
    );
    const allows = (await get(`/trials/${row.id}/ledger?decision=allow&page=3`, undefined, b)).text;
    assert.is(/<li id="line-(\d+)"/.exec(allows)?.[1], "1001");
    assert.not.match(allows, 'id="line-999"');
    assert.match(allows, `href="/trials/${row.id}/ledger?decision=allow&amp;page=4" rel="next"`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

big("a tail reads at most its budget per refresh and pages from checkpoints", () => {
  const path = join(dir, "paged.jsonl");
  writeFileSync(path, Array.from({ length: 1600 }, (_, i) => liveRecord("p", i)).join(""));
  const tail = new LedgerTail(path);
  const read = tail.refresh(10_000);
  assert.ok(read <= 10_000);
  assert.ok(tail.behind);
  while (tail.behind) tail.refresh(50_000);
  assert.is(tail.lines, 1600);
  const got = tail.page(1234, 3);
  assert.equal(got.map((n) => n.line), [1234, 1235, 1236]);
  assert.match(JSON.stringify(got[0].record), "live marker 1234");
});

big.run();

const search = suite("dashboard search");

search(
  "finds trials by part of a task name, by trial suffix, by rule id and name, by partial check id",
  async () => {
    const afib = rowNamed(rows().find((r) => r.task.includes("afib"))!.name);
    assert.match((await get("/search?q=afib", hx)).text, `/trials/${afib.id}`);
    const suffix = afib.name.split("__")[1];
    assert.match((await get(`/search?q=${suffix.slice(0, 5)}`, hx)).text, `/trials/${afib.id}`);
    const locked = rows().find((r) =>
      r.rules.includes("GLOBAL-01") || r.replays.some((m) => m.rules.includes("GLOBAL-01"))
    );
    const lock = (await get("/search?q=case-lock", hx)).text;
    assert.match(lock, 'href="/trials?rule=GLOBAL-01"');
    if (locked) assert.match(lock, `/trials/${locked.id}`);
    const failing = rows().find((r) => r.failedChecks.some((c) => c.includes("provider_determination")));
    const partial = (await get("/search?q=provider_determination", hx)).text;
    assert.match(partial, "provider_pre_submission.provider_determination_present");
    if (failing) assert.match(partial, `/trials/${failing.id}`);
    assert.match((await get("/search?q=zzzznothing", hx)).text, "No trial matches");
  },
);

search("index and query terms: whole words and their parts; queries by parts", () => {
  assert.ok(indexTerms("cm_afib_moderate__Hx7aB2c").includes("afib"));
  assert.ok(indexTerms("cm_afib_moderate__Hx7aB2c").includes("cm_afib_moderate__Hx7aB2c"));
  assert.equal(queryTerms("case-lock"), ["case", "lock"]);
  assert.equal(matchRules("case-lock").map((r) => r.id), ["GLOBAL-01"]);
  assert.ok(
    matchChecks("determination_present", []).includes(
      "provider_pre_submission.provider_determination_present",
    ),
  );
});

search.run();

const live = suite("dashboard live");

live(
  "a running ablation: done / expected per arm from the configs, pass@1 and cost of those, rate and ETA, blocks",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-ablation-"));
    try {
      const ab = await writeAblation(root);
      // An hour's window: the fixture's trials finished every four minutes up to about nine minutes ago.
      const { app: l, store: s, figures } = createApp({ logs: [ab.logs], results: [], liveWindow: 3600 }, {
        scanMs: 0,
        tailMs: 0,
        experiments: [ab.configs],
        ...WAIT,
      });
      s.refresh({ scanMs: 0 });
      await figures.get();
      const html = text((await get("/live", undefined, l)).text);
      assert.match(html, `36 of the ${ab.expected} expected trials have a result`);
      assert.match(
        html,
        /1[0-9] finished in the last 60 min: 1[0-9]\.0 trials\/hour over that window · ETA \d+ h/,
      );
      assert.match(html, "stock 18 / 225");
      assert.match(html, "checklist 18 / 225 1");
      assert.match(html, /\d+\.\d% \(\d+ of 18 scored\) \$\d+\.\d\d over 18 trials/);
      appendFileSync(ab.runningLedger, liveRecord("running-session", 41));
      const after = (await get("/live", hx, l)).text;
      assert.match(after, "live marker 41");
      assert.match(after, "cm_afib_moderate_anxious_001__Running");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

live("without configs the page says how to get expected totals", async () => {
  assert.match(text((await get("/live")).text), "Start the dashboard with --experiments");
});

live("experiment configs: n_tasks, else the dataset's tasks matching the globs, else 25", () => {
  const root = mkdtempSync(join(tmpdir(), "fiable-dash-exp-"));
  try {
    for (const t of ["cm_afib_a", "cm_afib_b", "cm_copd_a"]) {
      mkdirSync(join(root, "data", "care_management", "tasks", t), { recursive: true });
      writeFileSync(join(root, "data", "care_management", "tasks", t, "task.toml"), "");
    }
    const yaml = (extra: string) =>
      `dataset: data/care_management/tasks\nn_attempts: 3\ntrials_dir: logs/x/critic/cm\nagent_kwargs:\n  arm: critic\n${extra}`;
    const counted = sliceOf("a.yaml", yaml("include_task_name: ['cm_afib_*']\n"), root)!;
    assert.equal([counted.arm, counted.domain, counted.tasks, counted.expected, counted.tasksFrom], [
      "critic",
      "cm",
      2,
      6,
      "dataset",
    ]);
    assert.is(sliceOf("b.yaml", yaml("n_tasks: 1\n"), root)!.expected, 3);
    assert.is(sliceOf("c.yaml", yaml(""), null)!.tasks, 25);
    assert.is(sliceOf("d.yaml", "name: not a config\n", null), null);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

live("a record appended to a ledger file shows up in the transcript and on Live", async () => {
  const row = () => rows().find((r) => r.sessions.includes("live-session-1"));
  assert.ok(row(), "the live ledger is listed");
  appendFileSync(fx.liveLedger, liveRecord("live-session-1", 2));
  const fragment = await get(`/trials/${row()!.id}`, hx);
  assert.match(fragment.text, "live marker 2");
  assert.ok(fragment.text.startsWith('<ol id="timeline"'));
  assert.match(fragment.text, 'hx-trigger="every 1s"');
  const now = (await get("/live", hx)).text;
  assert.match(now, "UM-TEST");
  assert.match(now, 'id="blocks"');
});

live("a half-written line waits for its newline; a shrunk file is read again", () => {
  const path = join(dir, "partial.jsonl");
  appendFileSync(path, liveRecord("p", 1) + liveRecord("p", 2).slice(0, 40));
  const tail = new LedgerTail(path);
  tail.refresh();
  assert.is(tail.lines, 1);
  appendFileSync(path, liveRecord("p", 2).slice(40));
  tail.refresh();
  assert.is(tail.lines, 2);
  assert.is(tail.records().length, 2);
  assert.is(tail.corrupt, 0);
  writeFileSync(path, liveRecord("q", 1));
  tail.refresh();
  assert.equal([...tail.sessions.keys()], ["q"]);
});

live("ledger stats count denies, stop blocks, rules and the gate, per session", () => {
  const tail = new LedgerTail(fx.ledger);
  tail.refresh();
  const s = ledgerStats(tail.records());
  assert.equal(tail.sessions.get("hostile-session")!.stats(), s);
  assert.is(s.blocks, 2);
  assert.equal(s.rules, ["CM-01", "STOP-GATE"]);
  assert.is(s.seat, "cm");
});

live.run();

const words = suite("dashboard words");

words("names wrap only between their parts; the Trials table names a trial by its attempt", async () => {
  const name = (text: string) => (Name({ text }) as { toString(): string | Promise<string> }).toString();
  assert.is(await name("md.signed_off"), "md.<wbr>signed_<wbr>off");
  assert.is(await name("Hx7aB2c"), "Hx7aB2c");
  assert.is(
    attemptLabel("cm_afib_moderate_anxious_001__Hx7aB2c", "cm_afib_moderate_anxious_001"),
    "…__Hx7aB2c",
  );
  assert.is(
    attemptLabel("pa_t008_t008_o002_p01_new_referr__4LTVnzH", "pa_t008_t008_o002_p01_new_referral_provider"),
    "…__4LTVnzH",
  );
  assert.is(attemptLabel("live-session-1", "live-session-1"), "live-session-1");
  const html = (await get("/trials")).text;
  assert.not.match(html, "word-break:break-all");
  assert.match(html, /class="trial-link" title="[^"]+__[^"]+">…__/);
});

words("an unpriced model's cost says so, with how to price it, never $0 or a bare dash", async () => {
  const { app: unpriced } = createApp({ logs: [fx.logs], results: [] }, { prices: {}, ...WAIT });
  const html = (await get("/trials", undefined, unpriced)).text;
  assert.match(
    html,
    /class="muted unpriced" title="No price for [^"]+ in the prices \(data\/prices.yaml, or --prices FILE\)/,
  );
  const row = rows().find((r) => r.source === "trial" && r.outcome !== "running")!;
  assert.match((await get(`/trials/${row.id}`, undefined, unpriced)).text, 'class="muted unpriced"');
});

words(
  "plain filter labels; /search has its own box; the Handbook page names where the handbook comes from",
  async () => {
    const form = text((await get("/trials")).text);
    for (
      const label of [
        "trial or task",
        "rule fired",
        "a replayed block for the failed check came",
        "replayed as",
        "a replay would have blocked it",
      ]
    ) {
      assert.match(form, label);
    }
    assert.not.match(form, "block for it ");
    const search = (await get("/search")).text;
    assert.match(search, /<form action="\/search"[^>]*id="search-page"/);
    assert.match(text(search), "Finds trials by part of a task name");
    const hits = (await get("/search?q=afib&hits=page", hx)).text;
    assert.ok(hits.startsWith('<ul id="search-hits"'), hits.slice(0, 40));
    const book = text((await get("/handbook")).text);
    assert.match(book, "actava/managed-care-operations-handbook");
    assert.match(book, "/workspace/skills/managed-care-operations-handbook");
  },
);

words("no page points to files outside the repository", async () => {
  const paths = ["/", "/matrix", "/trials", "/rules", "/live", "/search?q=afib", "/handbook"];
  for (const r of rows().slice(0, 12)) paths.push(`/trials/${r.id}`, `/trials/${r.id}/ledger`);
  for (const path of paths) {
    const html = (await get(path)).text;
    for (const outside of ["harness.md", "checks.md", "failure-analysis.md", "../shared", "anchors.md"]) {
      assert.not.match(html, outside, `${path} mentions ${outside}`);
    }
  }
});

words("the demo's synthetic trials carry a caveat on every page; real trials do not", async () => {
  for (const path of ["/", "/matrix", "/trials", "/rules", "/live"]) {
    assert.match((await get(path)).text, 'id="notice"', path);
  }
  const root = mkdtempSync(join(tmpdir(), "fiable-dash-real-"));
  try {
    writeTrials(root);
    const { app: r } = createApp({ logs: [root], results: [] }, WAIT);
    assert.not.match((await get("/trials", undefined, r)).text, "synthetic");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

words.run();

const security = suite("dashboard security");

security("payloads in arguments, results, reasons, votes and plans are escaped on every page", async () => {
  const id = rowNamed(HOSTILE).id;
  for (
    const path of [`/trials/${id}`, `/trials/${id}/ledger`, "/trials", "/rules", "/live", `/search?q=hostile`]
  ) {
    const { status, text } = await get(path);
    assert.is(status, 200, path);
    inert(text);
  }
  const page = await get(`/trials/${id}`);
  assert.match(page.text, "&lt;script&gt;window.__pwned=1&lt;/script&gt;");
  assert.match(page.text, "&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;");
  assert.ok(PAYLOADS.length >= 4);
});

for (
  const path of [
    "/trials/..%2F..%2F..%2Fetc%2Fpasswd",
    "/trials/../../etc/passwd",
    "/trials/%2e%2e%2f%2e%2e%2fdeno.json",
    "/trials/..%2Fx/ledger",
    "/aggregate/..%2F..%2Fdeno.json",
    "/static/..%2F..%2Fdeno.json",
    "/static/../deno.json",
    `/trials/${encodeURIComponent(fx.ledger)}`,
  ]
) {
  security(`path traversal ${path} reaches nothing`, async () => {
    const { status, text } = await get(path);
    assert.is(status, 404);
    assert.not.match(text, "nodeModulesDir");
    assert.not.match(text, "root:x:0");
  });
}

security("every answer carries the security headers, from hono's secureHeaders", async () => {
  for (const path of ["/", "/trials", "/static/app.css", "/no-such-page"]) {
    const { res } = await get(path);
    const h = (name: string) => res.headers.get(name) ?? "";
    assert.match(h("content-security-policy"), "default-src 'none'", path);
    assert.match(h("content-security-policy"), "frame-ancestors 'none'", path);
    assert.is(h("x-frame-options"), "DENY", path);
    assert.is(h("x-content-type-options"), "nosniff", path);
    assert.is(h("referrer-policy"), "no-referrer", path);
    assert.is(h("cache-control"), "no-store", path);
    assert.is(h("strict-transport-security"), "", `${path}: no HSTS on plain http`);
  }
});

security("row ids are opaque hashes", () => {
  assert.match(rowId("trial:/x/../y"), /^[0-9a-f]{14}$/);
  for (const r of rows()) assert.match(r.id, /^[0-9a-f]{14}$/);
});

security("read-only: every write but /ingest is refused", async () => {
  for (
    const [method, path] of [["POST", "/"], ["DELETE", "/trials"], ["PUT", "/rules"], ["PATCH", "/live"]]
  ) {
    const { status } = await get(path, { method });
    assert.is(status, 405, `${method} ${path}`);
  }
});

security("only loopback host names are answered without the token (DNS rebinding)", async () => {
  for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787", "LOCALHOST"]) {
    assert.is((await get("http://x/trials", { headers: { host } })).status, 200, host);
  }
  const evil = await get("/trials", { headers: { host: "attacker.example:8787" } });
  assert.is(evil.status, 403);
  assert.match(evil.text, "Cannot serve host");
  assert.not.match(evil.text, "trial-link");
  const withToken = await get(`/trials?token=${TOKEN}`, { headers: { host: "attacker.example" } });
  assert.is(withToken.status, 200);
  const bare = createApp({ logs: [fx.logs], results: [] }, { hosts: ["dash.internal"] }).app;
  assert.is((await bare.request("/", { headers: { host: "dash.internal:80" } })).status, 200);
  assert.is((await bare.request("/", { headers: { host: "other.internal" } })).status, 403);
  assert.equal(["localhost", "::1", "127.0.0.1", "a.b"].map(hostName), [
    "localhost",
    "::1",
    "127.0.0.1",
    "a.b",
  ]);
  assert.is(hostName("[::1]:80"), "::1");
});

const ingest = (body: BodyInit, token = TOKEN, extra: RequestInit = {}) =>
  get("/ingest", {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...extra,
  });

security("ingest needs the bearer token", async () => {
  assert.is((await get("/ingest", { method: "POST", body: "{}" })).status, 401);
  assert.is((await ingest(liveRecord("s", 0), "wrong-token-0123456789")).status, 401);
});

security("ingest refuses oversize, non-JSON and non-record bodies", async () => {
  assert.is((await ingest("x".repeat((1 << 20) + 1))).status, 413);
  assert.is((await ingest("not json")).status, 400);
  assert.is((await ingest(JSON.stringify({ hello: 1 }))).status, 400);
});

security("a chunked ingest body is cut off at the limit, not read whole", async () => {
  let pulled = 0;
  const chunk = new Uint8Array(64 << 10).fill(32);
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled += chunk.length;
      if (pulled > 400 << 20) c.close();
      else c.enqueue(chunk);
    },
  });
  const { status } = await ingest(stream, TOKEN, { duplex: "half" } as RequestInit);
  assert.is(status, 413);
  assert.ok(pulled <= (1 << 20) + 4 * chunk.length, `read ${pulled} bytes of a 400 MB body`);
});

security("a chunked ingest over the network gets 413 without the server reading it all", async () => {
  const started = serve({ logs: [fx.logs], results: [], port: 0, host: "127.0.0.1", token: TOKEN });
  try {
    let sent = 0;
    const chunk = new Uint8Array(256 << 10).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += chunk.length;
        if (sent > 400 << 20) c.close();
        else c.enqueue(chunk);
      },
    });
    const res = await fetch(`${started.url}ingest`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${TOKEN}` },
      duplex: "half",
    } as RequestInit).catch((err) => err as Error);
    if (res instanceof Response) {
      assert.is(res.status, 413);
      await res.body?.cancel();
    }
    assert.ok(sent < 64 << 20, `the client got to send ${sent >> 20} MB of 400 MB`);
  } finally {
    await started.server.shutdown();
  }
});

security("an ingested record appears on Live and in its trial's transcript", async () => {
  assert.is((await ingest(liveRecord("ingested-session-7", 1))).status, 204);
  assert.match((await get("/live", hx)).text, "ingested-session-7");
  const row = rows().find((r) => r.sessions.includes("ingested-session-7"))!;
  assert.match((await get(`/trials/${row.id}`)).text, "live marker 1");
});

security("the guard's live poster (lib/guard/ledger/live.ts) lands in a served dashboard", async () => {
  const started = serve({ logs: [fx.logs], results: [], port: 0, host: "127.0.0.1", token: TOKEN });
  try {
    // The guard abandons a post after 200 ms; a loaded test machine can take longer, and this asserts the landing.
    await postLive(started.url, TOKEN, JSON.parse(liveRecord("posted-session-9", 3)), 10_000);
    started.store.refresh({ scanMs: 1e9, tailMs: 0 });
    assert.ok(
      started.store.rows().some((r) => r.sessions.includes("posted-session-9") && r.source === "ingest"),
    );
  } finally {
    await started.server.shutdown();
  }
});

security("ingest is disabled without a token", async () => {
  const bare = createApp({ logs: [fx.logs], results: [] }).app;
  const res = await bare.request("/ingest", {
    method: "POST",
    body: liveRecord("s", 1),
    headers: { authorization: "Bearer x" },
  });
  assert.is(res.status, 403);
});

security("ingest takes the bearer scheme in any case (RFC 9110), and only the right token", async () => {
  for (const scheme of ["bearer", "BEARER", "Bearer"]) {
    const res = await get("/ingest", {
      method: "POST",
      body: liveRecord(`scheme-${scheme}`, 1),
      headers: { authorization: `${scheme} ${TOKEN}` },
    });
    assert.is(res.status, 204, scheme);
  }
  const wrong = await get("/ingest", {
    method: "POST",
    body: liveRecord("scheme-wrong", 1),
    headers: { authorization: `basic ${TOKEN}` },
  });
  assert.is(wrong.status, 401);
});

security(
  "a token holder cannot fill the dashboard's memory: the live ledgers are capped in bytes",
  async () => {
    const caps = { held: 256 << 10, session: 64 << 10, sessions: 2000 };
    const { app: capped, store: s } = createApp({ logs: [], results: [] }, {
      token: TOKEN,
      ingestCaps: caps,
    });
    const send = (body: string) =>
      capped.request("/ingest", { method: "POST", body, headers: { authorization: `Bearer ${TOKEN}` } });
    const padded = (session: string, n: number) =>
      JSON.stringify({ ...JSON.parse(liveRecord(session, n)), note: "p".repeat(4000) });
    // 40 sessions of 8 records of ≈ 4.4 KB each: 1.4 MB posted against a 256 KB cap.
    for (let i = 0; i < 40; i++) {
      const res = await send(`[${Array.from({ length: 8 }, (_, n) => padded(`cap-${i}`, n)).join(",")}]`);
      assert.is(res.status, 204, `session ${i}`);
    }
    assert.ok(s.ingestedBytes() <= caps.held, `${s.ingestedBytes()} bytes held`);
    s.refresh({ scanMs: 0, tailMs: 0 });
    const held = s.rows().flatMap((r) => r.sessions);
    assert.ok(held.includes("cap-39") && !held.includes("cap-0"), "the oldest sessions went first");
    // One session past its own cap is refused with the reason; what it held stays.
    const many = `[${Array.from({ length: 20 }, (_, n) => padded("greedy", n)).join(",")}]`;
    const refused = await send(many);
    assert.is(refused.status, 413);
    assert.match(await refused.text(), /Cannot ingest more for session "greedy": it holds 65536 bytes/);
    assert.ok(s.ingestedBytes() <= caps.held);
  },
);

security("off loopback every request needs the token", async () => {
  const remote = createApp({ logs: [fx.logs], results: [] }, { token: TOKEN, requireToken: true }).app;
  assert.is((await remote.request("/")).status, 401);
  assert.is((await remote.request("/trials?token=nope")).status, 401);
  const ok = await remote.request(`/trials?token=${TOKEN}`);
  assert.is(ok.status, 200);
  assert.match(ok.headers.get("set-cookie") ?? "", "HttpOnly");
  assert.is((await remote.request("/", { headers: { cookie: `fiable_token=${TOKEN}` } })).status, 200);
  assert.is((await remote.request("/", { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
});

security.run();

const charts = suite("dashboard charts");

charts("every one of 60 arms has its own colour, Tableau 10's first", () => {
  const colors = Array.from({ length: 60 }, (_, i) => armColor(i));
  assert.is(new Set(colors).size, 60);
  assert.equal(colors.slice(0, 10), COLORS);
});

charts("ticks are round and cover the maximum", () => {
  assert.equal(niceTicks(0.58), [0, 0.2, 0.4, 0.6]);
  assert.equal(niceTicks(4.79), [0, 1, 2, 3, 4, 5]);
  assert.equal(niceTicks(0), [0]);
});

charts("point labels never overlap each other and stay inside the plot", () => {
  const bounds = { x: 50, y: 10, w: 400, h: 200 };
  const points = Array.from({ length: 6 }, (_, i) => ({ x: 440, y: 100 + i, label: `arm-${i}-label` }));
  const boxes = placeLabels(points, bounds);
  for (const [i, a] of boxes.entries()) {
    assert.ok(
      a.x >= bounds.x && a.x + a.w <= bounds.x + bounds.w && a.y >= bounds.y &&
        a.y + a.h <= bounds.y + bounds.h,
    );
    for (const b of boxes.slice(i + 1)) assert.not.ok(overlaps(a, b));
  }
});

charts.run();

const cli = suite("dashboard command line");

cli("arm of a trial that says nothing: its folder below the root, less domain and container dirs", () => {
  const arm = (root: string, dir: string) => armNames(new Map([[dir, claimOf({ dir: root }, dir, null)]]));
  assert.is(arm("/r", "/r/stock/cm/t1").names.get("/r/stock/cm/t1"), "stock");
  assert.is(arm("/r/stock", "/r/stock/cm/t1").names.get("/r/stock/cm/t1"), "stock");
  assert.is(arm("/r", "/r/pkt/trials/cm/t1").names.get("/r/pkt/trials/cm/t1"), "pkt");
});

cli("a taken default port moves to a free one; a taken --port is refused in one line", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (busy.addr as Deno.NetAddr).port;
  const args = { logs: [fx.logs], results: [], port, host: "127.0.0.1" };
  try {
    const moved = serve({ ...args, portFallback: true });
    try {
      assert.ok(moved.moved);
      assert.is.not(new URL(moved.url).port, String(port));
      assert.is((await fetch(moved.url + "favicon.ico")).status, 204);
    } finally {
      await moved.server.shutdown();
    }
    assert.throws(
      () => serve(args),
      (err: Error) =>
        err.message === `Cannot listen on 127.0.0.1:${port}: another process uses that port. ` +
            "Pass --port 0 for a free one, or another --port.",
    );
    assert.ok(parseArgs(["--logs", dir]).portFallback, "the default port may move");
    assert.not.ok(parseArgs(["--logs", dir, "--port", "9000"]).portFallback, "a port given may not");
  } finally {
    busy.close();
  }
});

cli(
  "run.sh says how to follow the pilot and the ablation on the dashboard, in commands it takes",
  async () => {
    const script = new TextDecoder().decode(
      (await experimentFiles(DEFAULT_EXPERIMENT)).find((f) => f.path === RUN_SCRIPT)!.bytes,
    );
    for (const stage of ["pilot", "full"] as const) {
      const command = dashboardCommand(stage, "$cb");
      assert.match(script, command);
      const checkout = join(dir, "checkout");
      const args = command.replaceAll("$cb", checkout).split(" ").slice(
        command.split(" ").indexOf("dashboard") + 1,
      );
      for (const a of args.filter((x) => x.startsWith(checkout))) mkdirSync(a, { recursive: true });
      const parsed = parseArgs(args);
      assert.is(parsed.control, "stock");
      assert.equal(parsed.logs, [
        join(checkout, stage === "pilot" ? "logs/experiments/fiable-pilot" : "logs/experiments/fiable"),
      ]);
    }
  },
);

cli("parses sources, port, host, token, recipe, prices and experiments", () => {
  const a = parseArgs(
    ["--logs", dir, fx.logs, "--results", dir, "--port", "0", "--host", "0.0.0.0", "--recipe", "c"],
    { FIABLE_LIVE_TOKEN: "t" },
  );
  assert.is(a.logs.length, 2);
  assert.is(a.port, 0);
  assert.is(a.token, "t");
  assert.is(a.recipe, "C");
  assert.not.ok(isLoopback(a.host));
  assert.ok(isLoopback("127.0.0.1"));
  assert.ok(isLoopback("[::1]"));
  assert.equal(parseArgs(["--logs", dir, "--experiments", dir]).experiments, [dir]);
  assert.is(parseArgs(["--logs", dir]).liveWindowMin, undefined);
  assert.is(parseArgs(["--logs", dir, "--live-window", "45"]).liveWindowMin, 45);
});

for (
  const [args, says] of [
    [[], "no sources"],
    [["--logs", "/no/such/dir"], "does not exist"],
    [["--logs", dir, "--port", "http"], "not a port number"],
    [["--logs", dir, "--recipe", "Z"], 'recipe "Z" is unknown'],
    [["--logs", dir, "--colour"], "unknown option --colour. Use one of: --logs, --results"],
    [["--logs", dir, "--experiments", "/no/such/dir"], "does not exist"],
    [["--logs", dir, "--live-window", "0"], 'live-window "0" is not a number of minutes'],
    [["--logs", dir, "--live-window", "soon"], 'live-window "soon" is not a number of minutes'],
    [["stray"], "follows no option"],
  ] as [string[], string][]
) {
  cli(`refuses ${JSON.stringify(args)}`, () => {
    try {
      parseArgs(args);
      assert.unreachable("should have thrown");
    } catch (err) {
      assert.match((err as Error).message, says);
      assert.match((err as Error).message, /^Cannot /);
    }
  });
}

cli.run();

const handbook = suite("dashboard handbook search");

handbook(
  "with --handbook, the page searches the plan arm's index and returns the results fragment",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-handbook-"));
    try {
      writeHandbook(root, { count: 120 });
      const { app: withBook } = createApp({ logs: [fx.logs], results: [] }, { handbook: root });
      const page = await (await withBook.request("/handbook")).text();
      assert.match(page, 'hx-get="/handbook"');
      const res = await withBook.request(`/handbook?q=${encodeURIComponent(KNOWN[0].query)}`, {
        headers: hx.headers,
      });
      const fragment = await res.text();
      assert.ok(fragment.startsWith('<ol id="handbook-results"'), fragment.slice(0, 80));
      assert.match(fragment, KNOWN[0].path);
      assert.is(res.headers.get("vary"), "HX-Request");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

handbook("without --handbook, the page says how to configure it", async () => {
  const { app: bare } = createApp({ logs: [fx.logs], results: [] });
  assert.match(await (await bare.request("/handbook?q=x")).text(), "start the dashboard with --handbook ");
});

handbook("a missing handbook folder is reported, and a hostile query is escaped", async () => {
  const { app: missing } = createApp({ logs: [fx.logs], results: [] }, {
    handbook: join(dir, "no-such-book"),
  });
  const html = await (await missing.request(`/handbook?q=${encodeURIComponent(PAYLOADS[0])}`)).text();
  assert.match(html, "the folder does not exist");
  assert.not.match(html, PAYLOADS[0]);
});

handbook("cleanup", () => rmSync(dir, { recursive: true, force: true }));

handbook.run();
