/**
 * Pure planning: what install.ts would write into a checkout, as a list of file changes. The same
 * `planWrites` serves the harness install and the experiment configs; `planUninstall` undoes both. Both
 * start by removing the temp files an interrupted run left, and both accept every file in any state the
 * manifest (a journal, see manifest.ts) knows, so either one picks up after a crash at any step.
 */
import { Buffer } from "node:buffer";
import { InstallRefusal, type Reader } from "./checkout.ts";
import {
  fromBase64,
  isOriginal,
  knownState,
  MANIFEST,
  type Manifest,
  type ManifestEntry,
  manifestText,
  sha256,
  STATE_DIR,
  STATE_GITIGNORE,
  toBase64,
} from "./manifest.ts";

/** Each file is written as `<file>.fiable-tmp`, flushed, then renamed over `<file>`. */
export const TEMP_SUFFIX = ".fiable-tmp";
/** Where `--uninstall --force` keeps a file's edits before restoring the original. */
export const KEPT_SUFFIX = ".fiable-kept";

/** One file install.ts will write, restore or delete. */
export interface FileChange {
  path: string;
  action: "create" | "edit" | "restore" | "delete";
  /** Current bytes (null when absent). */
  before: Uint8Array | null;
  /** Bytes after the change (null for delete). */
  after: Uint8Array | null;
  /** A restore that makes the path a symbolic link again, to this target (`after`: the bytes it leads to). */
  link?: string;
  why: string;
}

