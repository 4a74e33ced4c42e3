/** The dashboard through `app.request()`: pages, fragments, filters, escaping, path traversal, ingest, tokens. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, isLoopback, parseArgs, serve } from "../dashboard/server.tsx";
import { postLive } from "../lib/live.ts";
import { armOfPath, ledgerStats, LedgerTail, rowId } from "../dashboard/store.ts";
import { HOSTILE, liveRecord, PAYLOADS, writeFixture } from "./support/dashboard_fixture.ts";
import { KNOWN, writeHandbook } from "./support/handbook_fixture.ts";

const dir = mkdtempSync(join(tmpdir(), "fiable-dash-"));
const fx = writeFixture(dir);
const TOKEN = "test-token-0123456789";
const { app, store } = createApp({ logs: [fx.logs, join(dir, "live")], results: [] }, {
  token: TOKEN,
  scanMs: 0,
  tailMs: 0,
});
const hx = { headers: { "HX-Request": "true" } };

async function get(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; text: string; res: Response }> {
  const res = await app.request(path, init);
  return { status: res.status, text: await res.text(), res };
}

function hostileId(): string {
  store.refresh({ scanMs: 0, tailMs: 0 });
  const row = store.rows().find((r) => r.name === HOSTILE);
  if (!row) throw new Error("fixture: hostile trial not found");
  return row.id;
}

/** No payload survives unescaped: no live tag or attribute it tried to inject. */
function inert(html: string): void {
  assert.not.match(html, /<script>window/);
  assert.not.match(html, /<img src=x/);
  assert.not.match(html, /<svg onload/);
  assert.not.match(html, /onerror="window/);
  assert.not.match(html, /href="javascript:/);
}

const pages = suite("dashboard pages");

for (
  const [path, marker] of [["/", 'id="arms"'], ["/trials", 'id="trials-rows"'], ["/rules", 'id="coverage"'], [
    "/live",
    'id="live-rows"',
  ]]
) {
  pages(`${path} renders the full page with Vary: HX-Request`, async () => {
    const { status, text, res } = await get(path);
    assert.is(status, 200);
    assert.match(text, "<html");
    assert.match(text, marker);
    assert.match(res.headers.get("vary") ?? "", "HX-Request");
    assert.match(res.headers.get("content-security-policy") ?? "", "script-src 'self'");
  });
}

for (
  const [path, start] of [["/trials", '<tbody id="trials-rows"'], ["/live", '<tbody id="live-rows"'], [
    "/search?q=checklist",
    '<ul id="search-results"',
  ]]
) {
  pages(`${path} with HX-Request returns only its fragment`, async () => {
    const { status, text } = await get(path, hx);
    assert.is(status, 200);
    assert.ok(text.startsWith(start), text.slice(0, 80));
    assert.not.match(text, "<html");
  });
}

pages("htmx is served from the npm package, not a CDN", async () => {
  const { status, text, res } = await get("/static/htmx.min.js");
  assert.is(status, 200);
  assert.match(res.headers.get("content-type") ?? "", "javascript");
  assert.match(text, "htmx");
  const page = await get("/");
  assert.match(page.text, '<script src="/static/htmx.min.js">');
  assert.not.match(page.text, /https?:\/\/(unpkg|cdn)/);
});

pages("Arms shows both sample arms, the control and both charts", async () => {
  const { text } = await get("/");
  assert.match(text, "stock</a> (control)");
  assert.match(text, ">checklist</a>");
  assert.match(text, 'id="pass-chart"');
  assert.match(text, 'id="cost-chart"');
});

pages("Arms shows aggregate.ts results found under --results", async () => {
  const results = join(dir, "results", "demo");
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, "aggregate.json"),
    JSON.stringify({
      control: "stock",
      rows: [{
        arm: "stock",
        domain: "overall",
        n_trials: 9,
        n_tasks: 9,
        pass_at_1: 0.25,
        mean_cost_usd: 1.5,
      }],
      comparisons: [{
        arm: "checklist",
        control: "stock",
        domain: "overall",
        diff: 0.125,
        lo: 0,
        hi: 0.25,
        n_shared: 9,
        gained: ["a"],
        lost: [],
        p_mcnemar: 0.5,
      }],
    }),
  );
  const withResults = createApp({ logs: [fx.logs], results: [join(dir, "results")] }).app;
  const text = await (await withResults.request("/")).text();
  assert.match(text, "aggregate.ts:");
  assert.match(text, "12.5 pts");
  assert.match(text, "0.500");
});

