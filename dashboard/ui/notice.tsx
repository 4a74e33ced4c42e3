/**
 * The line above every page: the demo's caveat when its synthetic trials are shown, why prices or a replay
 * summary could not be read, and how far the first scan of the sources got while it runs.
 */
import type { Child } from "hono/jsx";
import type { Store } from "../read/store.ts";
import { ScanStatus, SYNTHETIC_NOTICE } from "./layout.tsx";

/** What the page should say above it, or null. */
export function notice(store: Store, pricesNote: string | null): Child | null {
  const text = [
    store.rows().some((r) => r.synthetic) ? SYNTHETIC_NOTICE : null,
    pricesNote,
    ...store.summaryNotes(),
  ].filter(Boolean).join(" ");
  const progress = store.progress();
  if (!progress) return text || null;
  return (
    <>
      {text ? `${text} ` : null}
      <ScanStatus progress={progress} rows={store.rows().length} />
    </>
  );
}
