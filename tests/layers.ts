/**
 * The guard's layers, read from Deno's own module graph (`deno info`, every import: static, dynamic and by
 * type): no import cycle under lib/, dashboard/ and rules/; the engine (lib/guard/engine/) reaches nothing but
 * itself and the rules; lib/guard/ keeps at most ten source files at its top; a dashboard page imports no other
 * page, and the dashboard's shared parts (read/, ui/) import no page.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname ?? ".", "..");
const ROOT_URL = pathToFileURL(ROOT).href + "/";

/** The source files under a folder, as paths from the root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => `${dir}/${f}`)
    .sort();
}

/** One module of `deno info --json`: what it imports, by code and by type. */
interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
}

/**
 * The import graph of the files under lib/, dashboard/ and rules/ (paths from the root; modules outside the
 * repository left out), from one `deno info` of an entry that imports them all.
 */
async function importGraph(): Promise<Map<string, string[]>> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-layers-"));
  const entry = join(dir, "all.ts");
  const files = ["lib", "dashboard", "rules"].flatMap(sources);
  writeFileSync(entry, files.map((f) => `import ${JSON.stringify(ROOT_URL + f)};\n`).join(""));
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(ROOT, "deno.json"), entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    const modules = (JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] }).modules;
    const inRepo = (s: string) => s.startsWith(ROOT_URL) ? s.slice(ROOT_URL.length) : null;
    const graph = new Map<string, string[]>();
    for (const m of modules) {
      const from = inRepo(m.specifier);
      if (!from) continue;
      const to = (m.dependencies ?? []).flatMap((d) => [d.code?.specifier, d.type?.specifier])
        .map((s) => s && inRepo(s)).filter((s): s is string => !!s);
      graph.set(from, [...new Set(to)]);
    }
    return graph;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The modules reachable from `start` (itself included). */
function reach(graph: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...graph.get(at) ?? []);
  }
  return seen;
}

const graph = importGraph();
const s = suite("layers");

s("the cycle finder finds a cycle, and a self-import", () => {
  const g = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["d"]], ["e", ["a"]]]);
  assert.equal(cycles(g), [["a", "b", "c"], ["d"]]);
});

s("no import cycle under lib/, dashboard/ and rules/ (imports by type included)", async () => {
  const g = await graph;
  assert.ok(g.has("lib/guard/engine/decide.ts") && g.size > 100, `the graph has ${g.size} modules`);
  assert.equal(cycles(g).map((c) => c.join(" → ")), []);
});

s(
  "the engine imports nothing but the engine, the rules and npm packages (no ledger, transport or runtime)",
  async () => {
    const g = await graph;
    for (const file of sources("lib/guard/engine")) {
      // An npm package (zod, for the hook input) is a library, not a layer: `node:` modules stay out.
      const outside = [...reach(g, file)].filter((m) =>
        !m.startsWith("lib/guard/engine/") && !m.startsWith("rules/") && !m.startsWith("node_modules/")
      );
      assert.equal(outside, [], `${file} reaches ${outside.join(", ")}`);
    }
  },
);

s("lib/guard/ keeps at most ten source files at its top", () => {
  const top = readdirSync(join(ROOT, "lib/guard")).filter((f) => /\.tsx?$/.test(f));
  assert.ok(top.length <= 10, `lib/guard/ has ${top.length} files at its top: ${top.join(", ")}`);
});

/** The page folder a dashboard module sits in (`dashboard/pages/<page>/…`), or null. */
function pageOf(file: string): string | null {
  return /^dashboard\/pages\/([^/]+)\//.exec(file)?.[1] ?? null;
}

s("the page finder names a page's folder, and nothing outside one", () => {
  assert.is(pageOf("dashboard/pages/trial/view.tsx"), "trial");
  assert.is(pageOf("dashboard/pages/mod.ts"), null);
  assert.is(pageOf("dashboard/ui/layout.tsx"), null);
});

s("dashboard/server.tsx keeps to the command line and serve: at most 250 lines", () => {
  const lines = readFileSync(join(ROOT, "dashboard/server.tsx"), "utf8").split("\n").length - 1;
  assert.ok(
    lines <= 250,
    `dashboard/server.tsx has ${lines} lines: move what is not the command line or serve out`,
  );
});

s("a dashboard page imports no other page; read/ and ui/ import no page", async () => {
  const g = await graph;
  const pages = sources("dashboard/pages").map(pageOf).filter((p): p is string => !!p);
  assert.ok(new Set(pages).size >= 10, `found pages ${[...new Set(pages)].join(", ")}`);
  const crossings: string[] = [];
  for (const [from, to] of g) {
    if (!from.startsWith("dashboard/") || from === "dashboard/pages/mod.ts") continue;
    for (const target of to) {
      const page = pageOf(target);
      if (page && page !== pageOf(from)) crossings.push(`${from} → ${target}`);
    }
  }
  assert.equal(
    crossings,
    [],
    "pages share through dashboard/read/ and dashboard/ui/, never through each other",
  );
});

s.run();
