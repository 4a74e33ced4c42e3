/**
 * What a hook process loads under Deno (issue 20): guard.ts's static module graph holds no `node:` module
 * (the first one starts Deno's node-compat layer, ≈ 30 ms) and no npm package (resolved at start-up); the
 * profile parser, handbook index, http server, resident check, live post and settings writer stay behind
 * dynamic imports, loaded only by the commands and events that use them.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname ?? ".", "..");

interface GraphModule {
  specifier: string;
  dependencies?: { specifier: string; code?: { specifier: string }; isDynamic?: boolean }[];
}

/** `deno info --json` of an entry: every module it can reach, statically or by dynamic import. */
async function moduleGraph(entry: string): Promise<Map<string, GraphModule>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: GraphModule[] };
  return new Map(graph.modules.map((m) => [m.specifier, m]));
}

/** The modules an entry loads before running any code: its static imports, followed transitively. */
function staticClosure(graph: Map<string, GraphModule>, root: string): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const dep of graph.get(at)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

const relative = (specifier: string) =>
  specifier.startsWith("file:") ? specifier.slice(pathToFileURL(ROOT).href.length + 1) : specifier;

const s = suite("startup");
const graph = await moduleGraph("guard.ts");
const root = pathToFileURL(join(ROOT, "guard.ts")).href;
const loaded = [...staticClosure(graph, root)].map(relative);

s("the hook path loads no node: module and no npm package under Deno", () => {
  const foreign = loaded.filter((m) => !m.startsWith("lib/") && !m.startsWith("rules/") && m !== "guard.ts");
  assert.equal(foreign, [], `guard.ts loads ${foreign.join(", ")} before it runs`);
});

s("what the hook path does not use stays behind dynamic imports", () => {
  const lazy = [
    "lib/guard/profile.ts",
    "lib/guard/handbook.ts",
    "lib/guard/serve.ts",
    "lib/guard/resident.ts",
    "lib/guard/live.ts",
    "lib/guard/settings.ts",
    "lib/guard/host_node.ts",
  ];
  const all = [...graph.keys()].map(relative);
  for (const module of lazy) {
    // Still reachable (the graph does see dynamic imports, so the check above can fail), just not loaded.
    assert.ok(all.includes(module), `${module} is not in guard.ts's graph at all`);
    assert.not.ok(loaded.includes(module), `${module} is loaded by every hook process`);
  }
  assert.ok(all.some((m) => m.startsWith("npm:")) && all.some((m) => m.startsWith("node:")));
});

s.run();
