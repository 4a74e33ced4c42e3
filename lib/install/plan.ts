/**
 * Pure planning: what install.ts would write into a checkout, as a list of file changes. The same
 * `planWrites` serves the harness install and the experiment configs; `planUninstall` undoes both.
 */
import { InstallRefusal, type Reader } from "./checkout.ts";
import {
  fromBase64,
  MANIFEST,
  type Manifest,
  manifestText,
  sha256,
  STATE_DIR,
  STATE_GITIGNORE,
  toBase64,
} from "./manifest.ts";

/** One file install.ts will write, restore or delete. */
export interface FileChange {
  path: string;
  action: "create" | "edit" | "restore" | "delete";
  /** Current bytes (null when absent). */
  before: Uint8Array | null;
  /** Bytes after the change (null for delete). */
  after: Uint8Array | null;
  why: string;
}

/** The changes plus the folders to create first or remove last. */
export interface Plan {
  changes: FileChange[];
  /** Folders to create before writing (install) — parents first. */
  mkdirs: string[];
  /** Folders to remove when empty after writing (uninstall) — children first. */
  rmdirs: string[];
}

/** A file the plan wants to have exact bytes. `owned`: install.ts writes the whole file (not an edit). */
export interface Desired {
  path: string;
  bytes: Uint8Array;
  owned: boolean;
  why: string;
}

function same(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function parents(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** True when the file is as install.ts left it (or install.ts never wrote it). */
function untouchedSince(manifest: Manifest | null, path: string, bytes: Uint8Array | null): boolean {
  const entry = manifest?.files.find((f) => f.path === path);
  return !entry || (bytes !== null && sha256(bytes) === entry.after);
}

/**
 * The changes that make every desired file exact, with the manifest update first so a crash midway still
 * leaves the original bytes on record. No changes at all when everything is already in place.
 */
export function planWrites(
  read: Reader,
  desired: Desired[],
  manifest: Manifest | null,
  isDir: (path: string) => boolean,
): Plan {
  const changes: FileChange[] = [];
  for (const want of desired) {
    const current = read(want.path);
    if (same(current, want.bytes)) continue;
    const recorded = manifest?.files.some((f) => f.path === want.path) ?? false;
    if (want.owned && current !== null && !recorded) {
      throw new InstallRefusal(
        `Cannot write ${want.path}: the file exists and install.ts did not write it. ` +
          "Move it out of the way, then run install.ts again.",
      );
    }
    if (!untouchedSince(manifest, want.path, current)) {
      throw new InstallRefusal(
        `Cannot update ${want.path}: it changed since install.ts wrote it. Run install.ts --uninstall ` +
          "(add --force to keep your copy beside it as .fiable-kept), then install again.",
      );
    }
    changes.push({
      path: want.path,
      action: current === null ? "create" : "edit",
      before: current,
      after: want.bytes,
      why: want.why,
    });
  }
  if (!changes.length) return { changes, mkdirs: [], rmdirs: [] };
  const mkdirs = [...new Set([STATE_DIR, ...changes.flatMap((c) => parents(c.path))])]
    .filter((d) => !isDir(d));
  const next: Manifest = {
    v: 1,
    dirs: [...(manifest?.dirs ?? []), ...mkdirs.filter((d) => !manifest?.dirs.includes(d))],
    files: [...(manifest?.files ?? [])],
  };
  for (const c of changes) {
    const entry = {
      path: c.path,
      before: c.before === null ? null : toBase64(c.before),
      after: sha256(c.after!),
    };
    const at = next.files.findIndex((f) => f.path === c.path);
    if (at >= 0) next.files[at] = { ...entry, before: next.files[at].before };
    else next.files.push(entry);
  }
  const enc = new TextEncoder();
  const state: FileChange[] = [{
    path: MANIFEST,
    action: manifest ? "edit" : "create",
    before: read(MANIFEST),
    after: enc.encode(manifestText(next)),
    why: "original bytes of every file install.ts touches, for --uninstall",
  }];
  if (read(STATE_GITIGNORE) === null) {
    state.push({
      path: STATE_GITIGNORE,
      action: "create",
      before: null,
      after: enc.encode("*\n"),
      why: "keeps install.ts state out of git",
    });
  }
  return { changes: [...state, ...changes], mkdirs, rmdirs: [] };
}

/** Files changed since install.ts wrote them (their edits would be lost by a byte-for-byte restore). */
export function editedSinceInstall(read: Reader, manifest: Manifest): string[] {
  return manifest.files.filter((f) => !untouchedSince(manifest, f.path, read(f.path))).map((f) => f.path);
}

/**
 * Restores every file in the manifest to its original bytes (or deletes it), then removes the state.
 * A file edited since install is refused, or with `force` kept beside the restored one as `.fiable-kept`.
 */
export function planUninstall(read: Reader, manifest: Manifest, options: { force?: boolean } = {}): Plan {
  const edited = editedSinceInstall(read, manifest);
  if (edited.length && !options.force) {
    throw new InstallRefusal(
      `Cannot uninstall: ${edited.join(", ")} changed since install.ts wrote ${
        edited.length > 1 ? "them" : "it"
      }, ` +
        "and restoring the original bytes would lose those edits. Run again with --force to restore anyway " +
        "and keep each edited copy beside it as <file>.fiable-kept.",
    );
  }
  const changes: FileChange[] = [];
  for (const f of [...manifest.files].reverse()) {
    const current = read(f.path);
    if (current !== null && edited.includes(f.path)) {
      changes.push({
        path: `${f.path}.fiable-kept`,
        action: "create",
        before: read(`${f.path}.fiable-kept`),
        after: current,
        why: "your edits, kept (--force)",
      });
    }
    if (f.before === null) {
      if (current !== null) {
        changes.push({
          path: f.path,
          action: "delete",
          before: current,
          after: null,
          why: "install.ts created it",
        });
      }
      continue;
    }
    const original = fromBase64(f.before);
    if (!same(current, original)) {
      changes.push({
        path: f.path,
        action: "restore",
        before: current,
        after: original,
        why: "original bytes",
      });
    }
  }
  for (const path of [STATE_GITIGNORE, MANIFEST]) {
    const current = read(path);
    if (current !== null) {
      changes.push({ path, action: "delete", before: current, after: null, why: "install.ts state" });
    }
  }
  return { changes, mkdirs: [], rmdirs: [...manifest.dirs].reverse() };
}
