/** The digest of a trajectory's χ-World calls as the guard saw them, shared by the guard's facts and their readers. */
import { createHash } from "node:crypto";
import type { WorldCall } from "./tool_counts.ts";

/** SHA-256 of a text or bytes, in hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** SHA-256 of the calls' tool_use_ids in order (refused calls left out); null when a call has no id. */
export function callsDigest(calls: readonly WorldCall[]): string | null {
  const ids = calls.filter((c) => !c.refused).map((c) => c.id);
  return ids.length && ids.every(Boolean) ? sha256(ids.join("\n")) : null;
}
