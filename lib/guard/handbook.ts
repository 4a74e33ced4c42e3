/**
 * Handbook retrieval for the role plans: a MiniSearch (BM25) index over the Managed-Care Operations Handbook's
 * markdown (titles, headings, path words and body, with field boosts), built under a time budget or loaded from
 * a cache file beside the ledger, and the case queries that pick the pages a plan points at.
 * Web and `node:` APIs only (the guard's Node bundle runs it). Every failure fails open with a record.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { writeWhole } from "./io.ts";
import { dirname, join, relative, sep } from "node:path";
import MiniSearch, { type Options, type SearchResult } from "minisearch";
import type { HandbookLookup, HandbookPage } from "./engine/plan.ts";
import type { HandbookRecord } from "./engine/record.ts";
import type { Phase, Seat } from "./engine/seat.ts";

/** Where the benchmark mounts the handbook in the trial container (`FIABLE_HANDBOOK_DIR` overrides it). */
export const HANDBOOK_DIR = "/workspace/skills/managed-care-operations-handbook";
/** The cache file's name, in the ledger directory. */
export const CACHE_NAME = "handbook-index.json";
/** Characters of a page's body that are indexed: long policies keep their title, headings and opening. */
export const BODY_CAP = 4_000;
const CACHE_VERSION = 2;

/** One markdown file: its path under the handbook root (forward slashes) and its text. */
export interface HandbookSource {
  path: string;
  text: string;
}

/** One indexed page; `words` is the path without its extension, searched like a title. */
export interface HandbookDoc {
  id: number;
  path: string;
  words: string;
  title: string;
  headings: string;
  body: string;
}

/** A ranked page: path, title, BM25 score and a one-line reason built from the matched terms. */
export interface HandbookHit {
  path: string;
  title: string;
  score: number;
  why: string;
}

/** The handbook index type. */
export type HandbookIndex = MiniSearch<HandbookDoc>;

const STOP = new Set(
  ("a an and are as at be by for from has have in is it its of on or that the this to was were will with " +
    "who whom your you their they he she her his him our we not no yes do does did per via into than then " +
    "any all each other more most such only own same so too very can may must should would could also " +
    "year years old presents following after before over under about work case md").split(" "),
);

function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t.length < 2 || STOP.has(t) ? null : t;
}

const OPTIONS: Options<HandbookDoc> = {
  fields: ["title", "words", "headings", "body"],
  storeFields: ["path", "title"],
  processTerm,
  searchOptions: { boost: { title: 5, words: 3, headings: 2, body: 1 }, combineWith: "OR" },
};

/** An empty index with the handbook's fields, boosts and term processing. */
export function createIndex(): HandbookIndex {
  return new MiniSearch<HandbookDoc>(OPTIONS);
}

function fileTitle(path: string): string {
  const base = path.split("/").pop() ?? path;
  return base.replace(/\.md$/i, "").replace(/[-_]+/g, " ").trim();
}

/** A page's title (first H1, else frontmatter `name`, else the file name), headings and capped body. */
export function parsePage(path: string, text: string, bodyCap = BODY_CAP): Omit<HandbookDoc, "id"> {
  let rest = text;
  let name = "";
  if (rest.startsWith("---")) {
    const end = rest.indexOf("\n---", 3);
    if (end > 0) {
      name = /^#*\s*name:\s*(.+)$/m.exec(rest.slice(0, end))?.[1]?.trim() ?? "";
      const desc = /^description:\s*(.+)$/m.exec(rest.slice(0, end))?.[1] ?? "";
      rest = desc + "\n" + rest.slice(rest.indexOf("\n", end + 1) + 1);
    }
  }
  const headings: string[] = [];
  const body: string[] = [];
  let title = "";
  for (const lineText of rest.split("\n")) {
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(lineText);
    if (h && h[1].length === 1 && !title) title = h[2];
    else if (h) headings.push(h[2]);
    else body.push(lineText);
  }
  return {
    path,
    words: path.replace(/\.md$/i, ""),
    title: (title || name || fileTitle(path)).slice(0, 160),
    headings: headings.join("\n").slice(0, bodyCap),
    body: body.join("\n").slice(0, bodyCap),
  };
}

