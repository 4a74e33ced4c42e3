/**
 * Two local tools over the managed-care handbook: `handbook_search` (ranked pages) and `handbook_read`
 * (one file, read-only, confined to the handbook folder: no absolute paths, no `..`, no symlink escapes).
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { type OpenedHandbook, openHandbook, searchHandbook } from "../guard/handbook.ts";
import type { Toolbox, ToolOutcome } from "./mcp.ts";

/** One search hit: the file (relative to the handbook root), its title and why it matched. */
export interface HandbookHit {
  path: string;
  title: string;
  snippet: string;
}

/** Anything that searches the handbook (the shared index, or a test double). */
export type HandbookSearch = (query: string, limit: number) => HandbookHit[] | Promise<HandbookHit[]>;

/** Most characters `handbook_read` returns per call (the model pages on with `offset`). */
export const READ_LIMIT = 20_000;

/**
 * Search over the shared handbook index (lib/guard/handbook.ts: MiniSearch, cached beside the ledger), opened on
 * first use; a folder that cannot be indexed answers with the reason instead of hits.
 */
export function sharedSearch(
  root: string,
  options: { cacheFile?: string; budgetMs?: number } = {},
): HandbookSearch {
  let opened: OpenedHandbook | undefined;
  return (query, limit) => {
    opened ??= openHandbook({
      dir: root,
      cacheFile: options.cacheFile,
      budgetMs: options.budgetMs ?? 30_000,
    });
    if (!opened.index) throw new Error(opened.note ?? `the handbook index is ${opened.status}`);
    return searchHandbook(opened.index, query, { limit }).map(({ path, title, why }) => ({
      path,
      title,
      snippet: why,
    }));
  };
}

/** The absolute path of `path` inside `root`, or an error message when it would leave the folder. */
export function confine(root: string, path: string): { file: string } | { error: string } {
  const base = realpathSync(root);
  const wanted = resolve(base, path.replace(/^\/+/, ""));
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    return { error: `Cannot read ${path}: no such handbook file. Use handbook_search to find file paths.` };
  }
  if (real !== base && !real.startsWith(base + sep)) {
    return {
      error: `Cannot read ${path}: it is outside the handbook folder. Pass a path relative to the handbook.`,
    };
  }
  if (!statSync(real).isFile()) {
    return { error: `Cannot read ${path}: it is a folder. Use handbook_search to find file paths.` };
  }
  return { file: real };
}

const SPECS = [
  {
    name: "handbook_search",
    description:
      "Search the managed-care operations handbook (policies, criteria, letter and care-plan rules). " +
      "Returns ranked pages (path, title, why it matched); open one with handbook_read.",
    input_schema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Keywords, e.g. 'peer to peer deadline' or 'denial letter'." },
        limit: { type: "integer", description: "Most pages to return (default 5, max 20)." },
      },
      required: ["query"],
    },
  },
  {
    name: "handbook_read",
    description: "Read one handbook file by its path relative to the handbook folder (read-only). " +
      `Returns up to ${READ_LIMIT} characters from offset.`,
    input_schema: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path as returned by handbook_search." },
        offset: { type: "integer", description: "Character offset to start from (default 0)." },
      },
      required: ["path"],
    },
  },
];

function ok(text: string): ToolOutcome {
  return { text, isError: false, content: [{ type: "text", text }] };
}

function fail(text: string): ToolOutcome {
  return { text, isError: true, content: [{ type: "text", text }] };
}

/** The handbook tools for the folder `root`, searching with `search` (default: the shared index). */
export function handbookTools(root: string, search: HandbookSearch = sharedSearch(root)): Toolbox {
  return {
    specs: SPECS,
    registered: (shown) => SPECS.some((s) => s.name === shown) ? shown : undefined,
    async call(shown, input) {
      try {
        if (shown === "handbook_search") {
          const query = String(input.query ?? "").trim();
          if (!query) return fail("Cannot search the handbook: query is empty. Pass a few keywords.");
          const limit = Math.min(Math.max(Number(input.limit ?? 5) || 5, 1), 20);
          const hits = await search(query, limit);
          return ok(hits.length ? JSON.stringify(hits, null, 1) : `No handbook passage matches "${query}".`);
        }
        const at = confine(root, String(input.path ?? ""));
        if ("error" in at) return fail(at.error);
        const offset = Math.max(Number(input.offset ?? 0) || 0, 0);
        const text = readFileSync(at.file, "utf8");
        const part = text.slice(offset, offset + READ_LIMIT);
        const more = offset + READ_LIMIT < text.length
          ? `\n[… ${text.length - offset - READ_LIMIT} more characters; call again with offset ${
            offset + READ_LIMIT
          }]`
          : "";
        return ok(part + more);
      } catch (err) {
        return fail(`Cannot use ${shown}: ${(err as Error).message}.`);
      }
    },
    close: () => Promise.resolve(),
  };
}
