/**
 * The dashboard in headless Chromium (Debian's package, driven by playwright-core), one test per point of
 * issue 19: replays are overlays not arms, one set of figures with its recipe, no pointers outside the repo,
 * the demo's caveat, transcripts for every harness, the task × arm matrix, the sortable paged table, search,
 * the live view, readable charts, big ledgers, the Host allow-list, /ingest limits — plus escaping and live
 * updates. Screenshots go to tests/.artifacts/.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { serve } from "../dashboard/server.tsx";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { findTrials } from "../lib/results/trials.ts";
import { SMALL_LEDGER_BYTES } from "../dashboard/read/ledgers.ts";
import { chromiumArgs, ensureChromium } from "./support/chromium.ts";
import {
  HOSTILE,
  liveRecord,
  writeAblation,
  writeBigLedgerTrial,
  writeFixture,
  writeManyTrials,
  writeStagedRun,
} from "./support/dashboard_fixture.ts";
import { writeTrials } from "./support/atif_fixture.ts";
import { slowdown } from "./support/slowdown.ts";

const ARTIFACTS = join(import.meta.dirname ?? ".", ".artifacts");
mkdirSync(ARTIFACTS, { recursive: true });
const TOKEN = "browser-token-0123456789";

const dir = mkdtempSync(join(tmpdir(), "fiable-browser-"));
// A: the sample trials, a hostile trial, a live ledger, and replay output left under --logs.
const fx = writeFixture(dir);
await replayTrees([join(fx.logs, "stock")], {
  arms: ["checklist", "critic"],
  out: join(fx.logs, "replay-out"),
  workers: 1,
});
const a = serve(
  {
    logs: [fx.logs, join(dir, "live")],
    results: [],
    port: 0,
    host: "127.0.0.1",
    token: TOKEN,
    control: "stock",
  },
  { scanMs: 500, tailMs: 100, figureWaitMs: 60_000 },
);
// C: trials of every harness (fixtures, and one real trial per packet when ../shared has them).
const harness = join(dir, "harness");
writeTrials(harness);
// D: a trial with a ledger too big to merge into its transcript.
const big = writeBigLedgerTrial(join(dir, "big"), Math.ceil(SMALL_LEDGER_BYTES / 200) + 5000);
const PACKETS = ["leaderboard", "leaderboard-extra"].map((p) =>
  join(import.meta.dirname ?? ".", "..", "..", "shared", p)
);
const real = PACKETS.flatMap((p) => existsSync(p) ? readdirSync(p).map((n) => join(p, n)) : [])
  .map((p) => findTrials([p]).find((r) => r.trajectory)?.dir).filter((d): d is string => !!d);
const c = serve(
  { logs: [harness, ...real], results: [], port: 0, host: "127.0.0.1" },
  { scanMs: 500, tailMs: 100, figureWaitMs: 60_000 },
);
const d = serve({ logs: [join(dir, "big")], results: [], port: 0, host: "127.0.0.1" }, { scanMs: 500 });
// F: the staged run's trees, smoke and pilot with two arms each (four arms).
const staged = serve({
  logs: [writeStagedRun(join(dir, "staged"), { smoke: ["stock", "critic"], pilot: ["stock", "critic"] })],
  results: [],
  port: 0,
  host: "127.0.0.1",
}, { figureWaitMs: 60_000 });
// E: a tree nothing writes to, rescanned every 300 ms.
const still = writeManyTrials(join(dir, "static"), 24);
const e = serve({ logs: [still], results: [], port: 0, host: "127.0.0.1", control: "stock" }, {
  scanMs: 300,
  figureWaitMs: 60_000,
});
const base = (s: { url: string }) => s.url.replace(/\/$/, "");

const profile = mkdtempSync(join(tmpdir(), "fiable-chromium-"));
const errors: string[] = [];
// Launched at load time, so a missing Chromium fails loudly with what is missing instead of inside a hook.
const browser: BrowserContext = await chromium.launchPersistentContext(profile, {
  executablePath: await ensureChromium(),
  args: [...chromiumArgs(), "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
  headless: true,
  viewport: { width: 1360, height: 900 },
});
const page: Page = browser.pages()[0] ?? await browser.newPage();
page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
page.on("console", (m) => {
  if (m.type() === "error") errors.push(`console: ${m.text()}`);
});

async function open(url: string, selector: string): Promise<void> {
  const res = await page.goto(url);
  assert.is(res?.status(), 200, url);
  await page.waitForSelector(selector, { state: "attached" });
  await page.waitForFunction(() => "htmx" in globalThis);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const t = suite("dashboard in Chromium");

t.after(async () => {
  await browser.close();
  for (const s of [a, c, d, e, staged]) await s.server.shutdown();
  rmSync(dir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

for (
  const [path, selector] of [
    ["/", "#arms"],
    ["/matrix", "#matrix"],
    ["/trials", "#trials-rows"],
    ["/rules", "#coverage"],
    ["/checks", "#checks"],
    ["/live", "#live-rows"],
    ["/search?q=afib", "#search-hits li a"],
    ["/handbook", "#handbook-results"],
  ]
) {
  t(`${path} loads with no errors`, async () => {
    errors.length = 0;
    await open(base(a) + path, selector);
    await shot(path === "/" ? "arms" : path.slice(1).replace(/\W+/g, "-"));
    assert.equal(errors, []);
  });
}

t(
  "replays: only real arms on the Arms page; a replay is the original trial with would-be decisions",
  async () => {
    await open(`${base(a)}/`, "#arms");
    const arms = await page.locator("#arms tbody tr td:first-child a").allTextContents();
    assert.equal(arms.sort(), ["checklist", "hostile", "stock"]);
    assert.ok(await page.locator("#replay-figures").isVisible());
    assert.match(await page.locator("#replay-figures").innerText(), "critic");
    const deltas = await page.locator("#arms td.diff").allTextContents();
    assert.ok(deltas.some((d) => d.includes("control")), "the control is the one asked for");
    const row = a.store.rows().find((r) =>
      r.arm === "stock" && r.replays.find((m) => m.arm === "checklist")?.blocked
    )!;
    await open(`${base(a)}/trials/${row.id}`, "#timeline");
    assert.ok(await page.locator(".guard.would").first().isVisible());
    assert.match(await page.locator(".guard.would").first().innerText(), "replay (checklist) would have");
    await page.locator(".overlays a", { hasText: "critic" }).click();
    await page.waitForURL(/replay=critic/);
    assert.match(await page.locator(".guard.would").first().innerText(), "replay (critic) would have");
    await page.locator(".overlays a", { hasText: "none" }).click();
    await page.waitForURL(/replay=none/);
    assert.is(await page.locator(".guard.would").count(), 0);
    await shot("replay-overlay");
  },
);

t(
  "compare: from a trial's Compare with to two columns, the first divergence marked, back to each step",
  async () => {
    errors.length = 0;
    const row = a.store.rows().find((r) =>
      r.arm === "stock" && r.task === "pa_t008_t008_o002_p01_new_referral_provider"
    )!;
    await open(`${base(a)}/trials/${row.id}`, "#compare-with");
    await page.locator("#compare-with a", { hasText: "checklist" }).first().click();
    await page.waitForSelector("#alignment");
    assert.match(page.url(), /\/compare\?a=[0-9a-f]+&b=[0-9a-f]+/);
    const diverge = page.locator("#alignment tr.diverge");
    assert.is(await diverge.count(), 1);
    assert.match(await diverge.innerText(), "first divergence");
    assert.match(
      await page.locator("#divergence").innerText(),
      /Their work on the case first parts at row \d+/,
    );
    await page.locator("#divergence a").click();
    await page.waitForURL(/#row-\d+$/);
    assert.ok(await diverge.isVisible());
    assert.match(await page.locator("#compare-checks").innerText(), /failed\s+passed/);
    await shot("compare");
    // Each cell links back to its step on its own Trial page.
    await page.locator("#alignment td.call-cell a.step-link").last().click();
    await page.waitForSelector("#timeline");
    assert.match(page.url(), /\/trials\/[0-9a-f]+\?page=1.*#item-\d+$/);
    assert.equal(errors, []);
    const bad = await page.goto(`${base(a)}/compare?a=${row.id}&b=nope`);
    assert.is(bad?.status(), 404);
    assert.match(await page.locator("main").innerText(), 'Cannot compare b="nope": no trial has that id');
  },
);

t("one set of figures per arm, the cost recipe named wherever a cost is shown", async () => {
  await open(`${base(a)}/`, "#arms");
  for (const tr of await page.locator("#arms tbody tr").all()) {
    const cells = await tr.locator("td").allInnerTexts();
    assert.is(cells.filter((x) => /\d%\s\[/.test(x)).length, 1, cells.join(" | "));
  }
  assert.match(await page.locator("#arms thead").innerText(), "cost / trial (recipe B)");
  assert.match(
    await page.locator("#basis").innerText(),
    "recipe B — uncached input, output and cache-read tokens",
  );
  await open(`${base(a)}/trials`, "#trials-rows");
  assert.match(await page.locator("#trials thead").innerText(), "cost (recipe B)");
  await page.locator("a.trial-link").first().click();
  await page.waitForSelector("#scorecard");
  const card = await page.locator("#scorecard").innerText();
  assert.match(card, "cost (recipe B)");
  if (card.includes("harness-reported")) assert.match(card, "not used in figures");
});

t("the Checks page: an in-time count opens exactly the trials it counts, filters composed", async () => {
  await open(`${base(a)}/checks`, "#checks");
  assert.match(await page.locator("header nav a.active").innerText(), "Checks");
  const link = page.locator("#checks a.in-time").first();
  const n = Number(await link.innerText());
  assert.ok(n > 0);
  await link.click();
  await page.waitForURL(/timing=in-time/);
  await page.waitForSelector("#trials-rows");
  assert.is(await page.locator("a.trial-link").count(), n);
  assert.is(await page.locator("select[name=timing]").inputValue(), "in-time");
  const check = await page.locator("#f-check").inputValue();
  assert.ok(check.length > 0);
  await shot("checks-in-time");
});

t("the Trials check filter takes a stage prefix as you type, and keeps the other filters", async () => {
  const rows = a.store.rows();
  const id = rows.find((r) => r.arm === "stock" && r.failedChecks.length)!.failedChecks[0];
  const stage = id.slice(0, id.indexOf(".") + 1);
  const want = rows.filter((r) => r.arm === "stock" && r.failedChecks.some((c) => c.startsWith(stage)));
  await open(`${base(a)}/trials?arm=stock`, "#trials-rows");
  await page.locator("#f-check").fill(stage);
  await page.waitForURL((u) =>
    u.searchParams.get("check") === stage && u.searchParams.get("arm") === "stock"
  );
  await page.waitForFunction((n) => document.querySelectorAll("a.trial-link").length === n, want.length);
  const cells = await page.locator("#trials-rows td.checks").allInnerTexts();
  assert.ok(cells.every((c) => c.includes(stage)), cells.join(" | "));
  await open(`${base(a)}/trials?arm=checklist`, "#trials-rows");
  const row = rows.find((r) => r.arm === "checklist" && r.guarded)!;
  await page.locator(`#trials-rows a[href="/trials/${row.id}/ledger"]`).click();
  await page.waitForSelector("#ledger li.rec");
});

t("the Rules page: fired rules in order, the never-fired folded until opened, CRITIC explained", async () => {
  await open(`${base(a)}/rules`, "#rule-fires");
  assert.ok(await page.locator("#rule-fires tbody tr").count() > 0);
  assert.is(await page.locator("#rule-unfired").isVisible(), false);
  await page.locator("#never-fired summary").click();
  assert.ok(await page.locator("#rule-unfired").isVisible());
  assert.match(await page.locator("#rule-kinds").innerText(), "critic panel's own block");
});

t("a trial's ledger is a link away, and filters by decision", async () => {
  const row = a.store.rows().find((r) => r.source === "trial" && r.guarded && r.blocks > 0)!;
  await open(`${base(a)}/trials/${row.id}`, "#timeline");
  await page.locator("#ledger-link").click();
  await page.waitForSelector("#ledger li.rec");
  const all = await page.locator("#ledger li.rec").count();
  await page.locator('#decisions a[data-decision="deny"]').click();
  await page.waitForURL(/decision=deny/);
  const denies = await page.locator("#ledger li.rec").count();
  assert.ok(denies > 0 && denies < all, `${denies} of ${all}`);
  assert.equal(
    [...new Set(await page.locator("#ledger li.rec .badge[class*='d-']").allInnerTexts())],
    ["deny"],
  );
  await shot("ledger-deny");
});

t("no page points to files outside the repository", async () => {
  const paths = ["/", "/matrix", "/trials", "/checks", "/rules", "/live", "/search?q=afib", "/handbook"];
  for (const r of a.store.rows().slice(0, 6)) paths.push(`/trials/${r.id}`);
  for (const path of paths) {
    await page.goto(base(a) + path);
    const body = await page.locator("body").innerText();
    for (const outside of ["harness.md", "checks.md", "failure-analysis.md", "../shared"]) {
      assert.not.match(body, outside, `${path} mentions ${outside}`);
    }
  }
});

t("the demo's synthetic pass rates carry a caveat on the page; real trials do not", async () => {
  for (const path of ["/", "/matrix", "/trials"]) {
    await open(base(a) + path, "main");
    assert.ok(await page.locator("#notice").isVisible(), path);
    assert.match(await page.locator("#notice").innerText(), "synthetic");
  }
  await open(`${base(c)}/trials`, "#trials-rows");
  assert.is(await page.locator("#notice").count(), 0);
});

t(
  "a trial page is a transcript: prompt, text, calls with key arguments and results, guard decisions",
  async () => {
    const row = a.store.rows().find((r) => r.arm === "checklist" && r.blocks > 0 && r.failedChecks.length) ??
      a.store.rows().find((r) => r.arm === "checklist" && r.blocks > 0)!;
    await open(`${base(a)}/trials/${row.id}`, "#timeline li");
    assert.match(await page.locator("#timeline .ev.prompt").first().innerText(), "task prompt");
    assert.ok(await page.locator("#timeline .metrics").first().isVisible(), "tokens and cost per step");
    assert.ok(await page.locator("#timeline .arg .k", { hasText: "case_id" }).first().isVisible());
    assert.ok(await page.locator("#timeline pre.preview").first().isVisible());
    const deny = page.locator("#timeline .guard.gd-deny").first();
    assert.ok(await deny.isVisible());
    // The reason as the model read it is open, and each rule's message is in it once, not again above it.
    assert.ok(await deny.locator("details.reason pre").isVisible());
    const reason = await deny.locator("details.reason pre").innerText();
    assert.match(reason, "fiable-guard blocked");
    assert.is(await deny.locator(".hit .msg").count(), 0);
    const stop = page.locator("#timeline .record.stop");
    if (await stop.count()) assert.match(await stop.first().innerText(), "stop gate");
    const link = page.locator("#scorecard a.step-link").first();
    if (await link.count()) {
      const href = (await link.getAttribute("href"))!;
      await link.click();
      const anchor = href.split("#")[1];
      await page.waitForFunction((id) => location.hash === `#${id}`, anchor);
      assert.ok(await page.locator(`#${anchor}`).isVisible());
      assert.ok(
        await page.locator(`#${anchor}`).evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top < innerHeight && r.bottom > 0;
        }),
        "the linked step is scrolled into view",
      );
    }
    await shot("transcript");
  },
);

t(
  "transcripts for Claude Code (v1.2, v1.7), codex and openai-agents, and real packets when present",
  async () => {
    const want: Record<string, string> = {
      aaaaaaa: "auth.submit_authorization",
      ggggggg: "auth.finalize_provider_determination",
      ddddddd: "cm_intake.open_case",
      fffffff: "cm_care_plan.finalize",
    };
    for (const [suffix, tool] of Object.entries(want)) {
      const row = c.store.rows().find((r) => r.name.endsWith(suffix))!;
      await open(`${base(c)}/trials/${row.id}`, "#timeline li");
      assert.ok(await page.locator("#timeline .ev.prompt").isVisible(), suffix);
      assert.ok(await page.locator("#timeline code.tool", { hasText: tool }).first().isVisible(), suffix);
      assert.ok(await page.locator("#timeline .arg").first().isVisible(), suffix);
    }
    const codex = c.store.rows().find((r) => r.name.endsWith("ddddddd"))!;
    await open(`${base(c)}/trials/${codex.id}`, "#timeline li");
    await page.locator("details.script summary").first().click();
    assert.match(await page.locator("details.script pre").first().innerText(), "tools.mcp__healthverse__");
    if (!real.length) console.log("  (real packets absent: fixtures only)");
    for (const dirOf of real) {
      const row = c.store.rows().find((r) => r.trialDir === dirOf)!;
      errors.length = 0;
      await open(`${base(c)}/trials/${row.id}`, "#timeline li");
      assert.ok(await page.locator("#timeline .ev.prompt").count() > 0, dirOf);
      assert.ok(await page.locator("#timeline .call").count() > 0, dirOf);
      assert.equal(errors, [], dirOf);
    }
  },
);

t(
  "the task × arm matrix: passes/attempts, flips against the control highlighted, cells link to trials",
  async () => {
    await open(`${base(a)}/matrix`, "#matrix");
    const cells = await page.locator("#matrix td.cell a:not(.compare)").allTextContents();
    assert.ok(cells.length > 0 && cells.every((x) => /^\d+\/\d+$/.test(x)), cells.join(","));
    const flipped = page.locator('#matrix td[data-flip="gained"]').first();
    assert.ok(await flipped.isVisible());
    const outline = await flipped.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.is(outline, "solid");
    const count = flipped.locator("a:not(.compare)");
    const [n] = (await count.innerText()).split("/").slice(1).map(Number);
    const href = (await count.getAttribute("href"))!;
    const params = new URL(href, base(a)).searchParams;
    await count.click();
    await page.waitForSelector("#trials-rows");
    const armsShown = await page.locator("#trials-rows tr td:nth-child(3)").allTextContents();
    const tasksShown = await page.locator("#trials-rows tr td:nth-child(2)").allTextContents();
    assert.is(armsShown.length, n);
    assert.ok(
      armsShown.every((x) => x === params.get("arm")) && tasksShown.every((x) => x === params.get("task")),
    );
    await shot("matrix");
  },
);

t("the trials table sorts by every column, filters as you type and pages", async () => {
  await open(`${base(a)}/trials`, "#trials-rows");
  for (
    const key of [
      "name",
      "task",
      "arm",
      "domain",
      "outcome",
      "checks",
      "cost",
      "calls",
      "blocks",
      "rules",
      "replay",
    ]
  ) {
    const th = `#trials th[data-sort="${key}"]`;
    const first = await page.locator(th).getAttribute("aria-sort") === "ascending"
      ? "descending"
      : "ascending";
    await page.locator(`${th} a`).click();
    await page.waitForSelector(`${th}[aria-sort="${first}"]`);
    await page.locator(`${th} a`).click();
    await page.waitForSelector(`${th}[aria-sort="${first === "ascending" ? "descending" : "ascending"}"]`);
  }
  await page.locator('#trials th[data-sort="cost"] a').click();
  await page.waitForSelector('#trials th[data-sort="cost"][aria-sort="ascending"]');
  const costs = (await page.locator("#trials-rows tr td:nth-child(7)").allTextContents())
    .filter((x) => x.startsWith("$")).map((x) => Number(x.slice(1)));
  assert.ok(costs.length > 2 && costs.every((v, i) => i === 0 || costs[i - 1] <= v), costs.join(","));
  assert.match(page.url(), "sort=cost");
  await page.fill("#f-q", "afib");
  await page.waitForFunction(() =>
    [...document.querySelectorAll("#trials-rows tr td:nth-child(2)")].every((td) =>
      td.textContent?.includes("afib")
    )
  );
  assert.match(page.url(), "q=afib");
  assert.match(page.url(), "sort=cost", "the filter keeps the sort");
  await open(`${base(a)}/trials?size=5`, "#trials-rows");
  await page.locator('.pager a[rel="next"]').first().click();
  await page.waitForFunction(() => document.querySelector("#trials-view")?.getAttribute("data-page") === "2");
  assert.match(await page.locator(".pager").first().innerText(), "rows 6–10");
});

t(
  "search finds parts of task names, trial suffixes, rule names and partial check ids as you type",
  async () => {
    const afib = a.store.rows().find((r) => r.task.includes("afib"))!;
    for (
      const [q, expect] of [
        ["afib", `/trials/${afib.id}`],
        [afib.name.split("__")[1].slice(0, 5), `/trials/${afib.id}`],
        ["case-lock", "/trials?rule=GLOBAL-01"],
        ["provider_determination", "/trials?check=provider_pre_submission.provider_determination_present"],
      ]
    ) {
      await open(`${base(a)}/trials`, "header input[name=q]");
      await page.fill("header input[name=q]", q);
      await page.waitForSelector(`#search-results a[href="${expect}"]`, { timeout: 5000 });
    }
  },
);

t(
  "the live view: what is being written, done / expected per arm with their pass@1 and cost, blocks as they happen",
  async () => {
    // B: a running ablation with its experiment configs, written now: the runner imports every suite before it
    // runs the first, and a trial written at import would have left the live window by the time this runs.
    const ablation = await writeAblation(join(dir, "ablation"));
    const b = serve(
      { logs: [ablation.logs], results: [], port: 0, host: "127.0.0.1", experiments: [ablation.configs] },
      { scanMs: 500, tailMs: 100, figureWaitMs: 60_000 },
    );
    await b.scanned;
    try {
      await open(`${base(b)}/live`, "#progress");
      const stock = await page.locator('#progress tr[data-arm="stock"]').innerText();
      assert.match(stock, "18 / 225");
      assert.match(stock, /\d+\.\d% \(\d+ of 18 scored\)/);
      assert.match(stock, /\$\d+\.\d\d over 18 trials/);
      assert.match(await page.locator('#progress tr[data-arm="checklist"]').innerText(), "18 / 225");
      assert.match(
        await page.locator("#eta").innerText(),
        "Live now: 1 trial being written (no result.json yet",
      );
      assert.match(
        await page.locator("#from-disk").innerText(),
        "36 of the 450 expected trials have a result",
      );
      await page.evaluate(() => ((globalThis as { __marker?: number }).__marker = 1));
      appendFileSync(ablation.runningLedger, liveRecord("running-session", 77));
      await page.waitForFunction(
        () => document.querySelector("#blocks")?.textContent?.includes("live marker 77"),
        null,
        { timeout: 3000 * slowdown() },
      );
      assert.is(await page.evaluate(() => (globalThis as { __marker?: number }).__marker), 1, "no reload");
      await shot("live");
    } finally {
      await b.server.shutdown();
    }
  },
);

t("charts: a legend with every arm, axis ticks, and no label overlapping another or cut off", async () => {
  await open(`${base(a)}/`, "#pass-chart");
  for (const id of ["#pass-chart", "#cost-chart"]) {
    const report = await page.locator(id).evaluate((svg) => {
      const vb = (svg as SVGSVGElement).viewBox.baseVal;
      const boxes = [...svg.querySelectorAll("text")].map((t) => {
        const b = (t as SVGTextElement).getBBox();
        return { text: t.textContent ?? "", x: b.x, y: b.y, w: b.width, h: b.height };
      });
      const outside = boxes.filter((b) =>
        b.x < 0 || b.y < 0 || b.x + b.w > vb.width || b.y + b.h > vb.height
      );
      const clash: string[] = [];
      boxes.forEach((p, i) =>
        boxes.slice(i + 1).forEach((q) => {
          if (p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h) {
            clash.push(`${p.text}|${q.text}`);
          }
        })
      );
      return { texts: boxes.map((b) => b.text), outside: outside.map((b) => b.text), clash };
    });
    assert.equal(report.outside, [], `${id}: labels cut off`);
    assert.equal(report.clash, [], `${id}: labels overlap`);
    for (const arm of ["checklist", "hostile", "stock"]) {
      assert.ok(report.texts.includes(arm), `${id} names ${arm}`);
    }
    assert.ok(report.texts.filter((x) => /%$/.test(x)).length >= 5, `${id} has axis ticks`);
  }
  assert.ok(await page.locator("#pass-chart .legend").isVisible());
  await page.locator("#pass-chart").screenshot({ path: join(ARTIFACTS, "pass-chart.png") });
});

t(
  "a trial with a big ledger: the page comes at once, the ledger pages, other pages still answer",
  async () => {
    const row = d.store.rows().find((r) => r.trialDir === big.dir)!;
    await open(`${base(d)}/trials/${row.id}`, "#timeline li");
    assert.ok(await page.locator("#big-ledger").isVisible());
    const status = await page.evaluate(async () => (await fetch("/trials")).status);
    assert.is(status, 200);
    await page.locator("#big-ledger a").click();
    await page.waitForSelector("#ledger li");
    await page.locator('.pager a[rel="next"]').click();
    await page.waitForSelector("#line-500");
    assert.is(await page.locator("#ledger > li").count(), 500);
  },
);

t("a DNS-rebinding page cannot read the dashboard: other host names are refused", async () => {
  const port = new URL(a.url).port;
  const res = await page.goto(`http://rebind.test:${port}/trials`);
  assert.is(res?.status(), 403);
  assert.match(await page.locator("body").innerText(), "Cannot serve host");
  assert.is(await page.locator("a.trial-link").count(), 0);
  const ok = await page.goto(`http://rebind.test:${port}/trials?token=${TOKEN}`);
  assert.is(ok?.status(), 200, "with the token it answers");
});

t("/ingest from a page: a body over the limit is refused, a record is taken and shown live", async () => {
  await open(`${base(a)}/live`, "#live-rows");
  const statuses = await page.evaluate(async ([token, record]) => {
    const post = (body: BodyInit) =>
      fetch("/ingest", { method: "POST", body, headers: { authorization: `Bearer ${token}` } }).then((r) =>
        r.status
      );
    return [await post(new Blob([new Uint8Array(2 << 20)])), await post(record)];
  }, [TOKEN, liveRecord("page-posted-session", 5)]);
  assert.equal(statuses, [413, 204]);
  await page.waitForFunction(
    () => document.querySelector("#live-rows")?.textContent?.includes("page-posted-session"),
    null,
    { timeout: 3000 * slowdown() },
  );
});

t("payloads in tool arguments and results neither execute nor break the page", async () => {
  errors.length = 0;
  const row = a.store.rows().find((r) => r.name === HOSTILE)!;
  await open(`${base(a)}/trials/${row.id}`, "#timeline li");
  const pwned = await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned);
  assert.is(pwned, undefined);
  assert.is(await page.locator("#timeline img, #timeline svg, #timeline script").count(), 0);
  assert.ok(await page.locator("#scorecard").isVisible(), "the scorecard still renders after the timeline");
  assert.match((await page.locator("#timeline").textContent()) ?? "", "<script>window.__pwned=1</script>");
  await shot("hostile");
  assert.equal(errors.filter((e) => !e.includes("Content Security Policy")), []);
});

// Within 2 s of an idle machine: each wait stretched by how much slower than its CPU time this process runs now.
t("a record appended to a live ledger appears within 2 s, without a reload", async () => {
  await open(`${base(a)}/live`, "#live-rows");
  await page.evaluate(() => ((globalThis as { __marker?: number }).__marker = 1));
  const t0 = Date.now();
  appendFileSync(fx.liveLedger, liveRecord("live-session-1", 11));
  await page.waitForFunction(
    () => document.querySelector("#live-rows")?.textContent?.includes("UM-TEST"),
    null,
    { timeout: 2000 * slowdown() },
  );
  const waited = Date.now() - t0;
  assert.is(await page.evaluate(() => (globalThis as { __marker?: number }).__marker), 1, "no reload");
  await page.locator("#live-rows a", { hasText: "live-session-1" }).click();
  await page.waitForSelector("#timeline");
  const t1 = Date.now();
  appendFileSync(fx.liveLedger, liveRecord("live-session-1", 12));
  await page.waitForFunction(
    () => document.querySelector("#timeline")?.textContent?.includes("live marker 12"),
    null,
    { timeout: 2000 * slowdown() },
  );
  console.log(`  live: list ${waited} ms, timeline ${Date.now() - t1} ms`);
});

t(
  "a static tree: 60 s of polling show no rescan banner after the first scan; a trial that lands updates the figures in place",
  async () => {
    await e.scanned;
    const heard: string[] = [];
    const listen = (r: { url(): string; status(): number }) => {
      const u = new URL(r.url());
      if (u.pathname === "/scan" || (u.pathname === "/changes" && r.status() !== 204)) {
        heard.push(`${u.pathname} ${r.status()}`);
      }
    };
    await open(`${base(e)}/`, '#arms-figures[data-ready="true"]');
    page.on("response", listen);
    await page.evaluate(() => ((globalThis as { __marker?: number }).__marker = 1));
    const stock = page.locator("#arms tbody tr", { has: page.locator('a[href="/trials?arm=stock"]') });
    const before = Number(await stock.locator("td").nth(1).innerText());
    for (const t0 = Date.now(); Date.now() - t0 < 60_000;) {
      assert.is(await page.locator("#scan-progress").count(), 0);
      assert.not.match(await page.locator("body").innerText(), /Still reading|Reload|updating the figures/);
      await page.waitForTimeout(5000);
    }
    assert.ok(e.store.scans > 50, `${e.store.scans} scans`);
    assert.equal(heard, [], "nothing but 204s from /changes while nothing changes");
    const one = findTrials([join(still, "stock")])[0];
    cpSync(one.dir, join(dirname(one.dir), `${one.task}__landed01`), { recursive: true });
    await page.waitForFunction(
      (n) =>
        [...document.querySelectorAll("#arms tbody tr")].some((tr) =>
          tr.querySelector('a[href="/trials?arm=stock"]') && tr.children[1]?.textContent === String(n)
        ),
      before + 1,
      { timeout: 30_000 },
    );
    assert.is(await page.evaluate(() => (globalThis as { __marker?: number }).__marker), 1, "no reload");
    assert.ok(heard.includes("/changes 200"), heard.join(", "));
    page.off("response", listen);
  },
);

t(
  "four arms fit a 1440 px window: the Checks table scrolls in its box, names wrap between their parts",
  async () => {
    await staged.scanned;
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      for (const path of ["/checks", "/trials", "/"]) {
        await open(`${base(staged)}${path}`, "main table");
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 1440, `${path} is ${width} px wide`);
      }
      await open(`${base(staged)}/checks`, "#checks");
      assert.equal(
        (await page.locator("#checks th.arm").allInnerTexts()).slice(0, 4).map((x) => x.replace(/\s+/g, "")),
        ["fiable-pilot·critic", "fiable-pilot·stock", "fiable-smoke·critic", "fiable-smoke·stock"],
      );
      await shot("checks-four-arms");
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }
  },
);

t.run();
