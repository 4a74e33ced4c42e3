/**
 * Where the guard's facts sit in a trial's result.json, on its own so the schema (guard_facts.ts) and the
 * lazy reader (guard_facts_reader.ts) share it without importing each other.
 */

/** The metadata key of the facts in `agent_result.metadata` (`<key>_error` holds why there are none). */
export const FACTS_KEY = "fiable_guard";
