/**
 * The redactor judged by a well-kept rule set: secretlint's recommended preset (pinned in deno.json, its AWS
 * id scan switched on) is the oracle. Every credential planted in `tests/support/credentials.ts` that the
 * preset detects is planted in prose, JSON, JSON held in a JSON string and an env line; after `redactText`
 * the preset finds nothing but our own markers, the secret is gone (as planted and upper-cased), and no id
 * read from the redacted text holds a piece of it. Every scanning rule of the preset is exercised.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { lintSource } from "@secretlint/core";
import { creator } from "@secretlint/secretlint-rule-preset-recommend";
import { redact, redactText, secretKind } from "../lib/guard/engine/secrets.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";
import { type Credential, CREDENTIALS } from "./support/credentials.ts";

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
  });
}

s.run();
