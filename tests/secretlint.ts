/**
 * The redactor judged by a well-kept rule set: secretlint's recommended preset (pinned in deno.json, its AWS
 * id scan switched on) is the oracle. Every credential planted in `tests/support/credentials.ts` that the
 * preset detects is planted in prose, JSON, JSON held in a JSON string and an env line; after `redactText`
 * the preset finds nothing but our own markers, the secret is gone (as planted and upper-cased), and no id
 * read from the redacted text holds a piece of it. Every scanning rule of the preset is exercised. Beside it,
 * gitleaks' default rules: every rule a shape in lib/guard/engine/secret_shapes.ts names has a credential
 * planted in the rule's shape, and each is redacted too, glued to a name (`case_id=<key>`) and in the guard's
 * record, deny reason and rule messages of a call that names it as its case.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { lintSource } from "@secretlint/core";
import { creator } from "@secretlint/secretlint-rule-preset-recommend";
import { redact, redactText, secretKind } from "../lib/guard/engine/secrets.ts";
import { KEYED_SHAPES, VENDOR_SHAPES } from "../lib/guard/engine/secret_shapes.ts";
import { decide, DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { recordsOf } from "../lib/guard/engine/rule.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";
import { type Credential, CREDENTIALS } from "./support/credentials.ts";
import { PROVIDER_PROMPT } from "./support/payloads.ts";

const PRESET = creator.meta.id;
const CONFIG = {
  rules: [{
    id: PRESET,
    rule: creator,
    rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
  }],
};
/** The preset's rules that scan content (the comment filter only silences the others). */
const SCANNERS = creator.rules.map((r) => r.meta.id).filter((id) => !id.endsWith("filter-comments"));

/** What the oracle finds in a text: each finding's rule and message (which quotes what it found). */
async function oracle(content: string, file = "note.txt"): Promise<{ rule: string; text: string }[]> {
  const ext = file.slice(file.lastIndexOf("."));
  const result = await lintSource({
    source: { filePath: file, content, ext, contentType: "text" },
    options: { config: CONFIG },
  });
  return result.messages.map((m) => ({ rule: m.ruleId, text: m.message }));
}

/** The ways a credential reaches a record: prose, a JSON value, JSON inside a JSON string, an env line. */
function wrappings(c: Credential): [string, string][] {
  return [
    ["as planted", c.text],
    ["in prose", `The portal said: ${c.text} — keep it safe.`],
    ["in JSON", JSON.stringify({ case_id: "CASE-3903B8ED", note: c.text })],
    [
      "in JSON in JSON",
      JSON.stringify({ content: [{ type: "text", text: JSON.stringify({ note: c.text }) }] }),
    ],
    ["on an env line", `EXPORTED_VALUE=${c.text}`],
    // As a rule's message writes an argument: glued to its name, the text redacted after the join.
    [
      "after case_id=",
      `Cannot call cases_get_case with case_id=${c.text}: no earlier result returned that id.`,
    ],
  ];
}

/** True when what a finding quotes is our marker, not the secret (npm's rule flags any `_authToken=` value). */
function onlyMarkers(finding: string, secret: string): boolean {
  return !finding.includes(secret) && finding.includes("[redacted");
}

const s = suite("secretlint");

s("every scanning rule of the preset detects at least one planted credential it claims", async () => {
  const seen = new Set<string>();
  for (const c of CREDENTIALS.filter((c) => c.source.startsWith("secretlint:"))) {
    const rule = `@secretlint/secretlint-rule-${c.source.slice("secretlint:".length)}`;
    const found = (await oracle(c.text, c.file)).map((f) => f.rule);
    assert.ok(found.includes(rule), `${c.name}: the oracle should report ${rule}, got ${found.join(", ")}`);
    for (const r of found) seen.add(r);
  }
  assert.equal(SCANNERS.filter((id) => !seen.has(id)), [], "preset rules without a planted credential");
});

s(
  "every gitleaks rule a shape names has a planted credential, and every planted one a shape that names it",
  () => {
    const rules = (source: string | undefined) =>
      source?.startsWith("gitleaks:") ? source.slice("gitleaks:".length).split(", ") : [];
    const named = new Set([...VENDOR_SHAPES, ...KEYED_SHAPES].flatMap((shape) => rules(shape.source)));
    const planted = new Set(CREDENTIALS.flatMap((c) => rules(c.source)));
    assert.equal(
      [...named].filter((r) => !planted.has(r)),
      [],
      "named by lib/guard/engine/secret_shapes.ts, never planted",
    );
    assert.equal(
      [...planted].filter((r) => !named.has(r)),
      [],
      "planted, but no shape says it implements the rule",
    );
    assert.ok(named.size >= 140, `${named.size} gitleaks rules`);
  },
);

/** A call naming the credential as its case: every field of the guard's record, the deny reason and each rule's message. */
function recordedFor(text: string): string {
  const out = decide(
    {
      word: "pre",
      session: "s",
      tool: "mcp__healthverse__auth_submit_authorization",
      input: { case_id: text, note: `case_id=${text}` },
      toolUseId: "t1",
    },
    recordsOf({ prompt: PROVIDER_PROMPT }),
    { arm: "critic", bounds: DEFAULT_BOUNDS },
    "2026-11-30T00:00:00.000Z",
  );
  assert.is(out.record?.decision, "deny", "the call is denied, so its reason quotes the argument");
  return JSON.stringify(out);
}

for (const c of CREDENTIALS) {
  s(`${c.name} (${c.source}): redacted wherever it is planted`, async () => {
    for (const [where, text] of wrappings(c)) {
      const out = redactText(text);
      assert.not.ok(out.includes(c.secret), `${where}: the secret survived in ${out.slice(0, 200)}`);
      assert.not.ok(out.toUpperCase().includes(c.secret.toUpperCase()), `${where}: upper-cased`);
      const left = (await oracle(out, c.file)).filter((f) => !onlyMarkers(f.text, c.secret));
      assert.equal(left, [], `${where}: the oracle still finds ${JSON.stringify(left)}`);
      const piece = c.secret.slice(Math.floor(c.secret.length / 2) - 4, Math.floor(c.secret.length / 2) + 4);
      const leaked = extractIds(out).filter((id) => id.includes(piece.toUpperCase()));
      assert.equal(leaked, [], `${where}: ids read after redaction hold a piece of the secret`);
    }
    assert.ok(secretKind(c.text), `${c.name}: secretKind should name it`);
    const tree = JSON.stringify(redact({ case_id: "CASE-3903B8ED", nested: [{ note: c.text }] }));
    assert.not.ok(tree.includes(c.secret), "redact (a tree) left it");
    const recorded = recordedFor(c.text);
    assert.not.ok(
      recorded.includes(c.secret),
      `the guard's record or reply kept it: ${recorded.slice(0, 400)}`,
    );
  });
}

s.run();
