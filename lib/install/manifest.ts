/**
 * The install manifest, `.fiable-install/manifest.json` in the checkout: for every file install.ts wrote,
 * its original bytes (or null when it did not exist) and the SHA-256 of what install.ts left there, so
 * `--uninstall` restores byte for byte and notices files edited since.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { InstallRefusal } from "./checkout.ts";

/** The folder install.ts keeps its own state in, inside the checkout. */
export const STATE_DIR = ".fiable-install";
/** The manifest path relative to the checkout root. */
export const MANIFEST = `${STATE_DIR}/manifest.json`;
/** Makes git ignore the state folder without touching chi-bench's own .gitignore. */
export const STATE_GITIGNORE = `${STATE_DIR}/.gitignore`;

/** One file install.ts wrote. */
export interface ManifestEntry {
  path: string;
  /** The original bytes (base64), or null when install.ts created the file. */
  before: string | null;
  /** SHA-256 (hex) of the bytes install.ts wrote. */
  after: string;
}

/** Every file and folder install.ts created or changed in a checkout. */
export interface Manifest {
  v: 1;
  files: ManifestEntry[];
  /** Folders install.ts created, parents first; removed on uninstall when empty. */
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
  const m = data as Manifest;
  const ok = m && m.v === 1 && Array.isArray(m.files) && Array.isArray(m.dirs) &&
    m.files.every((f) =>
      typeof f.path === "string" && typeof f.after === "string" &&
      (f.before === null || typeof f.before === "string")
    );
  if (!ok) {
    throw new InstallRefusal(
      `Cannot read ${MANIFEST}: it is not a version 1 install manifest. Restore it from a backup, or ` +
        "remove the files it lists by hand before installing again.",
    );
  }
  return m;
}

/** The manifest as written to disk (stable, one file per line). */
export function manifestText(m: Manifest): string {
  const files = m.files.map((f) => "    " + JSON.stringify(f)).join(",\n");
  return `{\n  "v": 1,\n  "dirs": ${JSON.stringify(m.dirs)},\n  "files": [\n${files}\n  ]\n}\n`;
}
