/** Links into a trial's transcript, which the Trial page pages: the same URL from every page that points at a step. */

/** Transcript entries per page of the Trial page. */
export const ITEMS_PER_PAGE = 250;

/** The Trial page's URL showing transcript entry `index` (on its page, anchored), with a replay overlay. */
export function entryHref(rowId: string, index: number, overlay: string | null): string {
  const q = new URLSearchParams({ page: String(Math.floor(index / ITEMS_PER_PAGE) + 1) });
  if (overlay) q.set("replay", overlay);
  return `/trials/${rowId}?${q}#item-${index}`;
}

/** The replay overlay a query asks for: `none`, one of the trial's replay arms, else its first one. */
export function overlayOf(asked: string | undefined, overlays: readonly string[]): string | null {
  return asked === "none" ? null : overlays.includes(asked ?? "") ? asked! : overlays[0] ?? null;
}
