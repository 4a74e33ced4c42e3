/**
 * The dashboard's pages, in navigation order. A page is a folder here whose route.tsx exports a `Page` (its
 * routes as a hono sub-app over the shared context, its place in the navigation); to add one, add its folder
 * and its line below. A page imports the shared read model (../read), the frame and shared components (../ui),
 * and never another page (tests/layers.ts).
 */
import type { Page } from "../context.ts";
import { page as arms } from "./arms/route.tsx";
import { page as matrix } from "./matrix/route.tsx";
import { page as trials } from "./trials/route.tsx";
import { page as checks } from "./checks/route.tsx";
import { page as rules } from "./rules/route.tsx";
import { page as live } from "./live/route.tsx";
import { page as handbook } from "./handbook/route.tsx";
import { page as trial } from "./trial/route.tsx";
import { page as ledger } from "./ledger/route.tsx";
import { page as compare } from "./compare/route.tsx";
import { page as search } from "./search/route.tsx";
import { page as ingest } from "./ingest/route.ts";
import { page as scan } from "./scan/route.tsx";
import { page as assets } from "./static/route.tsx";

/** Every page: those with a `nav` entry appear in the navigation in this order. */
export const PAGES: readonly Page[] = [
  arms,
  matrix,
  trials,
  checks,
  rules,
  live,
  handbook,
  trial,
  ledger,
  compare,
  search,
  ingest,
  scan,
  assets,
];
