/** The htmx script served by the dashboard, read from the pinned npm package (no CDN). */
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

/** htmx.min.js from the installed `htmx.org` package. */
export function htmxSource(): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve("htmx.org/dist/htmx.min.js"), "utf8");
}

/** Names the package in the module graph so Deno installs it on a fresh clone; never called (htmx needs a DOM). */
export function packageImport(): Promise<unknown> {
  return import("htmx.org");
}
