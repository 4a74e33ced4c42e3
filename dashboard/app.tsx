/**
 * The dashboard as one hono app, no socket: the store and the figures over the sources, who may read it
 * (loopback host names, else the token: DNS-rebinding protection), the security headers, the frame every page
 * renders in, then each page of pages/mod.ts mounted as its own sub-app. Read-only apart from `POST /ingest`.
 */
import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import { bearerToken, hostName, isLoopback, sameSecret } from "../lib/guard/resident/access.ts";
import { type Sources, Store } from "./read/store.ts";
import { Figures } from "./read/figures.ts";
import { RowSearch } from "./read/search.ts";
import { SLICE_BYTES } from "./read/ledgers.ts";
import { loadPrices } from "./read/prices.ts";
import type { AppOptions, PageContext } from "./context.ts";
import { PAGES } from "./pages/mod.ts";
import { notFound, renderer } from "./ui/layout.tsx";
import { notice } from "./ui/notice.tsx";

export type { AppOptions } from "./context.ts";

/** The cookie a `?token=` link leaves, so the pages it opens carry the token without it in every URL. */
const TOKEN_COOKIE = "fiable_token";

/**
 * Who may read the pages: any request naming a loopback host (or one of `hosts`); any other, and every one when
 * `requireToken`, only with the token (bearer, `?token=`, or the cookie a `?token=` link sets). /ingest checks
 * its own bearer token.
 */
function access(opts: AppOptions): MiddlewareHandler {
  const allowed = new Set((opts.hosts ?? []).map(hostName));
  const tokenOk = (c: Context): boolean => {
    if (!opts.token) return false;
    const given = bearerToken(c.req.header("authorization")) || c.req.query("token") ||
      getCookie(c, TOKEN_COOKIE) || "";
    return sameSecret(given, opts.token);
  };
  return async (c, next) => {
    const host = hostName(c.req.header("host") ?? new URL(c.req.url).host);
    const needToken = opts.requireToken || !(isLoopback(host) || allowed.has(host));
    if (needToken && c.req.path !== "/ingest" && !tokenOk(c)) {
      return opts.requireToken
        ? c.text(
          "Cannot show the dashboard: a token is required on this address. Open it with ?token=<token>.",
          401,
        )
        : c.text(
          `Cannot serve host "${
            host.slice(0, 100)
          }": without a token this dashboard answers only localhost, ` +
            "127.0.0.1 and [::1], so a page on another site cannot read it. Open it at http://127.0.0.1:<port>/ " +
            "or start it with --token and pass ?token=<token>.",
          403,
        );
    }
    if (needToken && c.req.query("token") && opts.token) {
      setCookie(c, TOKEN_COOKIE, opts.token, { httpOnly: true, sameSite: "Strict", path: "/" });
    }
    await next();
    // A page and its htmx fragment share a URL: caches must tell them apart, and keep neither.
    c.header("Vary", "HX-Request");
    c.header("Cache-Control", "no-store");
  };
}

/** The headers every answer carries: scripts and styles from this origin only, never framed, no referrer. */
const SECURITY = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
  // Served over plain http on loopback: HSTS would mean nothing there.
  strictTransportSecurity: false,
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Builds the app over a store (or sources): routes only, no listening socket. */
export function createApp(
  sources: Sources | Store,
  opts: AppOptions = {},
): { app: Hono; store: Store; figures: Figures; search: RowSearch } {
  const recipe = opts.recipe ?? "B";
  const priced = opts.prices ? { prices: opts.prices, note: null } : loadPrices();
  const store = sources instanceof Store
    ? sources
    : new Store({ ...sources, recipe, prices: sources.prices ?? priced.prices });
  const figures = new Figures(store, {
    recipe,
    prices: store.sources.prices ?? priced.prices,
    control: opts.control,
    denoFlags: opts.figuresDenoFlags,
  });
  const ctx: PageContext = {
    store,
    figures,
    search: new RowSearch(),
    options: opts,
    recipe,
    refresh: () =>
      store.refresh({
        scanMs: opts.scanMs,
        tailMs: opts.tailMs,
        budget: opts.tailBudget ?? 4 * SLICE_BYTES,
        timeMs: opts.tailTimeMs,
      }),
    waitFigures: async () => {
      // While the sources are still being read the figures would be of part of them: answer with what is there.
      if (store.progress()) return figures.current();
      const pending = figures.get();
      return await Promise.race([pending, sleep(opts.figureWaitMs ?? 1500).then(() => null)]) ??
        figures.current();
    },
  };
  const app = new Hono();
  app.use("*", SECURITY, access(opts));
  const nav = PAGES.flatMap((p) => p.nav ? [p.nav] : []);
  app.use("*", renderer(nav, () => notice(store, priced.note), () => store.version));
  for (const page of PAGES) app.route("/", page.routes(ctx));
  app.on(
    ["PUT", "PATCH", "DELETE", "POST"],
    "*",
    (c) => c.text("Cannot change anything here: the dashboard is read-only apart from POST /ingest.", 405),
  );
  app.notFound((c) => notFound(c, "Cannot find this page. Use the navigation above."));
  return { app, store, figures, search: ctx.search };
}