pages("Trials filters by arm, outcome and rule", async () => {
  const stock = await get("/trials?arm=stock", hx);
  const rows = [...stock.text.matchAll(/<tr><td><a href="\/trials\/[0-9a-f]+" class="trial-link">/g)].length;
  assert.ok(rows > 0);
  assert.not.match(stock.text, "<td>checklist</td>");
  const failed = await get("/trials?outcome=failed", hx);
  assert.not.match(failed.text, ">passed<");
  const rule = store.rows().find((r) => r.rules.length)?.rules[0];
  assert.ok(rule, "some sample trial fires a rule");
  const byRule = await get(`/trials?rule=${encodeURIComponent(rule!)}`, hx);
  assert.match(byRule.text, rule!);
});

pages("Trial shows timeline, block reasons with checks, the plan and the scorecard", async () => {
  const row = store.rows().find((r) => r.source === "live" && r.blocks > 0 && r.failedChecks.length) ??
    store.rows().find((r) => r.source === "live" && r.blocks > 0)!;
  const { status, text } = await get(`/trials/${row.id}`);
  assert.is(status, 200);
  assert.match(text, 'id="timeline"');
  assert.match(text, 'id="scorecard"');
  assert.match(text, "plan given to the agent");
  assert.match(text, 'class="badge d-deny"');
  assert.match(text, /<span class="checks">\s*→/);
});

pages("Trial without a ledger falls back to its trajectory", async () => {
  const row = store.rows().find((r) => r.source === "trial" && r.trajectory)!;
  const { text } = await get(`/trials/${row.id}`);
  assert.match(text, '<code class="tool">');
});

pages("Rules counts fires and maps every check", async () => {
  const { text } = await get("/rules");
  assert.match(text, 'id="rule-fires"');
  assert.match(text, "provider_pre_submission.provider_determination_present");
});

pages("a history restore gets the full page even with HX-Request", async () => {
  const { text } = await get("/trials", {
    headers: { "HX-Request": "true", "HX-History-Restore-Request": "true" },
  });
  assert.match(text, "<html");
});

pages("search without htmx renders a page of hits", async () => {
  const { text } = await get("/search?q=cm_care_plan");
  assert.match(text, "<html");
  assert.match(text, "/trials/");
});

pages("search finds trials by rule and by tool", async () => {
  const { text } = await get("/search?q=cm_care_plan", hx);
  assert.match(text, "/trials/");
  const none = await get("/search?q=zzzznothing", hx);
  assert.match(none.text, "No trial matches");
});

pages.run();

const security = suite("dashboard security");

security("payloads in arguments, results, reasons, votes and plans are escaped on every page", async () => {
  const id = hostileId();
  for (const path of [`/trials/${id}`, `/trials/${id}`, "/trials", "/rules", "/live", `/search?q=hostile`]) {
    const { status, text } = await get(
      path,
      path.startsWith("/trials/") && path === `/trials/${id}` ? undefined : undefined,
    );
    assert.is(status, 200, path);
    inert(text);
  }
  const page = await get(`/trials/${id}`);
  assert.match(page.text, "&lt;script&gt;window.__pwned=1&lt;/script&gt;");
  assert.match(page.text, "&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;");
  assert.ok(PAYLOADS.length >= 4);
});

for (
  const path of [
    "/trials/..%2F..%2F..%2Fetc%2Fpasswd",
    "/trials/../../etc/passwd",
    "/trials/%2e%2e%2f%2e%2e%2fdeno.json",
    "/static/..%2F..%2Fdeno.json",
    "/static/../deno.json",
    `/trials/${encodeURIComponent(fx.ledger)}`,
  ]
) {
  security(`path traversal ${path} reaches nothing`, async () => {
    const { status, text } = await get(path);
    assert.is(status, 404);
    assert.not.match(text, "nodeModulesDir");
    assert.not.match(text, "root:x:0");
  });
}

