/** Live ingest: each ledger record also goes to the dashboard's `POST /ingest`, fire-and-forget, ≤ 200 ms. */
import type { LedgerRecord } from "../engine/record.ts";

/** The most a live post may take before it is abandoned. */
export const LIVE_TIMEOUT_MS = 200;

/** Posts a record; resolves (never rejects) within the timeout, whatever the dashboard does. */
export async function postLive(
  url: string,
  token: string,
  record: LedgerRecord,
  timeoutMs = LIVE_TIMEOUT_MS,
): Promise<void> {
  try {
    const res = await fetch(url.replace(/\/$/, "") + "/ingest", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(record),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
  } catch {
    // The dashboard is optional: a slow or absent one never affects the guard.
  }
}
