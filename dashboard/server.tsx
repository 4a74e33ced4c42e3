/**
 * The dashboard's routes: Arms, Matrix, Trials, Trial, Compare, Checks, Rules, Live and search,
 * server-rendered; a route returns its fragment when `HX-Request` is set (with `Vary: HX-Request`). Read-only
 * apart from `POST /ingest`, which takes ledger records with a bearer token and a size limit enforced while reading. Only
 * loopback host names are answered without the token (DNS-rebinding protection).
 *
 * `deno task dashboard --logs DIR... --results DIR... [--port N] [--host H] [--token T] [--control ARM]
 *  [--recipe A|B|C] [--prices FILE] [--experiments DIR] [--live-window MIN] [--handbook DIR]`
 */
import { Hono } from "hono";
import { raw } from "hono/html";
import type { Context } from "hono";
import { join, resolve } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { RULES } from "../rules/mod.ts";
import { CHECKS } from "../rules/catalog/checks.ts";
import { toolEvents } from "../lib/trajectories/atif.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { type Prices, pricesFrom, type Recipe, RECIPES } from "../lib/results/cost.ts";
import { type Sources, Store } from "./store.ts";
import { findAggregates } from "./sources/aggregates.ts";
import { PAGE_LINES, SLICE_BYTES } from "./ledgers.ts";
import { INGEST_CAPS, type IngestCaps } from "./sources/ingest.ts";
import { type CommandSpec, parse, type Parsed, portNumber, runCli } from "../lib/cli.ts";
import { matchChecks, matchRules, RowSearch } from "./search.ts";
import { htmxSource } from "./static/htmx.ts";
import { type OpenedHandbook, openHandbook, searchHandbook } from "../lib/guard/handbook.ts";
import { joinBytes } from "../lib/guard/input.ts";
import { Figures, replayCheckCounts, replayFigures, taskMatrix } from "./figures.ts";
import { ablationProgress } from "./progress.ts";
import { checkRows } from "./checks.ts";
import { ChecksPage } from "./views/checks.tsx";
import { readExperiments } from "./experiments.ts";
import { buildTranscript, checkLinks, type Item, ledgerTranscript } from "./transcript.ts";
import { parseQuery, tablePage } from "./table.ts";
import { AggregatePage, ArmsFigures, ArmsPage } from "./views/arms.tsx";
import { CSS, MessagePage, ScanStatus, SearchResults, SYNTHETIC_NOTICE } from "./views/layout.tsx";
import { HandbookPage, HandbookResults } from "./views/handbook.tsx";
import { LedgerPage } from "./views/ledger.tsx";
import { LiveNow, LivePage } from "./views/live.tsx";
import { MatrixPage } from "./views/matrix.tsx";
import { RulesPage } from "./views/rules.tsx";
import { ruleFires } from "./rule_fires.ts";
import { ReplayNotKept, Scorecard, Timeline, TrialPage } from "./views/trial.tsx";
import { SearchPage } from "./views/search.tsx";
import { TrialsPage, TrialsView } from "./views/trials.tsx";
import { CheckTable, ComparePage, CompareWith } from "./views/compare.tsx";
import {
  checkPairs,
  compareProblem,
  isCaseStep,
  pickPair,
  stepKey,
  stepsOf,
  type TrialStep,
} from "./compare.ts";
import { align } from "./align.ts";
import { trialChecks } from "./sources/trials.ts";
import type { Row } from "./model.ts";

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

/** Default /ingest body limit: 1 MiB. */
export const INGEST_LIMIT = 1 << 20;

/** The prices this repository ships (chi-bench's prices.yaml format). */
export const PRICES_FILE = join(import.meta.dirname ?? ".", "..", "data", "prices.yaml");

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Host names a loopback dashboard answers without a token. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1"];

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The credentials of an `Authorization: Bearer …` header; the scheme is case-insensitive (RFC 9110 §11.1). */
function bearer(c: Context): string {
  return /^bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
}