security("row ids are opaque hashes", () => {
  assert.match(rowId("trial:/x/../y"), /^[0-9a-f]{14}$/);
  for (const r of store.rows()) assert.match(r.id, /^[0-9a-f]{14}$/);
});

security("read-only: every write but /ingest is refused", async () => {
  for (
    const [method, path] of [["POST", "/"], ["DELETE", "/trials"], ["PUT", "/rules"], ["PATCH", "/live"]]
  ) {
    const { status } = await get(path, { method });
    assert.is(status, 405, `${method} ${path}`);
  }
});

const ingest = (body: string, token = TOKEN) =>
  get("/ingest", {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });

security("ingest needs the bearer token", async () => {
  assert.is((await get("/ingest", { method: "POST", body: "{}" })).status, 401);
  assert.is((await ingest(liveRecord("s", 0), "wrong-token-0123456789")).status, 401);
});

security("ingest refuses oversize, non-JSON and non-record bodies", async () => {
  assert.is((await ingest("x".repeat((1 << 20) + 1))).status, 413);
  assert.is((await ingest("not json")).status, 400);
  assert.is((await ingest(JSON.stringify({ hello: 1 }))).status, 400);
});

security("an ingested record appears on Live and in its trial's timeline", async () => {
  assert.is((await ingest(liveRecord("ingested-session-7", 1))).status, 204);
  const live = await get("/live", hx);
  assert.match(live.text, "ingested-session-7");
  const row = store.rows().find((r) => r.session === "ingested-session-7")!;
  const page = await get(`/trials/${row.id}`);
  assert.match(page.text, "live marker 1");
});

security("the guard's live poster (lib/live.ts) lands in a served dashboard", async () => {
  const started = serve({ logs: [fx.logs], results: [], port: 0, host: "127.0.0.1", token: TOKEN });
  try {
    await postLive(started.url, TOKEN, JSON.parse(liveRecord("posted-session-9", 3)));
    started.store.refresh({ scanMs: 1e9, tailMs: 0 });
    assert.ok(started.store.rows().some((r) => r.session === "posted-session-9" && r.source === "ingest"));
  } finally {
    await started.server.shutdown();
  }
});

security("ingest is disabled without a token", async () => {
  const bare = createApp({ logs: [fx.logs], results: [] }).app;
  const res = await bare.request("/ingest", {
    method: "POST",
    body: liveRecord("s", 1),
    headers: { authorization: "Bearer x" },
  });
  assert.is(res.status, 403);
});

