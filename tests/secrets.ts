/** Secret detection and redaction. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { redact, redactText, secretKind } from "../lib/guard/secrets.ts";

const s = suite("secrets");

const VALUES: [string, string | null][] = [
  ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "Anthropic key"],
  ["sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OpenAI key"],
  ["hf_abcdefghijklmnopqrstuvwxyz", "Hugging Face token"],
  ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub token"],
  ["AKIAABCDEFGHIJKLMNOP", "AWS access key"],
  ["Q2xhdWRlIGlzIGFuIEFJIGFzc2lzdGFudCBtYWRlIGJ5IEFudGhyb3BpYw9x", "high-entropy token"],
  ["CASE-3903B8ED", null],
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

s.run();
