/**
 * The install manifest, `.fiable-install/manifest.json` in the checkout, is a journal: it is written (atomically)
 * before any file it lists changes, and records for each file its original bytes (or null when it did not
 * exist), the SHA-256 of what install.ts writes there, and of what an earlier install left there when this one
 * replaces it. Whatever step an install or uninstall was interrupted at, each listed file is in one of those
 * states, so `--uninstall` restores byte for byte, `--apply` resumes, and a file in any other state is one
 * someone edited.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { InstallRefusal } from "./checkout.ts";

/** The folder install.ts keeps its own state in, inside the checkout. */
export const STATE_DIR = ".fiable-install";
/** The manifest path relative to the checkout root. */
export const MANIFEST = `${STATE_DIR}/manifest.json`;
/** Makes git ignore the state folder without touching chi-bench's own .gitignore. */
export const STATE_GITIGNORE = `${STATE_DIR}/.gitignore`;

/** One file install.ts writes. */
export interface ManifestEntry {
  path: string;
  /** The original bytes (base64), or null when install.ts creates the file. */
  before: string | null;
  /** SHA-256 (hex) of the bytes install.ts writes (once the install that wrote this entry finished). */
  after: string;
  /** SHA-256 (hex) of what an earlier install left in the file, when this install replaces it. */
  previous?: string;
  /** The original was a symbolic link with this target (`before`: the bytes it led to); restored as a link. */
  link?: string;
}

/** Every file and folder install.ts creates or changes in a checkout. */
export interface Manifest {
  v: 2;
  files: ManifestEntry[];
  /** Folders install.ts creates, parents first; removed on uninstall when empty. */
  dirs: string[];
}

/** Hex SHA-256 of bytes. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Bytes → base64. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

/** base64 → bytes. */
export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}

/**
 * True when `path` names a place inside the checkout by its text: relative, `/`-separated, no `.` or `..`
 * segment, nothing empty, no backslash or NUL. (Links on the way are checked on disk: lib/install/fs.ts.)
 */
export function pathInside(path: string): boolean {
  return path !== "" && !path.startsWith("/") && !/^[A-Za-z]:/.test(path) && !/[\\\0]/.test(path) &&
    path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** True when a link at `path` with this target points inside the checkout (relative, never above its root). */
export function linkInside(path: string, target: string): boolean {
  if (target === "" || target.startsWith("/") || /[\\\0]/.test(target)) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  return resolved !== ".." && !resolved.startsWith("../");
}

/** Parses the manifest text; throws InstallRefusal when it is not one install.ts wrote. */
export function parseManifest(text: string): Manifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new InstallRefusal(
      `Cannot read ${MANIFEST}: ${(err as Error).message}. Restore it from a backup, or remove the ` +
        "files it lists by hand before installing again.",
    );
  }
  // Version 1 (before the journal) lists finished installs only: the same fields, no `previous`.
  const m = data as { v: unknown; files: ManifestEntry[]; dirs: string[] };
  const ok = m && (m.v === 1 || m.v === 2) && Array.isArray(m.files) && Array.isArray(m.dirs) &&
    m.dirs.every((d) => typeof d === "string") &&
    m.files.every((f) =>
      f && typeof f.path === "string" && typeof f.after === "string" &&
      (f.before === null || typeof f.before === "string") &&
      (f.previous === undefined || typeof f.previous === "string") &&
      (f.link === undefined || typeof f.link === "string")
    );
  if (!ok) {
    throw new InstallRefusal(
      `Cannot read ${MANIFEST}: it is not a version 1 or 2 install manifest. Restore it from a backup, or ` +
        "remove the files it lists by hand before installing again.",
    );
  }
  const outside = [...m.dirs, ...m.files.map((f) => f.path)].find((p) => !pathInside(p)) ??
    m.files.find((f) => f.link !== undefined && !linkInside(f.path, f.link))?.path;
  if (outside !== undefined) {
    throw new InstallRefusal(
      `Cannot read ${MANIFEST}: it lists ${
        JSON.stringify(outside)
      }, which is not a path inside the checkout ` +
        "(no .., no absolute path, no link out); install.ts never writes one, and nothing was written. Restore " +
        "the manifest from a backup, or undo the install by hand.",
    );
  }
  return { v: 2, files: m.files, dirs: m.dirs };
}

/**
 * True when the file is as it was before install.ts: the same link (`link`: the link's target, or null when
 * the path is no link), else the same bytes (null: no file).
 */
export function isOriginal(entry: ManifestEntry, bytes: Uint8Array | null, link: string | null): boolean {
  if (entry.link !== undefined) return link === entry.link;
  return link === null &&
    (entry.before === null ? bytes === null : bytes !== null && toBase64(bytes) === entry.before);
}

/**
 * True when the file is in a state install.ts knows it in: its original, what install.ts writes, or what an
 * earlier install left (`link` as for isOriginal). Any other state is someone's edit.
 */
export function knownState(
  entry: ManifestEntry,
  bytes: Uint8Array | null,
  link: string | null = null,
): boolean {
  if (isOriginal(entry, bytes, link)) return true;
  if (bytes === null || link !== null) return false;
  const hash = sha256(bytes);
  return hash === entry.after || hash === entry.previous;
}

/** The manifest as written to disk (stable, one file per line). */
export function manifestText(m: Manifest): string {
  const files = m.files.map((f) => "    " + JSON.stringify(f)).join(",\n");
  return `{\n  "v": 2,\n  "dirs": ${JSON.stringify(m.dirs)},\n  "files": [\n${files}\n  ]\n}\n`;
}
