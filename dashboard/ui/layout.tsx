/**
 * The frame every page renders in (navigation, the search box and its results fragment, the notice, the scan
 * status), as hono's jsxRenderer: a route calls `c.render(body, { title, active })`. Every page renders through
 * JSX, which escapes every value from a trajectory or ledger; none uses raw HTML for them.
 */
import type { Context } from "hono";
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import { jsxRenderer } from "hono/jsx-renderer";
import type { ScanProgress } from "../read/store.ts";
import type { Hit, RuleMatch } from "../read/search.ts";
import { Outcome } from "./format.tsx";

/** What a page tells the frame: its title and the navigation entry it belongs to. */
export interface PageProps {
  title: string;
  active?: string;
}

declare module "hono" {
  interface ContextRenderer {
    (content: string | Promise<string>, props: PageProps): Response | Promise<Response>;
  }
}

/** A navigation entry. */
export interface NavEntry {
  href: string;
  label: string;
}

/** The caveat every page carries when the trials are the demo's synthetic samples. */
export const SYNTHETIC_NOTICE =
  "These are the demo's synthetic sample trials: scripted agents, some of whose " +
  "runs were generated through the guard itself, so the pass rates and differences here only illustrate the " +
  "dashboard. They say nothing about how the guard does on χ-Bench.";

/** The full page around a body: nav, search box, htmx from /static, and any notice. */
export const Layout: FC<PropsWithChildren<PageProps & { nav: readonly NavEntry[]; notice?: Child }>> = (
  { title, active, nav, notice, children },
) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta
        name="htmx-config"
        content='{"allowEval":false,"includeIndicatorStyles":false,"allowScriptTags":false}'
      />
      <title>{title} · fiable dashboard</title>
      <link rel="stylesheet" href="/static/app.css" />
      <script src="/static/htmx.min.js"></script>
    </head>
    <body>
      <header>
        <strong class="brand">fiable</strong>
        <nav>
          {nav.map(({ href, label }) => (
            <a key={href} href={href} class={active === label ? "active" : ""}>{label}</a>
          ))}
        </nav>
        <form action="/search" method="get" class="search" role="search">
          <input
            type="search"
            name="q"
            placeholder="Search trials, tasks, rules, checks…"
            aria-label="Search"
            hx-get="/search"
            hx-trigger="input changed delay:300ms, search"
            hx-target="#search-results"
            hx-swap="outerHTML"
            autocomplete="off"
          />
          <SearchResults hits={[]} query="" rules={[]} checks={[]} />
        </form>
      </header>
      {notice ? <p id="notice" class="notice" role="note">{notice}</p> : null}
      <main>{children}</main>
    </body>
  </html>
);

/**
 * While the dashboard is still reading its sources for the first time: how far it got, polled every second;
 * once done, how many trials it read (the page's figures then update in place: `/scan` says `CHANGED`).
 */
export const ScanStatus: FC<{ progress: ScanProgress | null; rows: number }> = ({ progress, rows }) =>
  progress
    ? (
      <span id="scan-progress" role="status" hx-get="/scan" hx-trigger="every 1s" hx-swap="outerHTML">
        Still reading the sources ({progress.phase}: {progress.trials.toLocaleString("en")} trial folders
        {progress.ledgers ? `, ${progress.ledgers.toLocaleString("en")} ledgers` : ""}, {Math.round(
          (Date.now() - progress.started) / 1000,
        )} s so far): this page shows the {rows.toLocaleString("en")} trials read so far.
      </span>
    )
    : (
      <span id="scan-progress" role="status" data-done="true">
        All sources read: {rows.toLocaleString("en")} trials.
      </span>
    );

/**
 * The htmx event a page's fragments listen to (`hx-trigger="fiable-changed from:body"`) to fetch themselves
 * again: the rows changed since the page was rendered (a trial landed, a ledger grew, the first scan ended).
 */
export const CHANGED = "fiable-changed";

/** The `hx-trigger` of a fragment that fetches itself again when the rows change. */
export const ON_CHANGE = `${CHANGED} from:body`;

/**
 * Every page's quiet watcher: asks `/changes` every few seconds whether the rows changed since `version`; the
 * answer is nothing (204) until they did, then a new watcher and the `CHANGED` event.
 */
export const Watcher: FC<{ version: number }> = ({ version }) => (
  <span
    id="changes"
    hidden
    hx-get={`/changes?since=${version}`}
    hx-trigger="every 3s"
    hx-swap="outerHTML"
  >
  </span>
);

/**
 * A page's part that fetches itself again (from `url`, where its route answers an htmx request with it alone)
 * when the rows change, so its figures update in place.
 */
export const Refreshed: FC<PropsWithChildren<{ id: string; url: string; poll?: boolean }>> = (
  { id, url, poll, children },
) => (
  <section id={id} hx-get={url} hx-trigger={poll ? "every 1s" : ON_CHANGE} hx-swap="outerHTML">
    {children}
  </section>
);

/**
 * The renderer every page renders through: the navigation, the notice as it is when the page renders, and
 * the watcher of the rows' version then.
 */
export function renderer(nav: readonly NavEntry[], notice: () => Child, version: () => number) {
  return jsxRenderer(({ children, title, active }: PropsWithChildren<PageProps>) => (
    <Layout title={title} active={active} nav={nav} notice={notice()}>
      {children}
      <Watcher version={version()} />
    </Layout>
  ));
}

/** A plain message page (404, 400…) with its status. */
export function message(
  c: Context,
  title: string,
  text: string,
  status: 400 | 401 | 403 | 404 = 404,
): Response | Promise<Response> {
  c.status(status);
  return c.render(
    <>
      <h1>{title}</h1>
      <p>{text}</p>
    </>,
    { title },
  );
}

/** The 404 page: what was not found and where to go instead. */
export function notFound(c: Context, text: string): Response | Promise<Response> {
  return message(c, "Not found", text, 404);
}

/** Search hits: `<ul id="search-results">`, with rules and checks the query names first. */
export const SearchResults: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[]; id?: string }
> = ({ hits, query, rules, checks, id }) => (
  <ul id={id ?? "search-results"} class={query ? "results open" : "results"}>
    {rules.map((r) => (
      <li class="rule-hit">
        rule <a href={`/trials?rule=${encodeURIComponent(r.id)}`}>{r.id}</a>{" "}
        <span class="muted">{r.name}</span>
      </li>
    ))}
    {checks.map((c) => (
      <li class="check-hit">
        check <a href={`/trials?check=${encodeURIComponent(c)}`}>{c}</a>
      </li>
    ))}
    {query && !hits.length ? <li class="muted">No trial matches “{query}”.</li> : null}
    {hits.map(({ row }) => (
      <li class="trial-hit">
        <a href={`/trials/${row.id}`}>{row.name}</a> <span class="muted">{row.arm} · {row.task}</span>{" "}
        <Outcome value={row.outcome} />
      </li>
    ))}
  </ul>
);
