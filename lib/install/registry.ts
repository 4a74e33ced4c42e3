/**
 * Text edits to chi-bench's agents/registry.py: one `IN_TREE_AGENT_IMPORT_PATHS` entry per harness and
 * an `AGENT_ENV_VARS` hint (a `cb agent list` aid with no runtime effect). Nothing else in the file changes.
 */
import { type Harness, importPath } from "./harnesses.ts";
import { InstallRefusal, REGISTRY } from "./checkout.ts";

const MARK = "    # fiable-agent install.ts (undo: install.ts --uninstall)\n";

/** A top-level `NAME[: type] = {` … `}` dict literal: where its body starts and its closing line begins. */
function dictBlock(text: string, name: string): { bodyStart: number; close: number } | null {
  const head = new RegExp(`^${name}(?:\\s*:[^=\\n]+)?\\s*=\\s*\\{[ \\t]*\\r?\\n`, "m").exec(text);
  if (!head) return null;
  const bodyStart = head.index + head[0].length;
  const close = /^\}/m.exec(text.slice(bodyStart));
  return close ? { bodyStart, close: bodyStart + close.index } : null;
}

function shapeRefusal(what: string): InstallRefusal {
  return new InstallRefusal(
    `Cannot edit ${REGISTRY}: ${what}, which is not the shape install.ts knows. ` +
      'Add the entry by hand (see docs/EVALUATION_PROTOCOL.md, "Install") or use a chi-bench commit such as 2c9cdd3.',
  );
}

function entryRe(name: string): RegExp {
  return new RegExp(`^[ \\t]+"${name.replace(/[-]/g, "\\-")}"\\s*:\\s*(.*)$`, "m");
}

/** registry.py with the harness registered; unchanged when it already is. Throws InstallRefusal on a clash. */
export function registerHarness(text: string, harness: Harness): string {
  const builtins = /^HARBOR_BUILTIN_AGENTS\b.*$/m.exec(text)?.[0] ?? "";
  if (builtins.includes(`"${harness.name}"`)) {
    throw new InstallRefusal(
      `Cannot register ${harness.name}: it is one of HARBOR_BUILTIN_AGENTS in ${REGISTRY}. ` +
        "Rename the harness in lib/install/harnesses.ts.",
    );
  }
  const paths = dictBlock(text, "IN_TREE_AGENT_IMPORT_PATHS");
  if (!paths) throw shapeRefusal("no top-level `IN_TREE_AGENT_IMPORT_PATHS = {` … `}` dict");
  const body = text.slice(paths.bodyStart, paths.close);
  const wanted = `"${importPath(harness)}",`;
  const existing = entryRe(harness.name).exec(body);
  let out = text;
  if (existing) {
    if (existing[1].trim() !== wanted) {
      throw new InstallRefusal(
        `Cannot register ${harness.name}: ${REGISTRY} already maps it to ${existing[1].trim()}. ` +
          `Remove that entry, or run install.ts --uninstall if an older install.ts wrote it.`,
      );
    }
  } else {
    out = text.slice(0, paths.close) + MARK + `    "${harness.name}": ${wanted}\n` + text.slice(paths.close);
  }
  const hints = dictBlock(out, "AGENT_ENV_VARS");
  if (!hints || entryRe(harness.name).test(out.slice(hints.bodyStart, hints.close))) return out;
  const tuple = `    "${harness.name}": (\n` + harness.envVars.map((v) => `        "${v}",\n`).join("") +
    "    ),\n";
  return out.slice(0, hints.close) + MARK + tuple + out.slice(hints.close);
}