security("off loopback every request needs the token", async () => {
  const remote = createApp({ logs: [fx.logs], results: [] }, { token: TOKEN, requireToken: true }).app;
  assert.is((await remote.request("/")).status, 401);
  assert.is((await remote.request("/trials?token=nope")).status, 401);
  const ok = await remote.request(`/trials?token=${TOKEN}`);
  assert.is(ok.status, 200);
  assert.match(ok.headers.get("set-cookie") ?? "", "HttpOnly");
  assert.is((await remote.request("/", { headers: { cookie: `fiable_token=${TOKEN}` } })).status, 200);
  assert.is((await remote.request("/", { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
});

security.run();

const live = suite("dashboard live ledgers");

live("a record appended to a ledger file shows up in the timeline and on Live", async () => {
  const row = () => store.rows().find((r) => r.session === "live-session-1");
  await get("/live");
  const before = row();
  assert.ok(before, "the live ledger is listed");
  appendFileSync(fx.liveLedger, liveRecord("live-session-1", 2));
  const fragment = await get(`/trials/${before!.id}`, hx);
  assert.match(fragment.text, "live marker 2");
  assert.ok(fragment.text.startsWith('<ol id="timeline"'));
  assert.match(fragment.text, 'hx-trigger="every 1s"');
  const rows = await get("/live", hx);
  assert.match(rows.text, "UM-TEST");
});

live("a half-written line waits for its newline", () => {
  const path = join(dir, "partial.jsonl");
  appendFileSync(path, liveRecord("p", 1) + liveRecord("p", 2).slice(0, 40));
  const tail = new LedgerTail(path);
  tail.refresh();
  assert.is(tail.count, 1);
  appendFileSync(path, liveRecord("p", 2).slice(40));
  tail.refresh();
  assert.is(tail.count, 2);
  assert.is(tail.records().length, 2);
  assert.is(tail.corrupt, 0);
});

live("ledger stats count blocks, rules and the stop gate", () => {
  const tail = new LedgerTail(fx.ledger);
  tail.refresh();
  const s = ledgerStats(tail.records());
  assert.equal(tail.fold.stats(), s);
  assert.is(s.blocks, 2);
  assert.equal(s.rules, ["CM-01", "STOP-GATE"]);
  assert.is(s.seat, "cm");
});

live.run();

const cli = suite("dashboard command line");

cli("arm of a trial dir skips domain and container dirs", () => {
  assert.is(armOfPath("/r", "/r/stock/cm/t1"), "stock");
  assert.is(armOfPath("/r/stock", "/r/stock/cm/t1"), "stock");
  assert.is(armOfPath("/r", "/r/pkt/trials/cm/t1"), "pkt");
});

cli("parses sources, port, host and token", () => {
  const a = parseArgs(["--logs", dir, fx.logs, "--results", dir, "--port", "0", "--host", "0.0.0.0"], {
    FIABLE_LIVE_TOKEN: "t",
  });
  assert.is(a.logs.length, 2);
  assert.is(a.port, 0);
  assert.is(a.token, "t");
  assert.not.ok(isLoopback(a.host));
  assert.ok(isLoopback("127.0.0.1"));
});

for (
  const [args, says] of [
    [[], "no sources"],
    [["--logs", "/no/such/dir"], "does not exist"],
    [["--logs", dir, "--port", "http"], "not a port number"],
    [["--logs", dir, "--colour"], "is unknown"],
    [["stray"], "follows no option"],
  ] as [string[], string][]
) {
  cli(`refuses ${JSON.stringify(args)}`, () => {
    try {
      parseArgs(args);
      assert.unreachable("should have thrown");
    } catch (err) {
      assert.match((err as Error).message, says);
      assert.match((err as Error).message, /^Cannot /);
    }
  });
}

cli("cleanup", () => rmSync(dir, { recursive: true, force: true }));

cli.run();

const handbook = suite("dashboard handbook search");
const HX = { "HX-Request": "true" };

handbook(
  "with --handbook, the page searches the plan arm's index and returns the results fragment",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "fiable-dash-handbook-"));
    try {
      writeHandbook(root, { count: 120 });
      const { app: withBook } = createApp({ logs: [fx.logs], results: [] }, { handbook: root });
      const page = await (await withBook.request("/handbook")).text();
      assert.match(page, 'hx-get="/handbook"');
      const res = await withBook.request(`/handbook?q=${encodeURIComponent(KNOWN[0].query)}`, {
        headers: HX,
      });
      const fragment = await res.text();
      assert.ok(fragment.startsWith('<ol id="handbook-results"'), fragment.slice(0, 80));
      assert.match(fragment, KNOWN[0].path);
      assert.is(res.headers.get("vary"), "HX-Request");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

handbook("without --handbook, the page says how to configure it", async () => {
  const { app: bare } = createApp({ logs: [fx.logs], results: [] });
  assert.match(await (await bare.request("/handbook?q=x")).text(), "start the dashboard with --handbook DIR");
});

handbook("a missing handbook folder is reported, and a hostile query is escaped", async () => {
  const { app: missing } = createApp({ logs: [fx.logs], results: [] }, {
    handbook: join(dir, "no-such-book"),
  });
  const text = await (await missing.request(`/handbook?q=${encodeURIComponent(PAYLOADS[0])}`)).text();
  assert.match(text, "the folder does not exist");
  assert.not.match(text, PAYLOADS[0]);
});

handbook("--handbook is parsed as a directory", () => {
  const logs = mkdtempSync(join(tmpdir(), "fiable-dash-args-"));
  try {
    assert.match(parseArgs(["--logs", logs, "--handbook", "book"]).handbook ?? "", /book$/);
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
});

handbook.run();
