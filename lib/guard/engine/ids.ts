/** Identifiers and codes observed in text: what the grounding checks compare a call's arguments against. */

/** Tokens that carry a digit or a dash-separated upper-case id: case/patient/request/letter ids, codes, NPIs. */
const TOKEN = /[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]/g;
const MAX_TOKENS = 8000;

/** Canonical form for comparison: upper case, no dots or surrounding punctuation (`e11.9` ≡ `E119`). */
export function normalizeId(value: string): string {
  return value.trim().toUpperCase().replace(/\./g, "");
}

/** True for a token worth remembering: it has a digit, or it is an upper-case id with a dash (`PAYER-CONTACT-001`). */
function isIdLike(token: string): boolean {
  return /\d/.test(token) || /^[A-Z][A-Z_]*-[A-Z0-9_-]+$/.test(token);
}

/** Procedure and diagnosis code shapes: CPT (`73721`, `0098T`), HCPCS (`J9312`), ICD-10 (`M75.110`). */
const CODE = /^(?:\d{5}|\d{4}[A-Z]|[A-Z]\d{4}|[A-Z]\d{2}(?:\.?[0-9A-Z]{1,4})?)$/i;
/** JSON string escapes (`\n`, `\t`, `\r`) written out in nested or escaped results: separators, not text. */
const ESCAPES = /\\[nrt]/g;

/**
 * The ids inside a compound token: the parts of a file name (`DOC-1a2b3c4d__lab-results.pdf` holds
 * `DOC-1a2b3c4d`) and the code-shaped segments (`cpt-43775`, `73721-RT` hold `43775`, `73721`).
 */
function partsOf(token: string): string[] {
  const parts: string[] = [];
  for (const piece of token.split("__")) {
    const stem = piece.replace(/\.[A-Za-z]{2,5}$/, "");
    if (stem !== token) parts.push(stem);
    for (const segment of stem.split(/[-_]/)) if (segment !== stem && CODE.test(segment)) parts.push(segment);
  }
  return parts;
}

/** Every id-like token in a text, normalised and de-duplicated, capped so huge results stay cheap. */
export function extractIds(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.replace(ESCAPES, " ").matchAll(TOKEN)) {
    const token = m[0];
    if (token.length > 64 || !isIdLike(token)) continue;
    found.add(normalizeId(token));
    if (/[-_.]/.test(token)) {
      for (const part of partsOf(token)) if (isIdLike(part)) found.add(normalizeId(part));
    }
    if (found.size >= MAX_TOKENS) break;
  }
  return [...found];
}

/** Known identifier shapes (from the benchmark's tool catalog), used to pick the ids out of a call's arguments. */
export const ID_SHAPES: Record<string, RegExp> = {
  case: /^(CASE-[0-9A-F]{8}|CASE-ACT-\d{3,}|CM-CASE-[A-Z0-9_]+|CM-[0-9A-F]{8})$/,
  patient: /^(PAT-[0-9a-f]{12}|PAT-[0-9A-F]{8}|CM-PAT-[A-Z0-9_]+)$/,
  intake: /^(INTAKE-[0-9A-F]{8}|intake-[0-9a-f]{8})$/,
  p2p: /^(P2P-[A-Za-z0-9-]+|p2p_req_[a-z]+_\d+)$/,
  letter: /^LET-(?:(?:DENY|APPROVE|PARTIAL|APL)-)?[0-9a-f]{8}$/,
  document: /^DOC-[A-Za-z0-9_-]+$/,
  referral: /^REF-[A-Z0-9_]+$/,
  session: /^SES-[0-9A-F]{8}$/,
  contact: /^PAYER-CONTACT-\d{3}$/,
  practitioner: /^PRAC-([0-9a-f]{12}|NPI-\d{10})$/,
};

/** The subject key shared by a CM referral, case and patient (`REF-K`, `CM-CASE-K`, `CM-PAT-K` → `K`); other ids unchanged. */
export function subjectKey(id: string): string {
  const m = /^(?:REF|CM-CASE|CM-PAT)-([A-Z0-9_]+)$/.exec(id.trim());
  return m ? m[1] : id.trim();
}

/** Every string inside a value (objects and arrays walked), capped. */
export function stringsIn(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 6 || out.length > 500) return out;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const v of value) stringsIn(v, out, depth + 1); }
  else if (value && typeof value === "object") {
    for (const v of Object.values(value)) stringsIn(v, out, depth + 1);
  }
  return out;
}
