/**
 * What a page is and what it is given. A page is a folder under pages/ whose route.tsx exports a `Page`: its
 * place in the navigation (if any) and its routes, a hono sub-app built over the one `PageContext` every page
 * shares (the store and what is computed from it, the options). pages/mod.ts lists them; app.tsx mounts them.
 */
import type { Context, Hono } from "hono";
import type { IngestCaps } from "./read/sources/ingest.ts";
import type { Prices, Recipe } from "../lib/results/cost.ts";
import type { Store } from "./read/store.ts";
import type { Figures, FiguresState } from "./read/figures.ts";
import type { RowSearch } from "./read/search.ts";

/** Dashboard options beyond the sources. */
export interface AppOptions {
  /** Bearer token for /ingest; when `requireToken`, for every request; with any other Host, required too. */
  token?: string;
  /** True when bound beyond loopback: every request must carry the token. */
  requireToken?: boolean;
  /** Host names answered without the token besides localhost, 127.0.0.1 and [::1] (the bound host). */
  hosts?: string[];
  /** The control arm for paired differences (default `stock` when present). */
  control?: string;
  /** Cost recipe for every figure (default B) and the prices (default data/prices.yaml). */
  recipe?: Recipe;
  prices?: Prices;
  /** chi-bench experiment config dirs, for the Live page's expected totals. */
  experiments?: string[];
  /** Largest accepted /ingest body in bytes. */
  ingestLimit?: number;
  /** What the live ledgers of /ingest may hold (default `INGEST_CAPS`). */
  ingestCaps?: IngestCaps;
  /** The handbook folder for the Handbook search page (none: the page says how to configure it). */
  handbook?: string;
  /** Store refresh throttles (tests set 0 to see every change at once). */
  scanMs?: number;
  tailMs?: number;
  /** Ledger bytes and milliseconds a request may spend reading before answering (the background reads the rest). */
  tailBudget?: number;
  tailTimeMs?: number;
  /** How long a page waits for the figures before answering with a placeholder that polls. */
  figureWaitMs?: number;
  /** Milliseconds of background scanning (and search indexing) between two turns of the event loop. */
  sliceMs?: number;
  /** Deno flags for the figures' child process (the demo's: no node_modules, its own lockfile). */
  figuresDenoFlags?: string[];
}

/** What every page's routes are built over. */
export interface PageContext {
  store: Store;
  figures: Figures;
  search: RowSearch;
  options: AppOptions;
  /** The cost recipe every figure uses. */
  recipe: Recipe;
  /** Brings the store up to date within the request's budget (throttled). */
  refresh(): void;
  /** The figures for the trials read so far: waits a little for them, else the last ones (null before any). */
  waitFigures(): Promise<FiguresState | null>;
}

/** One page: where it sits in the navigation, and its routes. */
export interface Page {
  nav?: { href: string; label: string };
  routes(ctx: PageContext): Hono;
}

/** True when htmx asks for a fragment; a history restore asks for the whole page although htmx sends it. */
export function hx(c: Context): boolean {
  return c.req.header("hx-request") === "true" && c.req.header("hx-history-restore-request") !== "true";
}
