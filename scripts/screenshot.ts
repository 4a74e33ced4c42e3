/**
 * Regenerates docs/timeline.png, the README screenshot of a trial timeline: writes the sample trials,
 * serves the dashboard on a free loopback port and captures a guarded trial with blocks in headless Chromium.
 *
 * `deno run -A scripts/screenshot.ts [--out docs/timeline.png]`
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { writeSamples } from "../lib/samples.ts";
import { serve } from "../dashboard/server.tsx";
import { chromiumArgs, ensureChromium } from "../tests/support/chromium.ts";

/** Entry: writes the PNG and prints its path. */
export async function main(args: string[]): Promise<number> {
  const at = args.indexOf("--out");
  const out = resolve(
    at >= 0 && args[at + 1] ? args[at + 1] : join(import.meta.dirname ?? ".", "..", "docs", "timeline.png"),
  );
  const dir = mkdtempSync(join(tmpdir(), "fiable-shot-"));
  const profile = mkdtempSync(join(tmpdir(), "fiable-shot-chromium-"));
  const samples = join(dir, "samples");
  writeSamples(samples);
  const started = serve({ logs: [samples], results: [], port: 0, host: "127.0.0.1" });
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: await ensureChromium(),
    args: chromiumArgs(),
    headless: true,
    viewport: { width: 1280, height: 1400 },
  });
  try {
    const rows = started.store.rows();
    const row = rows.find((r) => r.rules.includes("PP-01") && r.outcome === "passed") ??
      rows.find((r) => r.blocks > 0) ?? rows[0];
    const page = browser.pages()[0] ?? await browser.newPage();
    await page.goto(`${started.url}trials/${row.id}`);
    await page.waitForSelector("#timeline li");
    await page.evaluate(() => {
      document.querySelectorAll("details.plan").forEach((d) => d.removeAttribute("open"));
    });
    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out });
    console.log(`wrote ${out} (${row.name})`);
    return 0;
  } finally {
    await browser.close();
    await started.server.shutdown();
    rmSync(dir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