/** The host name of a Host header value, without port or IPv6 brackets, lower-cased. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colon = h.lastIndexOf(":");
  return colon > 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

function isRecord(value: unknown): value is LedgerRecord {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return typeof r.session === "string" && r.session.length > 0 && r.session.length <= 200 &&
    typeof r.event === "string" && typeof r.decision === "string";
}

/** Reads a request body up to `limit` bytes, stopping (and cancelling the stream) as soon as it is exceeded. */
export async function readLimited(req: Request, limit: number): Promise<Uint8Array | null> {
  const reader = req.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return chunks.length ? joinBytes(chunks) : new Uint8Array(0);
}

/** Prices from a prices.yaml, or an empty table with why (costs then show as unknown). */
export function loadPrices(path = PRICES_FILE): { prices: Prices; note: string | null } {
  try {
    return { prices: pricesFrom(parseYaml(readFileSync(path, "utf8"))), note: null };
  } catch (err) {
    return {
      prices: {},
      note: `Cannot read prices ${path}: ${
        (err as Error).message
      }. Costs show as unknown; pass --prices FILE.`,
    };
  }
}

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
  const search = new RowSearch();
  const app = new Hono();
  const allowed = new Set([...LOOPBACK_HOSTS, ...(opts.hosts ?? []).map(hostName)]);
  let htmx: string | null = null;
  const refresh = () =>
    store.refresh({
      scanMs: opts.scanMs,
      tailMs: opts.tailMs,
      budget: opts.tailBudget ?? 4 * SLICE_BYTES,
      timeMs: opts.tailTimeMs,
    });
  let noticeAt = -1;
  let noticeText: string | null = null;
  const notice = () => {
    if (noticeAt !== store.version) {
      noticeAt = store.version;
      const parts = [
        store.rows().some((r) => r.synthetic) ? SYNTHETIC_NOTICE : null,
        priced.note,
        ...store.summaryNotes(),
      ];
      noticeText = parts.filter(Boolean).join(" ") || null;
    }
    const progress = store.progress();
    if (!progress) return noticeText;
    return (
      <>
        {noticeText ? `${noticeText} ` : null}
        <ScanStatus progress={progress} rows={store.rows().length} />
      </>
    );
  };
  const waitFigures = async () => {
    // While the sources are still being read the figures would be of part of them: answer with what is there.
    if (store.progress()) return figures.current();
    const pending = figures.get();
    const wait = opts.figureWaitMs ?? 1500;
    return await Promise.race([pending, sleep(wait).then(() => null)]) ?? figures.current();
  };

  const tokenOk = (c: Context): boolean => {
    if (!opts.token) return false;
    const cookie = /(?:^|;\s*)fiable_token=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1] ?? "";
    let fromCookie = "";
    try {
      fromCookie = decodeURIComponent(cookie);
    } catch {
      fromCookie = "";
    }
    const given = bearer(c) || c.req.query("token") || fromCookie;
    return timingSafeEqual(given, opts.token);
  };

  app.use("*", async (c, next) => {
    const host = hostName(c.req.header("host") ?? new URL(c.req.url).host);
    const needToken = opts.requireToken || !allowed.has(host);
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
      c.header(
        "set-cookie",
        `fiable_token=${encodeURIComponent(opts.token)}; HttpOnly; SameSite=Strict; Path=/`,
      );
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
  app.get("/scan", (c) => c.html(<ScanStatus progress={store.progress()} rows={store.rows().length} />));

  // The Arms figures of 60 arms are hundreds of KB of HTML: rendered once per figures and rows version.
  let armsHtml: { key: string; html: string } | null = null;
  app.get("/", async (c) => {
    refresh();
    const state = await waitFigures();
    const stale = !state || state.version !== store.trialsVersion;
    const key = `${state?.version}:${state?.ms}:${stale}:${store.version}`;
    if (armsHtml?.key !== key) {
      const fragment = (
        <ArmsFigures
          state={state}
          stale={stale}
          replay={replayFigures(store.rows())}
          orphans={store.orphanReplays.length}
        />
      );
      armsHtml = { key, html: await fragment.toString() };
    }
    if (hx(c) || c.req.query("part") === "figures") return c.html(armsHtml.html);
    return c.html(
      <ArmsPage
        figures={raw(armsHtml.html)}
        saved={store.aggregates()}
        notice={notice()}
      />,
    );
  });

  app.get("/aggregate/:id", (c) => {
    const file = findAggregates(store.sources.results).find((f) => f.id === c.req.param("id"));
    if (!file) {
      return notFound(c, "Cannot show this aggregate: none has that id. Pick one from the Arms page.");
    }
    return c.html(<AggregatePage file={file} notice={notice()} />);
  });

  app.get("/matrix", async (c) => {
    refresh();
    const state = await waitFigures();
    const matrix = state?.result ? taskMatrix(state.result) : null;
    return c.html(<MatrixPage matrix={matrix} pending={!state} notice={notice()} />);
  });

  app.get("/trials", (c) => {
    refresh();
    const query = parseQuery(c.req.query());
    const all = store.rows();
    const view = (
      <TrialsView page={tablePage(all, query)} query={query} recipe={`recipe ${recipe}`} oob={hx(c)} />
    );
    if (hx(c)) return c.html(view);
    const uniq = (f: (r: (typeof all)[number]) => string[]) => [...new Set(all.flatMap(f))].sort();
    const options = {
      arm: uniq((r) => [r.arm]),
      domain: uniq((r) => [r.domain]),
      outcome: uniq((r) => [r.outcome]),
      rule: uniq((r) => [...r.rules, ...r.replays.flatMap((m) => m.rules)]),
      check: uniq((r) => r.failedChecks),
      via: uniq((r) => r.replays.filter((m) => m.verdict).map((m) => m.arm)),
    };
    return c.html(<TrialsPage view={view} query={query} options={options} notice={notice()} />);
  });

  const notFound = (c: Context, message: string) =>
    c.html(<MessagePage title="Not found" message={message} />, 404);

  /**
   * A trial's transcript with a replay overlay: what the Trial and Compare pages show. A ledger too big to
   * merge is left out (the Trial page says so); without a trajectory either, its first page stands in.
   */
  const transcriptOf = (row: Row, overlay: string | null, trajectory = store.trajectory(row)): Item[] => {
    const small = store.small(row);
    if (!small && !trajectory) return ledgerTranscript(store.ledgerPage(row, 0).map((n) => n.record));
    return buildTranscript({
      trajectory,
      calls: trajectory ? toolEvents(trajectory).calls : [],
      records: small ? store.records(row) : [],
      overlay: overlay ? store.replayRecords(row, overlay) : [],
    });
  };

  /** The other trials of a row's task (other attempts, other arms), arm by arm. */
  const peersOf = (row: Row): Row[] =>
    store.rows().filter((r) => r.task === row.task && r.id !== row.id && r.source === "trial");

  app.get("/trials/:id", (c) => {
    refresh();
    const row = store.row(c.req.param("id"));
    if (!row) {
      return notFound(c, "Cannot show this trial: no trial has that id. Pick one from the Trials page.");
    }
    const q = c.req.query();
    const overlays = store.replayArms(row);
    const overlay = q.replay === "none"
      ? null
      : overlays.includes(q.replay ?? "")
      ? q.replay!
      : overlays[0] ?? null;
    const small = store.small(row);
    const trajectory = store.trajectory(row);
    const items = transcriptOf(row, overlay, trajectory);
    const pages = Math.max(1, Math.ceil(items.length / 250));
    const page = Math.min(pages, Math.max(1, Number.parseInt(q.page ?? "1", 10) || 1));
    const live = row.outcome === "running" && store.live().some((r) => r.id === row.id);
    const timeline = <Timeline row={row} items={items} page={page} overlay={overlay} live={live && small} />;
    if (hx(c)) return c.html(timeline);
    const big = small ? null : (
      <p class="notice" id="big-ledger">
        This trial's guard ledger is {(row.ledgerBytes / 2 ** 20).toFixed(1)} MB ({store.ledgerLines(row)}
        {" "}
        lines
        {row.indexing !== null ? " read so far" : ""}): too big to merge into the transcript, so{" "}
        {trajectory
          ? "the transcript shows the trajectory alone"
          : "only its first 500 lines are shown here"}.{" "}
        <a href={`/trials/${row.id}/ledger`}>Read the ledger page by page</a>.
      </p>
    );
    const banner = (
      <>
        {big}
        {overlay && !store.replayKept(row, overlay) ? <ReplayNotKept arm={overlay} /> : null}
      </>
    );
    return c.html(
      <TrialPage
        row={row}
        timeline={timeline}
        scorecard={
          <Scorecard
            row={row}
            book={{ rules: RULES.map((r) => r.meta), checks: CHECKS }}
            links={checkLinks(items, row.failedChecks, RULES.map((r) => r.meta))}
            overlay={overlay}
            recipe={`recipe ${recipe}`}
          />
        }
        total={items.length}
        page={page}
        overlay={overlay}
        overlays={overlays}
        banner={banner}
        compare={<CompareWith row={row} peers={peersOf(row)} />}
        notice={notice()}
      />,
    );
  });

  app.get("/compare", (c) => {
    refresh();
    const q = c.req.query();
    if (q.task && !q.a && !q.b) {
      const pair = pickPair(store.rows(), q.task, { arm: q.arm ?? "", with: q.with ?? "" });
      if (typeof pair === "string") return c.html(<MessagePage title="Cannot compare" message={pair} />, 404);
      return c.redirect(`/compare?${new URLSearchParams({ a: pair.a, b: pair.b })}`, 302);
    }
    const ids = { a: q.a ?? "", b: q.b ?? "" };
    const a = store.row(ids.a), b = store.row(ids.b);
    const problem = compareProblem(ids, a, b);
    if (problem) {
      return c.html(<MessagePage title="Cannot compare" message={problem.message} />, problem.status);
    }
    const overlays = [...new Set([...store.replayArms(a!), ...store.replayArms(b!)])].sort();
    const overlay = q.replay === "none"
      ? null
      : overlays.includes(q.replay ?? "")
      ? q.replay!
      : overlays[0] ?? null;
    const local = q.local !== "hide";
    const all = (row: Row) =>
      stepsOf(transcriptOf(row, store.replayArms(row).includes(overlay ?? "") ? overlay : null));
    const every = { a: all(a!), b: all(b!) };
    const shown = (s: TrialStep[]) => s.filter((x) => local || isCaseStep(x));
    const calls = (s: TrialStep[]) => s.filter((x) => x.kind === "call").length;
    // A ledger too big to merge leaves its trial's calls without the guard's decisions, as on the Trial page.
    const notes = ([["A", a!], ["B", b!]] as const).filter(([, row]) => !store.small(row)).map((
      [side, row],
    ) =>
      `${side}'s guard ledger is ${(row.ledgerBytes / 2 ** 20).toFixed(1)} MB, too big to merge: ` +
      (row.trajectory
        ? "its calls are shown without the guard's decisions."
        : `only its first ${PAGE_LINES} lines are aligned.`) +
      " Read it on its ledger page."
    );
    const checks = checkPairs(
      trialChecks(a!.scorecard, a!.failedChecks),
      trialChecks(b!.scorecard, b!.failedChecks),
    );
    return c.html(
      <ComparePage
        a={a!}
        b={b!}
        alignment={align(shown(every.a), shown(every.b), stepKey, { counts: isCaseStep })}
        calls={{ a: calls(every.a), b: calls(every.b) }}
        checks={<CheckTable pairs={checks.failed} passedBoth={checks.passedBoth} a={a!} b={b!} />}
        overlay={overlay}
        overlays={overlays}
        local={local}
        notes={notes}
        notice={notice()}
      />,
    );
  });

  app.get("/trials/:id/ledger", (c) => {
    refresh();
    const row = store.row(c.req.param("id"));
    if (!row) {
      return notFound(c, "Cannot show this ledger: no trial has that id. Pick one from the Trials page.");
    }
    const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);
    const decisions = store.ledgerDecisions(row);
    const asked = c.req.query("decision");
    const decision = decisions.find(([d]) => d === asked)?.[0] ?? null;
    return c.html(
      <LedgerPage
        row={row}
        records={decision ? store.ledgerPageWhere(row, decision, page - 1) : store.ledgerPage(row, page - 1)}
        page={page}
        lines={decision ? decisions.find(([d]) => d === decision)![1] : store.ledgerLines(row)}
        decisions={decisions}
        decision={decision}
        unknown={asked && !decision ? asked : null}
        indexing={row.indexing}
        notice={notice()}
      />,
    );
  });

  app.get("/rules", (c) => {
    refresh();
    return c.html(
      <RulesPage
        model={ruleFires(store.rows())}
        checks={CHECKS}
        rules={RULES.map((r) => r.meta)}
        notice={notice()}
      />,
    );
  });

  app.get("/checks", (c) => {
    refresh();
    const rows = store.rows();
    const arms = [...new Set(rows.filter((r) => r.source === "trial").map((r) => r.arm))].sort();
    const replayArms = [...new Set(rows.flatMap((r) => r.replays.filter((m) => m.verdict).map((m) => m.arm)))]
      .sort();
    const replay = Object.fromEntries(replayArms.map((a) => [a, replayCheckCounts(rows, a)]));
    return c.html(
      <ChecksPage checks={checkRows(rows, replay)} arms={arms} replayArms={replayArms} notice={notice()} />,
    );
  });

  app.get("/live", (c) => {
    refresh();
    const now = Date.now();
    const experiments = readExperiments(opts.experiments ?? []);
    const fragment = (
      <LiveNow
        progress={ablationProgress(store.rows(), experiments.slices, now, store.liveWindowMs())}
        configured={experiments.slices.length > 0}
        problems={experiments.problems}
        blocks={store.latestBlocks(now)}
        rows={store.live(now)}
        now={now}
        recipe={`recipe ${recipe}`}
      />
    );
    if (hx(c)) return c.html(fragment);
    return c.html(<LivePage now={fragment} notice={notice()} />);
  });

  app.get("/search", (c) => {
    refresh();
    const query = (c.req.query("q") ?? "").slice(0, 200);
    // The background indexes the rest; a request spends at most 25 ms catching up, then searches what is in.
    search.syncSlice(store.version, store.rows(), (r) => store.searchText(r), 25);
    const hits = search.search(query);
    const rules = query.trim() ? matchRules(query) : [];
    const checks = query.trim() ? matchChecks(query, store.rows()) : [];
    if (hx(c)) return c.html(<SearchResults hits={hits} query={query} rules={rules} checks={checks} />);
    return c.html(<SearchPage hits={hits} query={query} rules={rules} checks={checks} notice={notice()} />);
  });

  let handbook: OpenedHandbook | undefined;
  app.get("/handbook", (c) => {
    const query = (c.req.query("q") ?? "").slice(0, 200);
    if (opts.handbook && !handbook) handbook = openHandbook({ dir: opts.handbook, budgetMs: 60_000 });
    const note = !opts.handbook ? undefined : handbook?.index ? undefined : handbook?.note;
    const hits = query && handbook?.index ? searchHandbook(handbook.index, query, { limit: 20 }) : [];
    if (hx(c)) return c.html(<HandbookResults hits={hits} query={query} note={note} />);
    return c.html(
      <HandbookPage hits={hits} query={query} note={note} dir={opts.handbook} notice={notice()} />,
    );
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
    const tooBig = (n: string) =>
      c.text(`Cannot ingest ${n} bytes: the limit is ${limit}. Send one record per request.`, 413);
    if (declared > limit) return tooBig(String(declared));
    const body = await readLimited(c.req.raw, limit);
    if (!body) return tooBig(`more than ${limit}`);
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
    const caps = opts.ingestCaps ?? INGEST_CAPS;
    const held = records.findIndex((r) => !store.ingest(r, Date.now(), caps));
    if (held >= 0) {
      return c.text(
        `Cannot ingest more for session ${JSON.stringify(String(records[held].session).slice(0, 100))}: ` +
          `it holds ${caps.session} bytes of live records, the most one session may (${held} of this ` +
          `request's ${records.length} records were taken). Read its ledger from the trial dir.`,
        413,
      );
    }
    return c.body(null, 204);
  });

  app.on(
    ["PUT", "PATCH", "DELETE", "POST"],
    "*",
    (c) => c.text("Cannot change anything here: the dashboard is read-only apart from POST /ingest.", 405),
  );
  app.notFound((c) => notFound(c, "Cannot find this page. Use the navigation above."));
  return { app, store, figures, search };
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
  recipe?: Recipe;
  prices?: string;
  experiments?: string[];
  /** Minutes a trial without a result counts as live after its last write (the Live page). */
  liveWindowMin?: number;
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "dashboard",
  summary: "The Hono + htmx dashboard: arms, matrix, trials, transcripts, rules, live ablation, search; " +
    "`--control`, `--recipe`, `--prices`, `--experiments DIR`, `--live-window MIN`, `--handbook DIR`.",
  usage: ["deno task dashboard --logs DIR... --results DIR... [options]"],
  options: {
    logs: { type: "string", value: "DIR", list: true, description: "trial trees and ledgers" },
    results: { type: "string", value: "DIR", list: true, description: "aggregate and replay output" },
    experiments: {
      type: "string",
      value: "DIR",
      list: true,
      description: "ablation configs for the Live page",
    },
    "live-window": {
      type: "string",
      value: "MIN",
      default: "10",
      description: "minutes since its last write that a trial without a result counts as live (Live page)",
    },
    port: { type: "string", value: "N", default: "8787", description: "the port (0: a free one)" },
    host: { type: "string", value: "H", default: "127.0.0.1", description: "the host name to bind" },
    token: {
      type: "string",
      value: "T",
      defaultNote: "env FIABLE_LIVE_TOKEN",
      description: "bearer token for POST /ingest (required off loopback)",
    },
    control: { type: "string", value: "ARM", description: "the arm every other arm is compared against" },
    recipe: { type: "string", value: "A|B|C", default: "B", description: "cost/walltime recipe" },
    prices: {
      type: "string",
      value: "FILE",
      default: "data/prices.yaml",
      description: "chi-bench prices.yaml",
    },
    handbook: { type: "string", value: "DIR", description: "the handbook folder, for handbook search" },
  },
  args: [],
  example: "deno task dashboard --logs runs/ --results results/ --control stock",
};

