/**
 * Secret detection and redaction: credentials by their shapes (the seven #32 found leaking, PEM keys whole),
 * and never an identifier the simulator issues, a file name, a path or a slug (every id format of the tool
 * catalog, generated). The preset-wide check against secretlint is `tests/secretlint.ts`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { redact, redactText, secretKind } from "../lib/guard/engine/secrets.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";
import { CREDENTIALS, ISSUE_32, pemKey } from "./support/credentials.ts";
import { cpuTimed } from "./support/slowdown.ts";

const s = suite("secrets");

const VALUES: [string, string | null][] = [
  ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "Anthropic key"],
  ["sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OpenAI key"],
  ["hf_abcdefghijklmnopqrstuvwxyz", "Hugging Face token"],
  ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub token"],
  ["AKIAABCDEFGHIJKLMNOP", "AWS access key"],
  ["Q2xhdWRlIGlzIGFuIEFJIGFzc2lzdGFudCBtYWRlIGJ5IEFudGhyb3BpYw9x", "high-entropy token"],
  ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZW1iZXIifQ.c2lnbmF0dXJlX29mX3RoZV90b2tlbg", "JSON web token"],
  ["sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b here", "hex token"],
  ["token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b here", "keyed credential"],
  ["sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "OpenAI key"],
  ["github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "GitHub token"],
  ["a".repeat(5000), "long token"],
  ["CASE-3903B8ED", null],
  ["PAT-9b1c2d3e4f5a", null],
  ["AUTH-CASE-6B9F238D-C71773", null],
  ["REF-CM_AFIB_MODERATE_ANXIOUS_001", null],
  ["500c35f1-889d-41e7-a8f9-504f862944d2", null],
  ["Member meets criteria 1, 2 and 3 of the lumbar MRI policy.", null],
  ["CM-CASE-CM_COMPLEX_HF_AFIB_CKD_HARD_REFUSES_001", null],
  ["DOC-CM_METABOLIC_SYNDROME_HARD_REFUSES_001-006", null],
  ["TIC-Commercial-Advance-Notification-PA-Requirements-1-2026", null],
  ["/logs/artifacts/workspaces/CASE-0EAA0F45/provider/documents/DOC-BUNDLE-c77bc09c__bundle.pdf", null],
  ["/provider/workspace/artifacts/WSA-FS-1a2b3c4d5e6f/content", null],
  ["task-utilization-management-policy-497", null],
];
for (const [value, kind] of VALUES) {
  s(`${value.slice(0, 24)} → ${kind}`, () => assert.is(secretKind(value), kind));
}

/** Seeded ids in every format of the tool catalog (χ-Bench tools.md §4), with long task keys. */
function catalogIds(): string[] {
  let a = 33;
  const rand = () => (a = (Math.imul(a, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
  const HEXU = "0123456789ABCDEF";
  const HEXL = "0123456789abcdef";
  const WORDS = [
    "CM",
    "AFIB",
    "COMPLEX",
    "HF",
    "CKD",
    "HARD",
    "REFUSES",
    "MODERATE",
    "ANXIOUS",
    "POST",
    "STROKE",
  ];
  const key = () =>
    Array.from({ length: 4 + Math.floor(rand() * 5) }, () => WORDS[Math.floor(rand() * 11)]).join("_") +
    `_00${Math.floor(rand() * 9)}`;
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    const k = key();
    ids.push(
      `CASE-${pick(HEXU, 8)}`,
      `CASE-ACT-00${i % 10}`,
      `PA-${pick(HEXU, 8)}`,
      `PAT-${pick(HEXL, 12)}`,
      `PAT-${pick(HEXU, 8)}`,
      `INTAKE-${pick(HEXU, 8)}`,
      `intake-${pick(HEXL, 8)}`,
      `AUTH-CASE-${pick(HEXU, 8)}-${pick(HEXU, 6)}`,
      `P2P-${pick(HEXL, 8)}`,
      `P2P-curated-${pick("0123456789", 6)}`,
      `p2p_req_${pick("abcdefghij", 4)}_00${i % 10}`,
      `LET-${pick(HEXL, 8)}`,
      `LET-DENY-${pick(HEXL, 8)}`,
      `DOC-${pick(HEXL, 8)}`,
      `DOC-BUNDLE-${pick(HEXL, 8)}`,
      `DOC-${k}-00${i % 10}`,
      `SR-${pick(HEXU, 8)}`,
      `PRAC-${pick(HEXL, 12)}`,
      `PRAC-NPI-${pick("0123456789", 10)}`,
      `FORM-POLICY-CASE-${pick(HEXU, 8)}-QUESTIONNAIRE-0${i % 10}`,
      `QRESP-${pick(HEXL, 8)}`,
      `MCD-curated-${pick(HEXU, 6)}`,
      `MSG-PEND-${pick(HEXL, 8)}`,
      `APL-EXT-${pick(HEXL, 8)}`,
      `REF-${k}`,
      `CM-CASE-${k}`,
      `CM-PAT-${k}`,
      `SES-${pick(HEXU, 8)}`,
      `ASSESS-${pick(HEXU, 8)}`,
      `WSA-P2P-CONFIRM-p2p_req_${pick("abcdefghij", 4)}_001`,
    );
  }
  return ids;
}

s("no id of the tool catalog is taken for a secret, alone, in a file name, a path or JSON", () => {
  for (const id of catalogIds()) {
    const texts = [
      id,
      `${id}__prior-authorization-request-form.pdf`,
      `/logs/artifacts/workspaces/${id}/provider/documents/${id}__letter-of-medical-necessity.pdf`,
      JSON.stringify({
        filename: `${id}__mri.pdf`,
        provider_content_url: `/provider/workspace/artifacts/${id}/content`,
      }),
      `Cannot call cm_intake_disenroll_case with ${id}: call cm_care_plan_finalize with ${id} first.`,
      `case_id=${id}&token_usage=12`,
    ];
    for (const text of texts) {
      assert.is(redactText(text), text, `${id} in ${text}`);
      assert.is(secretKind(text), null, text);
    }
  }
});

// Words near a credential's name that are not credentials: each text is kept whole.
const KEPT = [
  '"max_tokens": 30000, "input_tokens": 15971',
  "tokens consumed by the patient simulator; token accounting is omitted",
  "Prior Authorization: AUTH-CASE-6B9F238D-C71773 was issued",
  "password. Then, select the Prior Authorization application",
  "secretory endometrium with no hyperplasia",
  "| Board certification / credentials | Yes |",
  "requires api_key, auth_token, or credentials to be set",
  "/tmp/.python_tmp/3f2a9c1b7d6e4f5a8b9c0d1e2f3a4b5c.py",
  "the secret CM-CASE-CM_COMPLEX_HF_AFIB_CKD_HARD_REFUSES_001 stays on file",
  "confirmation token P2P-curated-826157 and session token SES-0E12A4B9",
  '{"source_call_id":"call_5f2a9c1b7d6e4f5a8b9c0d1e","content":"ok"}',
  "see https://www.cms.gov/medicare/coverage:section-4@latest",
];
for (const text of KEPT) s(`kept: ${text.slice(0, 40)}`, () => assert.is(redactText(text), text));

s("a bare 32-hex key is redacted unless the evidence holds it as an id; 40+ hex always", () => {
  const hex = "3f2a9c1b7d6e4f5a8b9c0d1e2f3a4b5c";
  const text = `Session ID: ${hex}`;
  assert.is(redactText(text), "Session ID: [redacted]");
  assert.is(secretKind(hex), "hex token");
  const held = new Set([hex.toUpperCase()]);
  const keep = (h: string) => held.has(h.toUpperCase());
  assert.is(redactText(text, keep), text, "an id a result showed stays");
  assert.is(secretKind(hex, keep), null);
  assert.is(redactText(`case_id=${hex}`, keep), `case_id=${hex}`);
  assert.is(redactText(`case_id=${hex}`), "case_id=[redacted]", "glued to a name, still redacted");
  const sha1 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b";
  assert.is(redactText(`sha ${sha1}`, () => true), "sha [redacted]", "40+ hex is a key wherever it is");
  // Not glued ids: a `-` or `_` joins it to a name, a `.` to a file extension.
  for (const id of [`call_${hex}`, `DOC-${hex}`, `${hex}.py`]) assert.is(redactText(id), id);
});

s("a random base64 key glued to a name by = is redacted; the name and an id glued the same way stay", () => {
  const key = "Q2xhdWRlIGlzIGFuIEFJIGFzc2lzdGFudCBtYWRlIGJ5IEFudGhyb3BpYw9x";
  assert.is(redactText(`case_id=${key}`), "case_id=[redacted]");
  assert.is(redactText(`?a=1&token_hint=${key}==`), "?a=1&token_hint=[redacted]");
  assert.is(
    redactText("case_id=CASE-3903B8ED&document_id=DOC-CM_METABOLIC_SYNDROME_HARD_REFUSES_001-006"),
    "case_id=CASE-3903B8ED&document_id=DOC-CM_METABOLIC_SYNDROME_HARD_REFUSES_001-006",
  );
});

// The seven shapes #32 found reaching ledgers, and what is left of each.
const FOUND_BY_32: [string, string][] = [
  ["Slack user token", "[redacted]"],
  ["GitLab token", "[redacted]"],
  ["Twilio key", "twilio [redacted]"],
  ["32-hex API key", "X-API-Key: [redacted]"],
  ["password in a URL", "https://[redacted]@api.acme-health.org/v1"],
  ["password in text", "login with password=[redacted] today"],
  ["PEM private key", "[redacted]"],
];
s("the seven shapes of #32 are all listed", () => assert.equal(FOUND_BY_32.map(([n]) => n), ISSUE_32));
for (const [name, expected] of FOUND_BY_32) {
  const planted = CREDENTIALS.find((c) => c.name === name)!;
  s(`#32: ${name} → ${expected}`, () => {
    assert.is(redactText(planted.text), expected);
    const ids = extractIds(redactText(`${planted.text} in CASE-3903B8ED`));
    assert.equal(ids, extractIds(`${expected} in CASE-3903B8ED`), "ids are read from the redacted text only");
  });
}

s("a PEM private key goes from BEGIN to END, in text and escaped in JSON", () => {
  const { text, lastLine } = pemKey("OPENSSH PRIVATE KEY");
  assert.is(redactText(`key:\n${text}\nend`), "key:\n[redacted]\nend");
  const json = JSON.stringify({ note: `pasted ${text} here` });
  assert.is(redactText(json), '{"note":"pasted [redacted] here"}');
  assert.not.match(redactText(JSON.stringify(json)), lastLine);
});

s("a PEM key cut short loses all it kept: no END, or no BEGIN", () => {
  const { text, lastLine } = pemKey();
  const head = text.slice(0, text.indexOf("-----END"));
  assert.is(redactText(`${head}`), "[redacted]");
  const tail = text.slice(text.indexOf("\n", 200) + 1);
  const out = redactText(`see: ${tail} done`);
  assert.is(out, "see: [redacted] done");
  assert.not.match(out, lastLine);
});

s("a certificate (public) is kept; an unbounded key body stops at MAX_PEM", () => {
  const cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----";
  assert.is(redactText(cert), cert);
  const { value: out, cpuMs } = cpuTimed(() =>
    redactText(`-----BEGIN PRIVATE KEY-----\n${"ab\n".repeat(400_000)}`)
  );
  assert.ok(out.startsWith("[redacted]"));
  assert.ok(cpuMs < 1000, `took ${Math.round(cpuMs)} ms of CPU`);
});

s("a megabyte of BEGIN lines, of END lines, or BEGINs before one END is redacted in linear time", () => {
  for (
    const text of [
      "-----BEGIN PRIVATE KEY-----\n".repeat(37_000),
      "-----END PRIVATE KEY-----\n".repeat(40_000),
      "-----BEGIN PRIVATE KEY-----\nx\n".repeat(30_000) + "-----END PRIVATE KEY-----",
    ]
  ) {
    const { value: out, cpuMs } = cpuTimed(() => redactText(text));
    assert.not.match(out, "PRIVATE KEY");
    assert.ok(cpuMs < 1000, `took ${Math.round(cpuMs)} ms of CPU`);
  }
});

s("redactText replaces secrets inside prose", () => {
  assert.is(redactText("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 here"), "key [redacted] here");
});

s("redact walks objects, redacts secret-named keys, keeps ids and ${ENV} references", () => {
  const out = redact({
    case_id: "CASE-3903B8ED",
    authorization_number: "AUTH-CASE-6B9F238D-C71773",
    api_key: "plainvalue",
    live_token: "${FIABLE_LIVE_TOKEN}",
    nested: [{ text: "Bearer abcdefghijklmnopqrstuvwxyz012345" }],
  });
  assert.equal(out, {
    case_id: "CASE-3903B8ED",
    authorization_number: "AUTH-CASE-6B9F238D-C71773",
    api_key: "[redacted]",
    live_token: "${FIABLE_LIVE_TOKEN}",
    nested: [{ text: "[redacted]" }],
  });
});

s("secret-named keys are redacted case-insensitively; data keys that merely contain them are kept", () => {
  const hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b";
  const out = redact({
    Auth: "plain-session-value",
    AUTHORIZATION: "Basic dXNlcjpwYXNz",
    Cookie: "sid=1",
    refresh_token: "r1",
    auth_type: "prior_auth",
    author_id: "PRAC-NPI-1234567890",
    token_usage: 12,
    note: `auth ${hex}`,
  });
  assert.equal(out, {
    Auth: "[redacted]",
    AUTHORIZATION: "[redacted]",
    Cookie: "[redacted]",
    refresh_token: "[redacted]",
    auth_type: "prior_auth",
    author_id: "PRAC-NPI-1234567890",
    token_usage: 12,
    note: "auth [redacted]",
  });
});

s("values under secret-named keys of JSON held in text are redacted, plain or escaped", () => {
  const inner = JSON.stringify({ case_id: "CASE-3903B8ED", token: "plain-value", note: "kept" });
  assert.is(redactText(inner), '{"case_id":"CASE-3903B8ED","token":"[redacted]","note":"kept"}');
  const outer = JSON.stringify({ content: [{ type: "text", text: inner }] });
  assert.equal(JSON.parse(JSON.parse(redactText(outer)).content[0].text), {
    case_id: "CASE-3903B8ED",
    token: "[redacted]",
    note: "kept",
  });
  assert.is(
    redactText('"password": "hunter2" and "auth_type": "prior"'),
    '"password": "[redacted]" and "auth_type": "prior"',
  );
});

s("a run of 1 MB of backslashes or quotes is scanned in linear time", () => {
  const { cpuMs } = cpuTimed(() =>
    redactText("\\".repeat(1_000_000) + '"'.repeat(1_000_000) + '"token":'.repeat(100_000))
  );
  assert.ok(cpuMs < 1000, `took ${Math.round(cpuMs)} ms of CPU`);
});

s("a 7 MB unbroken token is redacted whole, in linear time, without overflowing the stack", () => {
  const { value: out, cpuMs } = cpuTimed(() => redactText(`before ${"aB3".repeat(2_400_000)} after`));
  assert.is(out, "before [redacted: long token] after");
  assert.ok(cpuMs < 1000, `took ${Math.round(cpuMs)} ms of CPU`);
});

s("redact cuts nesting deeper than 64 levels and says so, instead of overflowing the stack", () => {
  let deep: unknown = { case_id: "CASE-3903B8ED" };
  for (let i = 0; i < 5000; i++) deep = { next: deep };
  const state = { deep: false };
  const out = JSON.stringify(redact(deep, "", state));
  assert.ok(state.deep);
  assert.match(out, "[truncated: nested deeper than 64]");
  const shallow = { deep: false };
  redact({ a: [{ b: 1 }] }, "", shallow);
  assert.not.ok(shallow.deep);
});

s.run();
