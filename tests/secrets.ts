/** Secret detection and redaction. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { redact, redactText, secretKind } from "../lib/guard/engine/secrets.ts";

const s = suite("secrets");

const VALUES: [string, string | null][] = [
  ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "Anthropic key"],
  ["sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OpenAI key"],
  ["hf_abcdefghijklmnopqrstuvwxyz", "Hugging Face token"],
  ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub token"],
  ["AKIAABCDEFGHIJKLMNOP", "AWS access key"],
  ["Q2xhdWRlIGlzIGFuIEFJIGFzc2lzdGFudCBtYWRlIGJ5IEFudGhyb3BpYw9x", "high-entropy token"],
  ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZW1iZXIifQ.c2lnbmF0dXJlX29mX3RoZV90b2tlbg", "JSON web token"],
  ["token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b here", "hex token"],
  ["sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "OpenAI key"],
  ["github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "GitHub token"],
  ["a".repeat(5000), "long token"],
  ["CASE-3903B8ED", null],
  ["PAT-9b1c2d3e4f5a", null],
  ["AUTH-CASE-6B9F238D-C71773", null],
  ["REF-CM_AFIB_MODERATE_ANXIOUS_001", null],
  ["500c35f1-889d-41e7-a8f9-504f862944d2", null],
  ["Member meets criteria 1, 2 and 3 of the lumbar MRI policy.", null],
];
for (const [value, kind] of VALUES) {
  s(`${value.slice(0, 24)} → ${kind}`, () => assert.is(secretKind(value), kind));
}

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
  const started = performance.now();
  redactText("\\".repeat(1_000_000) + '"'.repeat(1_000_000) + '"token":'.repeat(100_000));
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
});

s("a 7 MB unbroken token is redacted whole, in linear time, without overflowing the stack", () => {
  const started = performance.now();
  const out = redactText(`before ${"aB3".repeat(2_400_000)} after`);
  assert.is(out, "before [redacted: 7200000-character token] after");
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
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
