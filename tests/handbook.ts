/** Handbook retrieval on a synthetic handbook: ranking, case queries, cache, fail-open records, engine wiring. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildIndex,
  CACHE_NAME,
  caseQueries,
  codesIn,
  guardHandbook,
  type HandbookIndex,
  handbookLookup,
  handbookPages,
  openHandbook,
  parsePage,
  resetHandbooks,
  searchHandbook,
} from "../lib/guard/handbook.ts";
import { decide, DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { main as handbookCli } from "../handbook.ts";
import { handbookSources, KNOWN, writeHandbook } from "./support/handbook_fixture.ts";

const PROVIDER_PROMPT = "# 📋 Clinical Intake — Laparoscopic sleeve gastrectomy\n\n" +
  "A 45-year-old female with morbid obesity (BMI 42.3) after two supervised weight-loss programs; " +
  "the surgeon orders 43775 for E66.01.\n\n## 🧰 Workspace\n\n| Patient data & provider tools | `healthverse` |\n\n" +
  "## 📋 Rules\n\n- Use only provider namespaces: `chart`, `cases`\n";
const CM_PROMPT =
  "# Ms. Zhang Care Management Handoff\n\nMs. Zhang is a 50-year-old woman with paroxysmal atrial " +
  "fibrillation; the referral asks for anticoagulation management.\n\n## 🧰 Workspace\n\n" +
  "## 📋 Rules\n\n- Use only care-manager namespaces: `cm_intake`\n";

const root = mkdtempSync(join(tmpdir(), "fiable-handbook-"));
const dir = join(root, "managed-care-operations-handbook");
writeHandbook(dir, { count: 300 });
let index: HandbookIndex;

const ranking = suite("handbook ranking");

ranking.before(() => {
  index = buildIndex(handbookSources({ count: 300 })).index;
});

for (const known of KNOWN) {
  ranking(`"${known.query}" ranks ${known.path} first`, () => {
    assert.is(searchHandbook(index, known.query, { limit: 3 })[0]?.path, known.path);
  });
}

ranking("a folder filter keeps only pages under it", () => {
  const hits = searchHandbook(index, "review standards", { under: ["references/care-manager/"] });
  assert.ok(hits.every((h) => h.path.startsWith("references/care-manager/")));
});

ranking("the why line names words, never codes", () => {
  const [hit] = searchHandbook(index, "sleeve gastrectomy 43775");
  assert.match(hit.why, /title matches|sections on|text mentions/);
  assert.match(hit.why, /code from the task/);
  assert.not.match(hit.why, /43775/);
});

ranking.run();

const parsing = suite("handbook pages and queries");

const PAGES: [string, string, string][] = [
  ["H1 wins", "# Bariatric Surgery\n\n## Coverage\n\ntext", "Bariatric Surgery"],
  ["frontmatter name", "---\nname: outreach-protocol\n---\n\n## Consent\n", "outreach-protocol"],
  ["file name last", "plain text only", "sleep studies"],
];
for (const [name, text, title] of PAGES) {
  parsing(`title: ${name}`, () => {
    assert.is(parsePage("references/medical-library/sleep-studies.md", text).title, title);
  });
}

parsing("headings and body are split and the body is capped", () => {
  const page = parsePage("a.md", "# T\n\n## One\n\nbody words\n### Two\n" + "x".repeat(50), 20);
  assert.is(page.headings, "One\nTwo");
  assert.ok(page.body.length <= 20);
});

parsing("codes: CPT, HCPCS and ICD-10, no plain numbers", () => {
  assert.equal(codesIn("orders 43775 and J1745 for E66.01 on day 12, BMI 42.3"), [
    "43775",
    "J1745",
    "E66.01",
  ]);
});

parsing("case queries: role words by seat and phase, subject and codes from the prompt", () => {
  const q = caseQueries(PROVIDER_PROMPT, "provider", "new_referral");
  assert.match(q.role, /prior authorization/);
  assert.match(q.clinical, /Laparoscopic sleeve gastrectomy/);
  assert.match(q.clinical, /43775/);
  assert.match(caseQueries(PROVIDER_PROMPT, "payer", "p2p").role, /peer-to-peer/);
});

parsing("provider case: role chapter first, then the clinical policy", () => {
  const pages = handbookPages(index, { prompt: PROVIDER_PROMPT, seat: "provider", phase: "new_referral" });
  assert.ok(pages[0].path.startsWith("references/provider-pa/"), pages[0].path);
  const clinical = pages.find((p) => p.path.startsWith("references/medical-library/"));
  assert.is(clinical?.path, "references/medical-library/medical-policies/bariatric-surgery.md");
});

parsing("care-manager case: care-manager chapters and the condition's guideline", () => {
  const pages = handbookPages(index, { prompt: CM_PROMPT, seat: "cm", phase: "cm" }).map((p) => p.path);
  assert.ok(pages.some((p) => p.startsWith("references/care-manager/")));
  assert.ok(
    pages.includes("references/medical-library/clinical-guidelines/atrial-fibrillation.md"),
    pages.join(),
  );
});

parsing.run();

const opening = suite("handbook open, cache and fail-open");

opening.before.each(() => resetHandbooks());

opening("a missing folder fails open with a clear note", () => {
  const opened = openHandbook({ dir: join(root, "nope"), budgetMs: 1000 });
  assert.is(opened.index, null);
  assert.is(opened.status, "absent");
  assert.match(opened.note ?? "", /folder does not exist.*without handbook pages.*FIABLE_HANDBOOK_DIR/);
});

opening("an empty folder fails open", () => {
  const empty = join(root, "empty");
  mkdirSync(empty, { recursive: true });
  const opened = openHandbook({ dir: empty, budgetMs: 1000 });
  assert.is(opened.status, "empty");
  assert.match(opened.note ?? "", /no markdown pages/);
});

opening("a build that overruns its budget fails open", () => {
  let t = 0;
  const opened = openHandbook({ dir, budgetMs: 50, clock: () => (t += 10) });
  assert.is(opened.index, null);
  assert.is(opened.status, "timeout");
  assert.match(opened.note ?? "", /Cannot finish the handbook index within 50 ms/);
});

opening("a build cut short resumes from the partial cache on the next event", () => {
  const ledger = join(root, "ledger-resume");
  mkdirSync(ledger, { recursive: true });
  let t = 0;
  const step = () =>
    openHandbook({ dir, cacheFile: join(ledger, CACHE_NAME), budgetMs: 24, clock: () => ++t });
  const notes: string[] = [];
  for (let i = 0; i < 12; i++) {
    const opened = step();
    notes.push(opened.note ?? "");
    if (opened.index) break;
    assert.is(opened.status, "timeout");
  }
  assert.ok(notes.length > 1, `finished in ${notes.length} steps`);
  assert.match(notes[0], /the next event resumes from the cache/);
  assert.match(notes.at(-1)!, /index finished from a partial cache/);
  assert.is(step().note, "index loaded from cache");
});

opening("the index is cached beside the ledger and reloaded; a changed handbook rebuilds", () => {
  const ledger = join(root, "ledger");
  mkdirSync(ledger, { recursive: true });
  const cacheFile = join(ledger, CACHE_NAME);
  assert.is(openHandbook({ dir, cacheFile, budgetMs: 10_000 }).note, "index built");
  assert.ok(existsSync(cacheFile));
  const again = openHandbook({ dir, cacheFile, budgetMs: 10_000 });
  assert.is(again.note, "index loaded from cache");
  assert.is(searchHandbook(again.index!, KNOWN[0].query)[0].path, KNOWN[0].path);
  appendFileSync(join(dir, "references/payer-um/01-workflow.md"), "\nMore text.\n");
  assert.is(openHandbook({ dir, cacheFile, budgetMs: 10_000 }).note, "index built");
});

opening("the lookup records pages, and FIABLE_HANDBOOK_DIR=off turns it off", () => {
  const found = handbookLookup({ dir, budgetMs: 10_000 })({
    prompt: PROVIDER_PROMPT,
    seat: "provider",
    phase: "new_referral",
  });
  assert.is(found.record.status, "ok");
  assert.equal(found.record.pages, found.pages.map((p) => p.path));
  const off = guardHandbook({ FIABLE_HANDBOOK_DIR: "off" }, join(root, "ledger"), 1000)({
    prompt: PROVIDER_PROMPT,
    seat: "provider",
    phase: null,
  });
  assert.is(off.record.status, "off");
});

opening.run();

const engine = suite("handbook in the plan arm");

engine.before.each(() => resetHandbooks());

function promptOutcome(handbookDir: string) {
  const lookup = handbookLookup({ dir: handbookDir, budgetMs: 10_000 });
  return decide(
    { word: "prompt", session: "s1", prompt: PROVIDER_PROMPT },
    [],
    { arm: "plan", bounds: DEFAULT_BOUNDS, handbook: lookup },
    "2026-01-01T00:00:00Z",
  );
}

engine("the plan lists the case's pages and the ledger names them", () => {
  const { reply, record } = promptOutcome(dir);
  const context = JSON.stringify(reply);
  assert.ok(context.includes("bariatric-surgery.md"));
  assert.is(record?.handbook?.status, "ok");
  assert.ok(
    record?.handbook?.pages.includes("references/medical-library/medical-policies/bariatric-surgery.md"),
  );
  assert.ok((record?.reason ?? "").length <= 10_000);
});

engine("a missing handbook: the plan still goes out, and the ledger says why", () => {
  const { reply, record } = promptOutcome(join(root, "missing"));
  assert.ok(JSON.stringify(reply).includes("fiable-agent role plan"));
  assert.not.ok(JSON.stringify(reply).includes("Handbook pages"));
  assert.is(record?.handbook?.status, "absent");
  assert.match(record?.handbook?.note ?? "", /does not exist/);
});

engine("session start warms the index without a plan", () => {
  const lookup = handbookLookup({ dir, budgetMs: 10_000 });
  const { record } = decide(
    { word: "session-start", session: "s2", source: "startup" },
    [],
    { arm: "plan", bounds: DEFAULT_BOUNDS, handbook: lookup },
    "2026-01-01T00:00:00Z",
  );
  assert.is(record?.handbook?.status, "none");
  assert.ok(typeof record?.handbook?.ms === "number");
});

engine("the shadow arm never opens the handbook", () => {
  let called = false;
  decide(
    { word: "prompt", session: "s3", prompt: PROVIDER_PROMPT },
    [],
    {
      arm: "shadow",
      bounds: DEFAULT_BOUNDS,
      handbook: () => {
        called = true;
        return { pages: [], record: { status: "none", pages: [] } };
      },
    },
    "2026-01-01T00:00:00Z",
  );
  assert.not.ok(called);
});

engine.run();

const cli = suite("handbook command");

function quiet(run: () => number): { code: number; out: string } {
  const log = console.log;
  let out = "";
  console.log = (...parts: unknown[]) => void (out += parts.join(" ") + "\n");
  try {
    return { code: run(), out };
  } finally {
    console.log = log;
  }
}

cli("search prints the ranked pages", () => {
  const { code, out } = quiet(() => handbookCli(["search", "peer-to-peer appeals protocols", "--dir", dir]));
  assert.is(code, 0);
  assert.match(out, /^1\. references\/payer-um\/operational\/04-appeals-p2p-protocols\.md/);
});

cli("bad input is refused with the fix", () => {
  const write = process.stderr.write.bind(process.stderr);
  let err = "";
  process.stderr.write = ((s: string) => (err += s, true)) as typeof process.stderr.write;
  try {
    assert.is(handbookCli(["find", "x"]), 2);
    assert.is(handbookCli(["search", "x", "--limit", "zero", "--dir", dir]), 2);
    assert.is(handbookCli(["search", "x", "--dir", join(root, "missing")]), 1);
  } finally {
    process.stderr.write = write;
  }
  assert.match(err, /Use search or build/);
  assert.match(err, /not a whole number/);
  assert.match(err, /does not exist/);
});

cli.after(() => rmSync(root, { recursive: true, force: true }));

cli.run();
