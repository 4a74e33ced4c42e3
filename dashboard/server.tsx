/**
 * The dashboard's routes: Arms, Trials, Trial, Rules, Live and search, server-rendered; a route returns
 * its fragment when `HX-Request` is set (with `Vary: HX-Request`). Read-only apart from `POST /ingest`,
 * which takes ledger records with a bearer token and a size limit.
 *
 * `deno task dashboard --logs DIR... --results DIR [--port N] [--host H] [--token T] [--control ARM] [--handbook DIR]`
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { resolve } from "node:path";
import { existsSync } from "node:fs";
import { RULES } from "../rules/mod.ts";
import { CHECKS } from "../rules/checks.ts";
import { taskPrompt, toolEvents } from "../lib/atif.ts";
import type { LedgerRecord } from "../lib/ledger.ts";
import { armSummaries, findAggregates, type Row, type Sources, Store } from "./store.ts";
import { RowSearch } from "./search.ts";
import { htmxSource } from "./static/htmx.ts";
import { type OpenedHandbook, openHandbook, searchHandbook } from "../lib/handbook.ts";
import {
  ArmsPage,
  CSS,
  HandbookPage,
  HandbookResults,
  LivePage,
  LiveRows,
  MessagePage,
  type RuleFires,
  RulesPage,
  SearchPage,
  SearchResults,
  Timeline,
  type TrialFilter,
  TrialPage,
  TrialRows,
  TrialsPage,
} from "./views.tsx";

/** Dashboard options beyond the sources. */
export interface AppOptions {
  /** Bearer token for /ingest; when `requireToken`, for every request. */
  token?: string;
  /** True when bound beyond loopback: every request must carry the token. */
  requireToken?: boolean;
  /** The control arm for paired differences (default `stock`, else the first arm). */
  control?: string;
  /** Largest accepted /ingest body in bytes. */
  ingestLimit?: number;
  /** The handbook folder for the Handbook search page (none: the page says how to configure it). */
  handbook?: string;
  /** Store refresh throttles (tests set 0 to see every change at once). */
  scanMs?: number;
  tailMs?: number;
}

/** The most rows the Trials page renders at once. */
export const PAGE_ROWS = 1000;
/** Default /ingest body limit: 1 MiB. */
export const INGEST_LIMIT = 1 << 20;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function bearer(c: Context): string {
  const h = c.req.header("authorization") ?? "";
  return h.startsWith("Bearer ") ? h.slice(7).trim() : "";
}

function isRecord(value: unknown): value is LedgerRecord {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return typeof r.session === "string" && r.session.length > 0 && r.session.length <= 200 &&
    typeof r.event === "string" && typeof r.decision === "string";
}