/** Every markdown file under `dir` (dot folders skipped) with its size and modification time. */
export function listPages(dir: string): { path: string; size: number; mtimeMs: number }[] {
  const out: { path: string; size: number; mtimeMs: number }[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.md$/i.test(entry.name)) {
        const st = statSync(full);
        out.push({ path: relative(dir, full).split(sep).join("/"), size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** Indexes pages until done or until `budgetMs` has passed (checked every 16 pages); extends `into` if given. */
export function buildIndex(
  sources: Iterable<HandbookSource>,
  options: { budgetMs?: number; clock?: () => number; bodyCap?: number; into?: HandbookIndex } = {},
): { index: HandbookIndex; indexed: number; complete: boolean } {
  const clock = options.clock ?? (() => performance.now());
  const start = clock();
  const index = options.into ?? createIndex();
  let id = index.documentCount;
  let added = 0;
  for (const source of sources) {
    if (added % 16 === 0 && options.budgetMs !== undefined && clock() - start > options.budgetMs) {
      return { index, indexed: id, complete: false };
    }
    index.add({ id, ...parsePage(source.path, source.text, options.bodyCap) });
    id++;
    added++;
  }
  return { index, indexed: id, complete: true };
}

function quoted(terms: string[]): string {
  return terms.slice(0, 3).map((t) => `"${t}"`).join(", ");
}

/** One line on why a page ranked: which query words matched where; codes are counted, never echoed. */
export function whyLine(match: Record<string, string[]>): string {
  const where = (field: string) => Object.keys(match).filter((t) => match[t].includes(field));
  const words = (terms: string[]) => terms.filter((t) => !/\d/.test(t));
  const codes = Object.keys(match).filter((t) => /\d/.test(t)).length;
  const parts: string[] = [];
  const inTitle = words([...new Set([...where("title"), ...where("words")])]);
  const inHead = words(where("headings")).filter((t) => !inTitle.includes(t));
  const inBody = words(where("body")).filter((t) => !inTitle.includes(t) && !inHead.includes(t));
  if (inTitle.length) parts.push(`title matches ${quoted(inTitle)}`);
  if (inHead.length) parts.push(`sections on ${quoted(inHead)}`);
  if (!parts.length && inBody.length) parts.push(`text mentions ${quoted(inBody)}`);
  if (codes) parts.push(codes === 1 ? "names a code from the task" : `names ${codes} codes from the task`);
  return parts.join("; ") || "related terms";
}

/** Ranked pages for a query, optionally only under some folders (path prefixes). */
export function searchHandbook(
  index: HandbookIndex,
  query: string,
  options: { limit?: number; under?: readonly string[] } = {},
): HandbookHit[] {
  const under = options.under;
  const results: SearchResult[] = index.search(query, {
    ...(under ? { filter: (r: SearchResult) => under.some((u) => String(r.path).startsWith(u)) } : {}),
  });
  return results.slice(0, options.limit ?? 10).map((r) => ({
    path: String(r.path),
    title: String(r.title),
    score: Math.round(r.score * 100) / 100,
    why: whyLine(r.match),
  }));
}

const ROLE_WORDS: Record<Seat, string> = {
  provider: "prior authorization specialist provider workflow evidence requirements",
  payer: "utilization management reviewer workflow",
  cm: "care manager workflow outreach assessment care plan",
};

const PHASE_WORDS: Partial<Record<Phase, string>> = {
  intake: "intake eligibility coverage",
  triage: "triage routing gold card",
  nurse_review: "clinical review standards nurse criteria",
  mdreview: "clinical review standards physician decision",
  p2p: "peer-to-peer appeals protocols",
};

const ROLE_DIRS: Record<Seat, string[]> = {
  provider: ["references/provider-pa/", "references/platform/provider"],
  payer: ["references/payer-um/", "references/platform/payer"],
  cm: ["references/care-manager/", "references/platform/care-manager"],
};

const CLINICAL_DIRS: Record<Seat, string[]> = {
  provider: ["references/medical-library/", "references/provider-pa/pa-requirements/"],
  payer: ["references/medical-library/"],
  cm: ["references/medical-library/"],
};

/** CPT (5 digits or 4+letter), HCPCS (letter+4 digits) and ICD-10 codes named in a text. */
export function codesIn(text: string): string[] {
  const found = text.match(/\b(?:\d{4}[0-9FTU]|[A-V]\d{4}|[A-TV-Z]\d{2}(?:\.[0-9A-Z]{1,4})?)\b/g) ?? [];
  return [...new Set(found)];
}

/** The two queries for a case: the role's own chapters, and the clinical subject and codes of the prompt. */
export function caseQueries(
  prompt: string,
  seat: Seat,
  phase: Phase | null,
): { role: string; clinical: string } {
  const lines = prompt.split("\n");
  const h1 = lines.find((l) => /^#\s/.test(l)) ?? "";
  const subject = h1.replace(/^#\s*/, "").split(/\s[\u2014\u2013-]\s/).slice(1).join(" ") ||
    h1.replace(/^#\s*/, "");
  const start = lines.indexOf(h1) + 1;
  const end = lines.findIndex((l, i) => i >= start && /^##\s/.test(l));
  const opening = lines.slice(start, end < 0 ? undefined : end).join(" ").slice(0, 800);
  const role = [ROLE_WORDS[seat], phase ? PHASE_WORDS[phase] ?? "" : ""].join(" ").trim();
  // Ages, BMIs and dates would match page numbers and file names: keep only words and real codes.
  const words = `${subject} ${subject} ${opening}`.replace(/[^\p{L}\p{N}\s-]+/gu, " ").split(/\s+/)
    .filter((w) => w && !/\d/.test(w));
  return { role, clinical: [...words, ...codesIn(prompt)].join(" ") };
}

/** The pages a plan should list: the seat's own chapters first, then the clinical pages for the case. */
export function handbookPages(
  index: HandbookIndex,
  query: { prompt: string; seat: Seat; phase: Phase | null },
  limits: { role?: number; clinical?: number } = {},
): HandbookPage[] {
  const q = caseQueries(query.prompt, query.seat, query.phase);
  const role = searchHandbook(index, q.role, { limit: limits.role ?? 3, under: ROLE_DIRS[query.seat] });
  const found = q.clinical
    ? searchHandbook(index, q.clinical, { limit: limits.clinical ?? 5, under: CLINICAL_DIRS[query.seat] })
    : [];
  // Weak tails (one shared word) point nowhere useful.
  const clinical = found.filter((h) => h.score >= found[0].score * 0.3);
  const seen = new Set<string>();
  return [...role, ...clinical].filter((h) => !seen.has(h.path) && seen.add(h.path))
    .map(({ path, title, why }) => ({ path, title, why }));
}

/** An opened handbook: the index when ready, else null with the fail-open status and note. */
export interface OpenedHandbook {
  index: HandbookIndex | null;
  status: HandbookRecord["status"];
  note?: string;
  ms: number;
  pages: number;
}

interface CacheFile {
  version: number;
  dir: string;
  fingerprint: string;
  /** False for a build a budget cut short: the first `documentCount` pages (in path order) are in. */
  complete: boolean;
  index: unknown;
}

function readCache(
  file: string,
  dir: string,
  fingerprint: string,
): { index: HandbookIndex; complete: boolean } | null {
  let cache: CacheFile;
  try {
    cache = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (cache?.version !== CACHE_VERSION || cache.dir !== dir || cache.fingerprint !== fingerprint) return null;
  try {
    const index = MiniSearch.loadJS(cache.index as Parameters<typeof MiniSearch.loadJS>[0], OPTIONS);
    return { index, complete: cache.complete === true };
  } catch {
    return null;
  }
}

function writeCache(file: string, cache: CacheFile): string | undefined {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeWhole(file, JSON.stringify(cache));
    return undefined;
  } catch (err) {
    return `Cannot write the handbook cache ${file}: ${(err as Error).message}.`;
  }
}

/**
 * Opens the handbook at `dir`: loads the cache when it matches the folder, else builds the index within
 * `budgetMs` and saves the cache. Never throws; a missing or empty folder, a timeout or an error gives
 * `index: null` and a note saying the plan goes out without handbook pages.
 */
export function openHandbook(options: {
  dir: string;
  cacheFile?: string;
  budgetMs: number;
  clock?: () => number;
}): OpenedHandbook {
  const clock = options.clock ?? (() => performance.now());
  const start = clock();
  const done = (o: Omit<OpenedHandbook, "ms">): OpenedHandbook => ({ ...o, ms: Math.round(clock() - start) });
  const without = "The plan goes out without handbook pages";
  let listed: ReturnType<typeof listPages>;
  try {
    listed = listPages(options.dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return done({
      index: null,
      status: code === "ENOENT" || code === "ENOTDIR" ? "absent" : "error",
      pages: 0,
      note: code === "ENOENT" || code === "ENOTDIR"
        ? `Cannot index the handbook at ${options.dir}: the folder does not exist. ${without}; set ` +
          "FIABLE_HANDBOOK_DIR to the handbook folder."
        : `Cannot index the handbook at ${options.dir}: ${(err as Error).message}. ${without}.`,
    });
  }
  if (!listed.length) {
    return done({
      index: null,
      status: "empty",
      pages: 0,
      note: `Cannot index the handbook at ${options.dir}: it holds no markdown pages. ${without}.`,
    });
  }
  const fingerprint = [
    CACHE_VERSION,
    BODY_CAP,
    listed.length,
    listed.reduce((n, p) => n + p.size, 0),
    Math.max(...listed.map((p) => p.mtimeMs)),
  ].join(":");
  const timeout = (indexed: number, resume: boolean): OpenedHandbook =>
    done({
      index: null,
      status: "timeout",
      pages: listed.length,
      note: `Cannot finish the handbook index within ${Math.round(options.budgetMs)} ms (${indexed} of ` +
        `${listed.length} pages${
          resume ? "; the next event resumes from the cache" : ""
        }). ${without}; raise ` +
        "budgets.decision_ms or prebuild the cache with `deno task handbook build`.",
    });
  const spent = () => clock() - start;
  const cached = options.cacheFile ? readCache(options.cacheFile, options.dir, fingerprint) : null;
  if (cached?.complete) {
    return done({ index: cached.index, status: "ok", pages: listed.length, note: "index loaded from cache" });
  }
  const from = cached?.index.documentCount ?? 0;
  if (spent() > options.budgetMs / 2) return timeout(from, from > 0);
  const sources = (function* () {
    for (const p of listed.slice(from)) {
      yield { path: p.path, text: readFileSync(join(options.dir, p.path), "utf8") };
    }
  })();
  // Index for at most 60% of the budget: saving the cache and answering must fit in the rest.
  const built = buildIndex(sources, {
    budgetMs: options.budgetMs * (options.cacheFile ? 0.6 : 1) - spent(),
    clock,
    into: cached?.index,
  });
  const canSave = options.cacheFile && (built.complete || spent() < options.budgetMs * 0.75);
  const saved = canSave
    ? writeCache(options.cacheFile!, {
      version: CACHE_VERSION,
      dir: options.dir,
      fingerprint,
      complete: built.complete,
      index: built.index.toJSON(),
    })
    : "not saved";
  if (!built.complete) return timeout(built.indexed, !saved);
  const how = from ? `index finished from a partial cache (${from} pages cached)` : "index built";
  return done({
    index: built.index,
    status: "ok",
    pages: listed.length,
    note: saved && canSave ? saved : how,
  });
}

const OPENED = new Map<string, OpenedHandbook>();

/**
 * A lookup for the engine: opens the handbook once per process (resident servers keep it), then answers each
 * case with its pages. Never throws: errors become a record with status `error`.
 */
export function handbookLookup(options: {
  dir: string;
  cacheFile?: string;
  budgetMs: number;
  clock?: () => number;
}): HandbookLookup {
  return (query) => {
    try {
      const key = `${options.dir}\n${options.cacheFile ?? ""}`;
      const fresh = !OPENED.has(key);
      const opened = OPENED.get(key) ?? openHandbook(options);
      if (opened.index) OPENED.set(key, opened);
      const pages = opened.index && query.seat && query.prompt
        ? handbookPages(opened.index, { prompt: query.prompt, seat: query.seat, phase: query.phase })
        : [];
      const status = opened.index ? (pages.length ? "ok" : "none") : opened.status;
      const record: HandbookRecord = {
        status,
        pages: pages.map((p) => p.path),
        ...(opened.note ? { note: opened.note } : {}),
        ...(fresh ? { ms: opened.ms } : {}),
      };
      return { pages, record };
    } catch (err) {
      return {
        pages: [],
        record: {
          status: "error",
          pages: [],
          note: `Cannot search the handbook: ${
            (err as Error).message
          }. The plan goes out without handbook pages.`,
        },
      };
    }
  };
}

/** Forgets opened handbooks (tests; a resident server after the handbook changed). */
export function resetHandbooks(): void {
  OPENED.clear();
}

/**
 * The guard's lookup: the folder from `FIABLE_HANDBOOK_DIR` (default: the trial's mount; `off` disables it),
 * the cache beside the ledger, and what is left of the decision budget minus a margin for the reply.
 */
export function guardHandbook(
  env: Record<string, string | undefined>,
  ledgerDir: string,
  remainingMs: number,
): HandbookLookup {
  const dir = env.FIABLE_HANDBOOK_DIR || HANDBOOK_DIR;
  if (dir === "off") {
    return () => ({ pages: [], record: { status: "off", pages: [], note: "FIABLE_HANDBOOK_DIR=off" } });
  }
  return handbookLookup({
    dir,
    cacheFile: join(ledgerDir, CACHE_NAME),
    budgetMs: Math.max(0, (remainingMs - 300) * 0.8),
  });
}
