/**
 * The dashboard in headless Chromium (Debian's package, driven by playwright-core): every page loads without
 * errors, a click goes from the trial list to a timeline, payloads never execute, a record appended to a live
 * ledger appears within 2 s. Screenshots go to tests/.artifacts/.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { serve } from "../dashboard/server.tsx";
import { chromiumArgs, ensureChromium } from "./support/chromium.ts";
import { HOSTILE, liveRecord, writeFixture } from "./support/dashboard_fixture.ts";

const ARTIFACTS = join(import.meta.dirname ?? ".", ".artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

const dir = mkdtempSync(join(tmpdir(), "fiable-browser-"));
const fx = writeFixture(dir);
const started = serve(
  { logs: [fx.logs, join(dir, "live")], results: [], port: 0, host: "127.0.0.1" },
  { scanMs: 500, tailMs: 100 },
);
const base = started.url.replace(/\/$/, "");
const profile = mkdtempSync(join(tmpdir(), "fiable-chromium-"));
const errors: string[] = [];
// Launched at load time, so a missing Chromium fails loudly with what is missing instead of inside a hook.
const browser: BrowserContext = await chromium.launchPersistentContext(profile, {
  executablePath: await ensureChromium(),
  args: chromiumArgs(),
  headless: true,
});
const page: Page = browser.pages()[0] ?? await browser.newPage();
page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
page.on("console", (m) => {
  if (m.type() === "error") errors.push(`console: ${m.text()}`);
});

const b = suite("dashboard in Chromium");

b.after(async () => {
  await browser.close();
  await started.server.shutdown();
  rmSync(dir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

for (
  const [path, selector, shot] of [["/", "#arms", "arms"], ["/trials", "#trials-rows", "trials"], [
    "/rules",
    "#coverage",
    "rules",
  ], ["/live", "#live-rows", "live"]]
) {
  b(`${path} loads with no errors`, async () => {
    errors.length = 0;
    const t0 = Date.now();
    const res = await page.goto(base + path);
    assert.is(res?.status(), 200);
    await page.waitForSelector(selector);
    await page.waitForFunction(() => "htmx" in globalThis);
    const t1 = Date.now();
    await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`) });
    console.log(`  ${path}: load ${t1 - t0} ms, screenshot ${Date.now() - t1} ms`);
    assert.equal(errors, []);
  });
}

b("a click goes from a trial in the list to its timeline", async () => {
  await page.goto(`${base}/trials?arm=checklist`);
  const link = page.locator("a.trial-link").first();
  const name = await link.textContent();
  await link.click();
  await page.waitForSelector("#timeline li");
  assert.is(await page.locator("h1").textContent(), name);
  assert.ok(await page.locator("#scorecard").isVisible());
  await page.screenshot({ path: join(ARTIFACTS, "trial.png"), fullPage: true });
});

b("filters swap the trial rows in place", async () => {
  await page.goto(`${base}/trials`);
  const all = await page.locator("#trials-rows tr").count();
  await page.selectOption("select[name=arm]", "stock");
  await page.waitForFunction((n) => document.querySelectorAll("#trials-rows tr").length !== n, all);
  assert.match(page.url(), "arm=stock");
  const arms = await page.locator("#trials-rows tr td:nth-child(2)").allTextContents();
  assert.ok(arms.length > 0 && arms.every((a) => a === "stock"), arms.join(","));
});

b("payloads in tool arguments and results neither execute nor break the page", async () => {
  errors.length = 0;
  await page.goto(`${base}/trials`);
  await page.locator("a.trial-link", { hasText: HOSTILE }).click();
  await page.waitForSelector("#timeline li");
  const pwned = await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned);
  assert.is(pwned, undefined);
  assert.is(await page.locator("#timeline img, #timeline svg, #timeline script").count(), 0);
  assert.ok(await page.locator("#scorecard").isVisible(), "the scorecard still renders after the timeline");
  const text = await page.locator("#timeline").textContent();
  assert.match(text ?? "", "<script>window.__pwned=1</script>");
  await page.screenshot({ path: join(ARTIFACTS, "hostile.png"), fullPage: true });
  assert.equal(errors.filter((e) => !e.includes("Content Security Policy")), []);
});

b("search shows matches as you type", async () => {
  await page.goto(`${base}/`);
  await page.fill("input[name=q]", "cm_care_plan");
  await page.waitForSelector("#search-results li a", { timeout: 3000 });
});

b("a record appended to a live ledger appears within 2 s, without a reload", async () => {
  await page.goto(`${base}/live`);
  await page.waitForSelector("#live-rows");
  await page.evaluate(() => ((globalThis as { __marker?: number }).__marker = 1));
  const t0 = Date.now();
  appendFileSync(fx.liveLedger, liveRecord("live-session-1", 11));
  await page.waitForFunction(
    () => document.querySelector("#live-rows")?.textContent?.includes("UM-TEST"),
    null,
    { timeout: 2000 },
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
    { timeout: 2000 },
  );
  console.log(`  live: list ${waited} ms, timeline ${Date.now() - t1} ms`);
  await page.screenshot({ path: join(ARTIFACTS, "live-timeline.png"), fullPage: true });
});

b.run();