/** Builds the app over a store (or sources): routes only, no listening socket. */
export function createApp(sources: Sources | Store, opts: AppOptions = {}): { app: Hono; store: Store } {
  const store = sources instanceof Store ? sources : new Store(sources);
  const search = new RowSearch();
  const app = new Hono();
  let htmx: string | null = null;
  const refresh = () => store.refresh({ scanMs: opts.scanMs, tailMs: opts.tailMs });

  app.use("*", async (c, next) => {
    if (opts.requireToken && c.req.path !== "/ingest") {
      const cookie = /(?:^|;\s*)fiable_token=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1] ?? "";
      const given = bearer(c) || c.req.query("token") || decodeURIComponent(cookie);
      if (!opts.token || !timingSafeEqual(given, opts.token)) {
        return c.text(
          "Cannot show the dashboard: a token is required on this address. Open it with ?token=<token>.",
          401,
        );
      }
      if (c.req.query("token")) {
        c.header(
          "set-cookie",
          `fiable_token=${encodeURIComponent(opts.token)}; HttpOnly; SameSite=Strict; Path=/`,
        );
      }
    }
    await next();
    c.header("Vary", "HX-Request");
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    c.header("Cache-Control", "no-store");
  });

  // A history restore asks for the whole page even though it comes from htmx.
  const hx = (c: Context) =>
    c.req.header("hx-request") === "true" && c.req.header("hx-history-restore-request") !== "true";

  app.get("/static/htmx.min.js", (c) => {
    htmx ??= htmxSource();
    c.header("Content-Type", "text/javascript; charset=utf-8");
    return c.body(htmx);
  });
  app.get("/static/app.css", (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(CSS);
  });

  app.get("/favicon.ico", (c) => c.body(null, 204));

  app.get("/", (c) => {
    refresh();
    return c.html(
      <ArmsPage
        arms={armSummaries(store.rows(), opts.control)}
        rows={store.rows().length}
        aggregates={findAggregates(store.sources.results)}
      />,
    );
  });

  app.get("/trials", (c) => {
    refresh();
    const q = c.req.query();
    const filter: TrialFilter = {
      arm: q.arm || undefined,
      domain: q.domain || undefined,
      outcome: q.outcome || undefined,
      rule: q.rule || undefined,
    };
    const all = store.rows();
    const rows = all.filter((r) =>
      (!filter.arm || r.arm === filter.arm) && (!filter.domain || r.domain === filter.domain) &&
      (!filter.outcome || r.outcome === filter.outcome) && (!filter.rule || r.rules.includes(filter.rule))
    );
    const shown = rows.slice(0, PAGE_ROWS);
    if (hx(c)) return c.html(<TrialRows rows={shown} total={rows.length} />);
    const uniq = (f: (r: Row) => string[]) => [...new Set(all.flatMap(f))].sort();
    const options = {
      arm: uniq((r) => [r.arm]),
      domain: uniq((r) => [r.domain]),
      outcome: uniq((r) => [r.outcome]),
      rule: uniq((r) => r.rules),
    };
    return c.html(<TrialsPage rows={shown} total={rows.length} filter={filter} options={options} />);
  });

  app.get("/trials/:id", (c) => {
    refresh();
    const row = store.row(c.req.param("id"));
    if (!row) {
      return c.html(
        <MessagePage
          title="Not found"
          message="Cannot show this trial: no trial has that id. Pick one from the Trials page."
        />,
        404,
      );
    }
    const records = store.records(row);
    const live = store.live().some((r) => r.id === row.id);
    let prompt = "";
    let calls;
    if (!records.length) {
      const t = store.trajectory(row);
      if (t) {
        prompt = taskPrompt(t);
        calls = toolEvents(t).calls;
      }
    }
    const timeline = <Timeline row={row} records={records} prompt={prompt} calls={calls} live={live} />;
    if (hx(c)) return c.html(timeline);
    return c.html(
      <TrialPage row={row} book={{ rules: RULES.map((r) => r.meta), checks: CHECKS }} timeline={timeline} />,
    );
  });

  app.get("/rules", (c) => {
    refresh();
    const rows = store.rows();
    const meta = new Map<string, RuleFires>();
    for (const r of RULES) {
      meta.set(r.meta.id, {
        id: r.meta.id,
        name: r.meta.name,
        seat: r.meta.seat,
        protects: r.meta.protects,
        failed: 0,
        passed: 0,
        other: 0,
      });
    }
    const failures = new Map<string, number>();
    for (const row of rows) {
      for (const id of row.rules) {
        const f = meta.get(id) ??
          {
            id,
            name: id === "STOP-GATE" ? "closure gate" : "",
            seat: "all",
            protects: [],
            failed: 0,
            passed: 0,
            other: 0,
          };
        if (row.outcome === "failed") f.failed++;
        else if (row.outcome === "passed") f.passed++;
        else f.other++;
        meta.set(id, f);
      }
      if (row.source === "trial" || row.source === "live") {
        for (const id of row.failedChecks) failures.set(id, (failures.get(id) ?? 0) + 1);
      }
    }
    return c.html(
      <RulesPage
        fires={[...meta.values()]}
        checks={CHECKS}
        rules={RULES.map((r) => r.meta)}
        failures={failures}
      />,
    );
  });

  app.get("/live", (c) => {
    refresh();
    const now = Date.now();
    const rows = store.live(now);
    if (hx(c)) return c.html(<LiveRows rows={rows} now={now} />);
    return c.html(<LivePage rows={rows} now={now} />);
  });

  app.get("/search", (c) => {
    refresh();
    const query = (c.req.query("q") ?? "").slice(0, 200);
    search.sync(store.version, store.rows(), (r) => store.searchText(r));
    const hits = search.search(query);
    const fragment = <SearchResults hits={hits} query={query} />;
    if (hx(c)) return c.html(fragment);
    return c.html(<SearchPage hits={hits} query={query} />);
  });

  let handbook: OpenedHandbook | undefined;
  app.get("/handbook", (c) => {
    const query = (c.req.query("q") ?? "").slice(0, 200);
    if (opts.handbook && !handbook) handbook = openHandbook({ dir: opts.handbook, budgetMs: 60_000 });
    const note = !opts.handbook ? undefined : handbook?.index ? undefined : handbook?.note;
    const hits = query && handbook?.index ? searchHandbook(handbook.index, query, { limit: 20 }) : [];
    if (hx(c)) return c.html(<HandbookResults hits={hits} query={query} note={note} />);
    return c.html(<HandbookPage hits={hits} query={query} note={note} dir={opts.handbook} />);
  });

  app.post("/ingest", async (c) => {
    if (!opts.token) {
      return c.text(
        "Cannot ingest: the dashboard has no token. Start it with --token or FIABLE_LIVE_TOKEN.",
        403,
      );
    }
    if (!timingSafeEqual(bearer(c), opts.token)) {
      return c.text("Cannot ingest: missing or wrong bearer token.", 401);
    }
    const limit = opts.ingestLimit ?? INGEST_LIMIT;
    const declared = Number(c.req.header("content-length") ?? 0);
    if (declared > limit) {
      return c.text(
        `Cannot ingest ${declared} bytes: the limit is ${limit}. Send one record per request.`,
        413,
      );
    }
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.length > limit) {
      return c.text(
        `Cannot ingest ${body.length} bytes: the limit is ${limit}. Send one record per request.`,
        413,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return c.text("Cannot ingest: the body is not JSON. Send one ledger record as a JSON object.", 400);
    }
    const records = Array.isArray(parsed) ? parsed : [parsed];
    if (!records.length || !records.every(isRecord)) {
      return c.text(
        "Cannot ingest: each record needs string session, event and decision fields. Send ledger records.",
        400,
      );
    }
    for (const r of records) store.ingest(r);
    return c.body(null, 204);
  });

  app.on(
    ["PUT", "PATCH", "DELETE", "POST"],
    "*",
    (c) => c.text("Cannot change anything here: the dashboard is read-only apart from POST /ingest.", 405),
  );
  app.notFound((c) =>
    c.html(<MessagePage title="Not found" message="Cannot find this page. Use the navigation above." />, 404)
  );
  return { app, store };
}

