/** Every contract rule, as an explicit list (static imports, so the Node bundle carries them all). */
import type { Rule } from "../lib/rule.ts";
import { rule as submitAfterDetermination } from "./submit_after_determination.ts";

/** All rules, in ID order. */
export const RULES: readonly Rule[] = [
  submitAfterDetermination,
] as Rule[];
