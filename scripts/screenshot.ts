/**
 * Regenerates the dashboard screenshots in docs/: every page, over the demo's data (sample trials, their
 * replay through the guard, the aggregate) and, for the Live page, a running ablation with its experiment
 * configs. Serves the dashboard on a free loopback port and captures each page in headless Chromium.
 *
 * `deno task screenshot [--out docs]`
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Page } from "playwright-core";
import { prepare } from "../demo.ts";
import { serve } from "../dashboard/server.tsx";
import { chromiumArgs, ensureChromium } from "../tests/support/chromium.ts";
import { liveRecord, writeAblation } from "../tests/support/dashboard_fixture.ts";
import { writeHandbook } from "../tests/support/handbook_fixture.ts";
import { type CommandSpec, runCli } from "../lib/cli.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "screenshot",
  summary: "Regenerates every dashboard screenshot in `docs/` over the demo's data, in headless Chromium.",
  usage: ["deno task screenshot [--out docs]"],
  options: { out: { type: "string", value: "DIR", default: "docs", description: "where the PNGs go" } },
  args: "none",
  example: "deno task screenshot --out /tmp/shots",
};

/** The pages captured, by file name. */
export const SHOTS = [
  "arms",
  "matrix",
  "trials",
  "trial",
  "trial-replay",
  "compare",
  "ledger",
  "checks",
  "rules",
  "search",
  "live",
  "handbook",
  "aggregate",
] as const;

async function shot(page: Page, out: string, name: string, url: string, opts: { height?: number } = {}) {
  await page.goto(url);
  await page.waitForFunction(() => "htmx" in globalThis);
  await page.waitForLoadState("networkidle").catch(() => {});
  await page.evaluate(() =>
    document.querySelectorAll("details.plan").forEach((d) => d.removeAttribute("open"))
  );
  const height = Math.min(opts.height ?? 1400, await page.evaluate(() => document.body.scrollHeight));
  const path = join(out, `${name}.png`);
  await page.screenshot({ path, fullPage: true, clip: { x: 0, y: 0, width: 1360, height } });
  console.log(`wrote ${path}`);
}

/** Entry: writes the PNGs and prints their paths. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => shoot(resolve(p.given("out") ? p.string("out")! : join(ROOT, "docs"))));
}

const ROOT = join(import.meta.dirname ?? ".", "..");

async function shoot(out: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-shot-"));
  const profile = mkdtempSync(join(tmpdir(), "fiable-shot-chromium-"));
  const demo = await prepare(join(dir, "demo"));
  const book = join(dir, "handbook");
  writeHandbook(book, { count: 60 });
  const demoServer = serve(
    {
      logs: [demo.samples],
      results: [demo.results, demo.replay],
      port: 0,
      host: "127.0.0.1",
      handbook: book,
    },
    { figureWaitMs: 60_000 },
  );
  const ablation = await writeAblation(join(dir, "ablation"));
  const liveServer = serve(
    { logs: [ablation.logs], results: [], port: 0, host: "127.0.0.1", experiments: [ablation.configs] },
    { figureWaitMs: 60_000, scanMs: 500 },
  );
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: await ensureChromium(),
    args: chromiumArgs(),
    headless: true,
    viewport: { width: 1360, height: 900 },
  });
  try {
    mkdirSync(out, { recursive: true });
    const page = browser.pages()[0] ?? await browser.newPage();
    const base = demoServer.url.replace(/\/$/, "");
    await demoServer.figures.get();
    const rows = demoServer.store.rows();
    // The guarded trial whose first block comes earliest, so the screenshot shows a deny and its reason.
    const firstDeny = (r: (typeof rows)[number]) => {
      const i = demoServer.store.records(r).findIndex((x) => x.decision === "deny");
      return i < 0 ? Infinity : i;
    };
    const guarded = rows.filter((r) => r.arm === "checklist" && r.blocks > 0)
      .sort((x, y) => firstDeny(x) - firstDeny(y))[0] ?? rows[0];
    const replayed = rows.find((r) => r.replays.some((m) => m.blocked) && r.failedChecks.length) ?? rows[0];
    const saved = (await (await fetch(`${base}/`)).text()).match(/href="(\/aggregate\/[0-9a-f]+)"/)?.[1];
    await shot(page, out, "arms", `${base}/`, { height: 1500 });
    await shot(page, out, "matrix", `${base}/matrix`);
    await shot(page, out, "trials", `${base}/trials?sort=blocks&dir=desc`, { height: 1000 });
    await shot(page, out, "trial", `${base}/trials/${guarded.id}`, { height: 1600 });
    await shot(page, out, "trial-replay", `${base}/trials/${replayed.id}`, { height: 1600 });
    // The checklist trial with the earliest deny beside a trial of the same task in another arm.
    const peer = rows.find((r) => r.task === guarded.task && r.arm !== guarded.arm);
    if (peer) {
      await shot(page, out, "compare", `${base}/compare?a=${peer.id}&b=${guarded.id}`, { height: 1400 });
    }
    await shot(page, out, "ledger", `${base}/trials/${guarded.id}/ledger`, { height: 1000 });
    await shot(page, out, "checks", `${base}/checks`, { height: 1000 });
    await shot(page, out, "rules", `${base}/rules`, { height: 1000 });
    await page.goto(`${base}/trials`);
    await page.fill("header input[name=q]", "afib");
    await page.waitForSelector("#search-results li a");
    await page.screenshot({ path: join(out, "search.png"), clip: { x: 0, y: 0, width: 1360, height: 700 } });
    console.log(`wrote ${join(out, "search.png")}`);
    await shot(page, out, "handbook", `${base}/handbook?q=${encodeURIComponent("prior authorization")}`, {
      height: 700,
    });
    if (saved) await shot(page, out, "aggregate", `${base}${saved}`, { height: 900 });
    await liveServer.figures.get();
    appendFileSync(ablation.runningLedger, liveRecord("running-session", 1));
    await shot(page, out, "live", `${liveServer.url}live`, { height: 1100 });
    return 0;
  } finally {
    await browser.close();
    await demoServer.server.shutdown();
    await liveServer.server.shutdown();
    rmSync(dir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