/** Parsed command line. */
export interface ServeArgs {
  logs: string[];
  results: string[];
  port: number;
  host: string;
  token?: string;
  control?: string;
  handbook?: string;
}

/**
 * Parses `--logs DIR... --results DIR... --port N --host H --token T --control ARM --handbook DIR`; throws a
 * usage message.
 */
export function parseArgs(args: string[], env: Record<string, string | undefined> = {}): ServeArgs {
  const out: ServeArgs = {
    logs: [],
    results: [],
    port: 8787,
    host: "127.0.0.1",
    token: env.FIABLE_LIVE_TOKEN || undefined,
  };
  let list: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--logs") list = out.logs;
    else if (a === "--results") list = out.results;
    else if (a === "--port" || a === "--host" || a === "--token" || a === "--control" || a === "--handbook") {
      const v = args[++i];
      if (v === undefined) throw new Error(`Cannot start the dashboard: ${a} needs a value.`);
      if (a === "--port") {
        out.port = Number(v);
        if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) {
          throw new Error(`Cannot start the dashboard: --port "${v}" is not a port number. Use 0–65535.`);
        }
      } else if (a === "--host") out.host = v;
      else if (a === "--token") out.token = v;
      else if (a === "--handbook") out.handbook = resolve(v);
      else out.control = v;
      list = null;
    } else if (a.startsWith("--")) {
      throw new Error(
        `Cannot start the dashboard: ${a} is unknown. Use --logs, --results, --port, --host, --token, --control or --handbook.`,
      );
    } else if (list) list.push(resolve(a));
    else {throw new Error(
        `Cannot start the dashboard: "${a}" follows no option. Put directories after --logs or --results.`,
      );}
  }
  if (!out.logs.length && !out.results.length) {
    throw new Error(
      "Cannot start the dashboard: no sources. Pass --logs DIR (trial trees, ledgers) and/or --results DIR.",
    );
  }
  for (const dir of [...out.logs, ...out.results]) {
    if (!existsSync(dir)) throw new Error(`Cannot read ${dir}: it does not exist. Check the path.`);
  }
  return out;
}

/** True for loopback host names. */
export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "::1" || host.startsWith("127.");
}

/** Starts the server; returns it with the URL it serves. */
export function serve(
  a: ServeArgs,
  opts: AppOptions = {},
): { server: Deno.HttpServer; url: string; store: Store } {
  const remote = !isLoopback(a.host);
  if (remote && !a.token) {
    throw new Error(
      `Cannot bind ${a.host} without a token: every request must carry one off loopback. Pass --token or set FIABLE_LIVE_TOKEN.`,
    );
  }
  const { app, store } = createApp({ logs: a.logs, results: a.results }, {
    token: a.token,
    requireToken: remote,
    control: a.control,
    handbook: a.handbook,
    ...opts,
  });
  store.refresh();
  const timer = setInterval(() => {
    if (!store.fillToolCalls(10)) clearInterval(timer);
  }, 50);
  Deno.unrefTimer(timer);
  let url = "";
  const server = Deno.serve({
    hostname: a.host,
    port: a.port,
    onListen: ({ port }) => {
      url = `http://${a.host.includes(":") ? `[${a.host}]` : a.host}:${port}/`;
    },
  }, app.fetch);
  const addr = server.addr as Deno.NetAddr;
  url ||= `http://${a.host}:${addr.port}/`;
  return { server, url, store };
}

/** Entry: parse args, serve, print the URL. */
export async function main(args: string[]): Promise<number> {
  let parsed: ServeArgs;
  try {
    parsed = parseArgs(args, Deno.env.toObject());
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  try {
    const { server, url } = serve(parsed);
    console.log(
      `fiable dashboard: ${url}${parsed.token && !isLoopback(parsed.host) ? "?token=<token>" : ""}`,
    );
    await server.finished;
    return 0;
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