/**
 * Parses `--logs DIR... --results DIR... --experiments DIR... --port N --host H --token T --control ARM
 * --recipe R --prices FILE --handbook DIR`; throws a CliError with the fix.
 */
export function parseArgs(args: string[], env: Record<string, string | undefined> = {}): ServeArgs {
  return serveArgs(parse(CLI, args), env);
}

function serveArgs(p: Parsed, env: Record<string, string | undefined>): ServeArgs {
  if (p.positionals.length) {
    throw p.error(`"${p.positionals[0]}" follows no option. Put directories after --logs or --results.`);
  }
  const out: ServeArgs = {
    logs: p.strings("logs").map((d) => resolve(d)),
    results: p.strings("results").map((d) => resolve(d)),
    experiments: p.strings("experiments").map((d) => resolve(d)),
    port: portNumber(p)!,
    host: p.string("host")!,
    token: p.string("token") ?? (env.FIABLE_LIVE_TOKEN || undefined),
    control: p.string("control"),
    handbook: p.given("handbook") ? resolve(p.string("handbook")!) : undefined,
    prices: p.given("prices") ? resolve(p.string("prices")!) : undefined,
  };
  if (p.given("recipe")) {
    const r = p.string("recipe")!.toUpperCase();
    if (!RECIPES.includes(r as Recipe)) {
      throw p.error(`--recipe "${p.string("recipe")}" is unknown. Use one of ${RECIPES.join(", ")}.`);
    }
    out.recipe = r as Recipe;
  }
  if (p.given("live-window")) {
    const text = p.string("live-window")!;
    const minutes = Number(text);
    if (!(minutes > 0 && minutes <= 24 * 60)) {
      throw p.error(`--live-window "${text}" is not a number of minutes. Use one from 1 to 1440, e.g. 30.`);
    }
    out.liveWindowMin = minutes;
  }
  if (!out.logs.length && !out.results.length) {
    throw p.error("no sources. Use --logs DIR (trial trees, ledgers) and/or --results DIR.");
  }
  for (const dir of [...out.logs, ...out.results, ...out.experiments!, ...(out.prices ? [out.prices] : [])]) {
    if (!existsSync(dir)) throw p.error(`${dir} does not exist. Check the path.`);
  }
  return out;
}

