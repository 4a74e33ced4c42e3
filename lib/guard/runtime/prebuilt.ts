/**
 * The prebuilt hook bundle: command mode (lib/guard/command.ts) as one JavaScript file for `deno run guard.ts
 * <event>`. Deno loads one bundled file ≈ 8 ms faster than the ≈ 65 TypeScript modules it is made of (issue
 * 20), so `deno task bundle` also writes `dist/fiable-guard-hook.js` and, beside it, a manifest naming every
 * source file in it with its size and modification time. The bundle runs only while every one still matches:
 * an edited file, or a module added or removed (its importer is edited), sends the hook back to source. A cache
 * like Python's `__pycache__`, checked by stat alone; `FIABLE_PREBUILT=0` always runs source. Deno only.
 */
import type { LazyLoader } from "./lazy.ts";

/** The bundle and its manifest, relative to the repository root. */
export const PREBUILT_BUNDLE = "dist/fiable-guard-hook.js";
export const PREBUILT_MANIFEST = "dist/fiable-guard-hook.json";

/** What bundle.ts writes beside the bundle: each source file (path from the root), its size and mtime in ms. */
export interface PrebuiltManifest {
  v: 1;
  files: [path: string, size: number, mtimeMs: number][];
}

/** A file's size and modification time, or null when it is gone. */
export type Stamp = { size: number; mtimeMs: number } | null;

/** True when the manifest is well formed, names at least one file, and every file still has its stamp. */
export function isFresh(manifest: unknown, stamp: (path: string) => Stamp): boolean {
  const m = manifest as PrebuiltManifest | null;
  if (!m || m.v !== 1 || !Array.isArray(m.files) || !m.files.length) return false;
  return m.files.every((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== "string") return false;
    const now = stamp(entry[0]);
    return now !== null && now.size === entry[1] && now.mtimeMs === entry[2];
  });
}

const ROOT = new URL("../../../", import.meta.url);
/** The root as a path: a stat of a string path costs a fraction of one of a URL (≈ 66 of them per hook). */
const ROOT_PATH = decodeURIComponent(ROOT.pathname);

function stampOf(path: string): Stamp {
  try {
    const info = Deno.statSync(ROOT_PATH + path);
    return { size: info.size, mtimeMs: info.mtime?.getTime() ?? NaN };
  } catch {
    return null;
  }
}

/**
 * Command mode from the prebuilt bundle, its lazy modules loaded from source by `sourceLoader`; null when
 * there is no bundle, it is stale, `FIABLE_PREBUILT=0`, or anything about it fails (the caller runs source).
 */
export async function prebuiltCommand(
  env: Record<string, string | undefined>,
  sourceLoader: LazyLoader,
): Promise<unknown> {
  if (env.FIABLE_PREBUILT === "0") return null;
  try {
    const manifest = JSON.parse(Deno.readTextFileSync(new URL(PREBUILT_MANIFEST, ROOT)));
    if (!isFresh(manifest, stampOf)) return null;
    const bundle = await import(
      new URL(PREBUILT_BUNDLE, ROOT).href
    ) as { setLazyLoader(loader: LazyLoader): void };
    bundle.setLazyLoader(sourceLoader);
    return bundle;
  } catch {
    return null;
  }
}