/** The changes, in the order they are made, and the folders they need created or leave to remove. */
export interface Plan {
  changes: FileChange[];
  /** Folders to create (install), parents first: each just before the first file written in it. */
  mkdirs: string[];
  /** Folders to remove when empty (uninstall), children first: before the manifest is removed. */
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
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function parents(path: string): string[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Temp files an interrupted run left beside `paths` (the target itself is whole: renames are atomic). */
function leftovers(read: Reader, paths: string[]): FileChange[] {
  const out: FileChange[] = [];
  for (const path of new Set(paths.map((p) => p + TEMP_SUFFIX))) {
    const bytes = read(path);
    if (bytes !== null) {
      out.push({ path, action: "delete", before: bytes, after: null, why: "left by an interrupted run" });
    }
  }
  return out;
}

/** The target of the link at a checkout path, or null when it is no link. */
export type LinkReader = (path: string) => string | null;

const NO_LINKS: LinkReader = () => null;

/**
 * The changes that make every desired file exact. The manifest comes first and already lists every file the
 * plan will change, with its original bytes (and the link's target when it was a symbolic link) and, when
 * that is not what is there now, the hash of what is; so a crash at any later step leaves each file in a
 * state the manifest knows. No changes at all when everything is already in place.
 */
export function planWrites(
  read: Reader,
  desired: Desired[],
  manifest: Manifest | null,
  isDir: (path: string) => boolean,
  linkOf: LinkReader = NO_LINKS,
): Plan {
  const changes: FileChange[] = [];
  const files = [...(manifest?.files ?? [])];
  let settled = false;
  for (const want of desired) {
    const current = read(want.path);
    const link = linkOf(want.path);
    const at = files.findIndex((f) => f.path === want.path);
    const entry = at >= 0 ? files[at] : undefined;
    if (link === null && same(current, want.bytes)) {
      // In place already (an interrupted install wrote it, then a rerun wants the same bytes): say so.
      if (entry && entry.after !== sha256(want.bytes)) {
        files[at] = { ...entry, after: sha256(want.bytes) };
        delete files[at].previous;
        settled = true;
      }
      continue;
    }
    if (want.owned && current !== null && !entry) {
      throw new InstallRefusal(
        `Cannot write ${want.path}: the file exists and install.ts did not write it. ` +
          "Move it out of the way, then run install.ts again.",
      );
    }
    if (entry && !knownState(entry, current, link)) {
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
    const next: ManifestEntry = {
      path: want.path,
      before: entry ? entry.before : current === null ? null : toBase64(current),
      after: sha256(want.bytes),
    };
    const original = entry ? entry.link : link ?? undefined;
    if (original !== undefined) next.link = original;
    if (entry && !isOriginal(entry, current, link)) next.previous = sha256(current!);
    if (entry) files[at] = next;
    else files.push(next);
  }
  const stale = leftovers(read, [
    MANIFEST,
    STATE_GITIGNORE,
    ...(manifest?.files ?? []).map((f) => f.path),
    ...desired.map((d) => d.path),
  ]);
  if (!changes.length && !settled) return { changes: stale, mkdirs: [], rmdirs: [] };
  const mkdirs = [...new Set([STATE_DIR, ...changes.flatMap((c) => parents(c.path))])]
    .filter((d) => !isDir(d));
  const next: Manifest = {
    v: 2,
    dirs: [...new Set([STATE_DIR, ...(manifest?.dirs ?? []), ...mkdirs])],
    files,
  };
  const enc = new TextEncoder();
  const state: FileChange[] = [];
  const text = enc.encode(manifestText(next));
  const current = read(MANIFEST);
  if (!same(current, text)) {
    state.push({
      path: MANIFEST,
      action: current ? "edit" : "create",
      before: current,
      after: text,
      why: "original bytes of every file install.ts touches, for --uninstall",
    });
  }
  if (read(STATE_GITIGNORE) === null) {
    state.push({
      path: STATE_GITIGNORE,
      action: "create",
      before: null,
      after: enc.encode("*\n"),
      why: "keeps install.ts state out of git",
    });
  }
  return { changes: [...stale, ...state, ...changes], mkdirs, rmdirs: [] };
}

/** Files changed since install.ts wrote them (their edits would be lost by a byte-for-byte restore). */
export function editedSinceInstall(
  read: Reader,
  manifest: Manifest,
  linkOf: LinkReader = NO_LINKS,
): string[] {
  return manifest.files.filter((f) => !knownState(f, read(f.path), linkOf(f.path))).map((f) => f.path);
}

/**
 * Restores every file in the manifest to its original bytes (or deletes it), then removes the state: the
 * manifest last but for its folder, so an interrupted uninstall still knows what is left to undo.
 * A file edited since install is refused, or with `force` kept beside the restored one as `.fiable-kept`; a
 * file that was a symbolic link is restored as the link.
 */
export function planUninstall(
  read: Reader,
  manifest: Manifest,
  options: { force?: boolean; linkOf?: LinkReader } = {},
): Plan {
  const linkOf = options.linkOf ?? NO_LINKS;
  const edited = editedSinceInstall(read, manifest, linkOf);
  if (edited.length && !options.force) {
    throw new InstallRefusal(
      `Cannot uninstall: ${edited.join(", ")} changed since install.ts wrote ${
        edited.length > 1 ? "them" : "it"
      }, ` +
        "and restoring the original bytes would lose those edits. Run again with --force to restore anyway " +
        `and keep each edited copy beside it as <file>${KEPT_SUFFIX}.`,
    );
  }
  const changes = leftovers(read, [
    MANIFEST,
    STATE_GITIGNORE,
    ...manifest.files.flatMap((f) => [f.path, f.path + KEPT_SUFFIX]),
  ]);
  for (const f of [...manifest.files].reverse()) {
    const current = read(f.path);
    const link = linkOf(f.path);
    const kept = read(f.path + KEPT_SUFFIX);
    // Already kept when an interrupted --force got that far.
    if (current !== null && edited.includes(f.path) && !same(kept, current)) {
      changes.push({
        path: f.path + KEPT_SUFFIX,
        action: kept === null ? "create" : "edit",
        before: kept,
        after: current,
        why: "your edits, kept (--force)",
      });
    }
    if (f.link !== undefined) {
      if (link !== f.link) {
        const after = f.before === null ? new Uint8Array() : fromBase64(f.before);
        changes.push({
          path: f.path,
          action: "restore",
          before: current,
          after,
          link: f.link,
          why: `link to ${f.link}`,
        });
      }
      continue;
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
    if (link !== null || !same(current, original)) {
      changes.push({
        path: f.path,
        action: "restore",
        before: current,
        after: original,
        why: "original bytes",
      });
    }
  }
  changes.push(...stateRemoval(read));
  return { changes, mkdirs: [], rmdirs: [...new Set([STATE_DIR, ...manifest.dirs])].reverse() };
}

function stateRemoval(read: Reader): FileChange[] {
  const out: FileChange[] = [];
  for (const path of [STATE_GITIGNORE, MANIFEST]) {
    const current = read(path);
    if (current !== null) {
      out.push({ path, action: "delete", before: current, after: null, why: "install.ts state" });
    }
  }
  return out;
}

/**
 * What an install interrupted before its manifest was written leaves: the state folder, maybe a temp
 * manifest in it. Null when there is no state folder either (nothing was ever installed).
 */
export function planLeftState(read: Reader, isDir: (path: string) => boolean): Plan | null {
  if (!isDir(STATE_DIR)) return null;
  return {
    changes: [...leftovers(read, [MANIFEST, STATE_GITIGNORE]), ...stateRemoval(read)],
    mkdirs: [],
    rmdirs: [STATE_DIR],
  };
}