/** True for loopback host names. */
export function isLoopback(host: string): boolean {
  const h = hostName(host);
  return h === "127.0.0.1" || h === "localhost" || h === "::1" || h.startsWith("127.");
}

/**
 * Starts the server and returns at once with the URL it serves; the sources are scanned in the background
 * (`scanned` resolves when the first scan is done; rescans follow every `scanMs`), big ledgers too.
 */
export function serve(
  a: ServeArgs,
  opts: AppOptions = {},
): { server: Deno.HttpServer; url: string; store: Store; figures: Figures; scanned: Promise<void> } {
  const remote = !isLoopback(a.host);
  if (remote && !a.token) {
    throw new Error(
      `Cannot bind ${a.host} without a token: every request must carry one off loopback. Pass --token or set FIABLE_LIVE_TOKEN.`,
    );
  }
  const priced = a.prices ? loadPrices(a.prices) : undefined;
  if (priced?.note) throw new Error(priced.note);
  const scanMs = opts.scanMs ?? 3000;
  const { app, store, figures, search } = createApp({
    logs: a.logs,
    results: a.results,
    liveWindow: a.liveWindowMin === undefined ? undefined : a.liveWindowMin * 60,
  }, {
    token: a.token,
    requireToken: remote,
    hosts: [a.host],
    control: a.control,
    handbook: a.handbook,
    recipe: a.recipe,
    prices: priced?.prices,
    experiments: a.experiments,
    tailBudget: 256 << 10,
    tailTimeMs: 30,
    ...opts,
    // Requests never rescan the trees; the background below does, so no request pays for a walk of 10,000 dirs.
    scanMs: Infinity,
  });
  let stopped = false;
  let url = "";
  // Listen first: the sources are read in the background, in slices, and pages show what is read so far.
  const server = Deno.serve({
    hostname: a.host,
    port: a.port,
    onListen: ({ port }) => {
      url = `http://${a.host.includes(":") ? `[${a.host}]` : a.host}:${port}/`;
    },
  }, app.fetch);
  const slice = opts.sliceMs ?? 20;
  const pause = (ms: number) => new Promise<void>((r) => Deno.unrefTimer(setTimeout(r, ms)));
  let firstScan: () => void = () => {};
  const scanned = new Promise<void>((r) => firstScan = r);
  const background = async () => {
    let version = -1;
    while (!stopped) {
      const scanStarted = Date.now();
      await store.scanInBackground(slice);
      firstScan();
      if (stopped) break;
      if (store.trialsVersion !== version) {
        version = store.trialsVersion;
        // Once computed, the Arms figures are rendered here, so no visitor waits for hundreds of KB of HTML.
        figures.get().then(() =>
          app.request("http://127.0.0.1/?part=figures", {
            headers: a.token ? { authorization: `Bearer ${a.token}` } : {},
          })
        ).then((res) => res.body?.cancel()).catch(() => {});
      }
      while (!stopped && !search.syncSlice(store.version, store.rows(), (r) => store.searchText(r), slice)) {
        await pause(0);
      }
      // Rescans at most every scanMs, and leave the event loop at least twice the time the last one took.
      await pause(Math.max(scanMs, 2 * (Date.now() - scanStarted)));
    }
  };
  background().catch((err) => {
    console.error(`fiable dashboard: the background scan stopped: ${(err as Error).message}`);
  }).finally(firstScan);
  const pump = () => {
    if (stopped) return;
    const more = store.pump(SLICE_BYTES);
    Deno.unrefTimer(setTimeout(pump, more ? 0 : 200));
  };
  pump();
  server.finished.then(() => {
    stopped = true;
  });
  const addr = server.addr as Deno.NetAddr;
  url ||= `http://${a.host}:${addr.port}/`;
  return { server, url, store, figures, scanned };
}

/** Entry: parse args, serve, print the URL. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(serveArgs(p, Deno.env.toObject())));
}

async function run(parsed: ServeArgs): Promise<number> {
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
