/**
 * What a credential looks like: the known prefixes and structures of secretlint's recommended preset
 * (13.1) and of gitleaks' rules, each written a little wider than its source (a shorter or longer body, a
 * looser left edge) so that whatever they detect is caught here too. Never an identifier's shape: the
 * simulator's ids (`CASE-…`, `CM-CASE-…`, `DOC-…`, file names, paths) carry no credential prefix, and a
 * keyed value must follow a credential's name. Every quantifier is bounded or runs over one token, so no
 * pattern backtracks over long input (token runs past `MAX_TOKEN` are cut before any pattern sees them).
 */

/** A credential shape: its kind, and a global pattern whose match (or whose `secret` group) is the secret. */
export interface SecretShape {
  kind: string;
  pattern: RegExp;
  /** For a keyed value: whether the value found after `lead` (the name and operator) is a credential. */
  accept?: (value: string, lead: string) => boolean;
  /**
   * A small pattern the text must hold before `pattern` runs: most texts the hook redacts (ids, tool names,
   * notes) fail it, so a hook process seldom pays for compiling the larger pattern.
   */
  gate?: RegExp;
}

/**
 * A shape that starts with a vendor prefix `head`. It counts only where no letter precedes it (`task-…` holds
 * no `sk-` key): `redactText` checks that edge on each match, so the pattern starts with the prefix's literal,
 * which V8 searches for instead of trying every position.
 */
function prefixed(kind: string, head: string, body: string, flags = ""): SecretShape {
  return { kind, pattern: new RegExp(`${head}${body}`, `g${flags}`) };
}

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** Quotes and JSON escapes that may stand between a name and its value (`"token": "…"`, `\"token\":\"…`). */
const QUOTES = "[\\\\\"'`]{0,8}";

/** Tokens with a vendor prefix (secretlint preset-recommend's scanners, gitleaks' rules of the same vendors). */
export const VENDOR_SHAPES: readonly SecretShape[] = [
  prefixed("Anthropic key", "sk-ant-", "[A-Za-z0-9_-]{16,}"),
  prefixed("OpenAI key", "sk-", "(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
  prefixed("Hugging Face token", "hf_", "[A-Za-z0-9]{20,}"),
  prefixed("Hugging Face token", "api_org_", "[A-Za-z0-9]{20,}"),
  prefixed("GitHub token", "gh[pousr]_", "[A-Za-z0-9_.-]{20,}"),
  prefixed("GitHub token", "github_pat_", "[A-Za-z0-9_]{20,}"),
  prefixed("GitLab token", "gl(?:pat|dt|ptt|rt|oas|cbt|ft|imt|agent|soat|ffct)-", "[A-Za-z0-9_.-]{20,}"),
  prefixed("GitLab token", "GR1348941", "[A-Za-z0-9_-]{20,}"),
  prefixed("Slack token", "xox[a-z]-", "[A-Za-z0-9-]{1,250}"),
  prefixed("Slack token", "xapp-", "[A-Za-z0-9-]{1,250}"),
  prefixed("Slack webhook", "https://hooks\\.slack\\.com/", "(?:services|workflows)/[A-Za-z0-9/_-]{8,}"),
  prefixed(
    "AWS access key",
    "A(?:3T[A-Z0-9]|KIA|GPA|IDA|ROA|IPA|NPA|NVA|SIA)",
    "[A-Z0-9]{16}(?![A-Za-z0-9])",
  ),
  prefixed("Google API key", "AIza", "[0-9A-Za-z_-]{35}"),
  prefixed("Google OAuth token", "ya29\\.", "[0-9A-Za-z_-]{20,}"),
  prefixed("Twilio key", "SK", "[0-9a-fA-F]{32}(?![A-Za-z0-9])"),
  prefixed("Stripe key", "[sr]k_(?:live|test)_", "[A-Za-z0-9]{10,}"),
  prefixed("SendGrid key", "SG\\.", "[A-Za-z0-9_-]{1,128}\\.[A-Za-z0-9_-]{1,256}"),
  prefixed("Shopify token", "shp(?:at|ca|pa|ss)_", "[A-Za-z0-9]{32,}"),
  prefixed("npm token", "npm_", "[A-Za-z0-9_]{36,}"),
  prefixed("Groq key", "gsk_", "[A-Za-z0-9]{40,}"),
  prefixed("Linear key", "lin_(?:api|oauth)_", "[A-Za-z0-9_]{32,}"),
  prefixed("Notion token", "ntn_", "[0-9]{11}[A-Za-z0-9]{35,}"),
  prefixed("Grafana token", "glc_", "[A-Za-z0-9+/]{32,}={0,2}"),
  prefixed("Grafana token", "glsa_", "[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
  prefixed("1Password token", "ops_ey", "[A-Za-z0-9+/=]{100,}"),
  prefixed("Vault token", "hv[sbr]\\.", "[A-Za-z0-9_-]{90,}"),
  prefixed("Vercel token", "vc[pikar]_", "[A-Za-z0-9]{20,}"),
  prefixed("Databricks token", "dapi", "[A-Fa-f0-9]{32}(?:-[0-9])?"),
  prefixed("Docker token", "dckr_pat_", "[A-Za-z0-9_-]{27,}"),
  prefixed("Figma token", "fig[dou]_", "[A-Za-z0-9_-]{40,}"),
  prefixed("Cloudflare token", "cf(?:k|ut|at)_", "[A-Za-z0-9]{40,}"),
  prefixed("Tailscale key", "tskey-", "[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,}"),
  prefixed("JSON web token", "eyJ", "[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{0,}"),
  prefixed("bearer token", "Bearer", "\\s{1,8}[A-Za-z0-9._~+/=-]{16,}"),
];

/**
 * A keyed credential's value: 16+ characters with a letter, a digit and 3+ bits of entropy per character.
 * After a bare name with no `:` or `=` (`token 9f86…`), only a plain hex or base64 run counts: every id
 * the simulator issues has a `-` or `_` in it.
 */
function keyedValue(value: string, lead: string): boolean {
  if (value.length < 16 || !/\d/.test(value) || !/[A-Za-z]/.test(value) || entropy(value) < 3) return false;
  return /[:=]/.test(lead) || /^[A-Za-z0-9+/]+={0,2}$/.test(value);
}

/** A credential's name, up to the literal it ends with (`key`, `token`, `secret`), checked from that literal back. */
const KEY_NAME = "(?:api[_ -]?key|apikey|access[_ -]?key|secret[_ -]?(?:access[_ -]?)?key|private[_ -]?key|" +
  "signing[_ -]?key|client[_ -]?secret|secret|(?:access|auth|refresh|id|session|bearer|api|oauth|csrf|xsrf)[_ -]?token|" +
  "token)";

/**
 * Values after a credential's name (gitleaks' generic-api-key, secretlint's AWS secret and npm
 * `_authToken=`): `api_key=…`, `X-API-Key: …`, `aws_secret_access_key = "…"`, `token 9f86…`. Only the value is
 * replaced, and only a random-looking one (`max_tokens: 30000`, `token accounting` stay). The search starts at
 * the name's last word, which V8 finds by its literal.
 */
const KEYED: SecretShape = {
  kind: "keyed credential",
  gate: /key|token|secret/i,
  pattern: new RegExp(
    `(?<lead>(?:key|token|secret)(?<=(?<![A-Za-z0-9])${KEY_NAME})(?:[_-]?id)?(?![A-Za-z0-9])` +
      `${QUOTES}\\s{0,4}(?:=>|:=|[:=])?\\s{0,4}${QUOTES})(?<secret>[A-Za-z0-9+/_.~=-]{16,512})`,
    "gi",
  ),
  accept: keyedValue,
};

/**
 * A password given in text, any value but a `${VAR}`: `password=…`, `Password: …`, `pwd=…`, `&pass=…`, and
 * an npmrc `_authToken=…` (secretlint's npm rule).
 */
const PASSWORD: SecretShape = {
  kind: "password",
  gate: /pass|pwd|_authToken/i,
  pattern: new RegExp(
    `(?<![A-Za-z0-9])(?<lead>(?:passw(?:or)?d|passphrase|pwd)(?![A-Za-z0-9])${QUOTES}\\s{0,4}[:=]\\s{0,4}${QUOTES}|` +
      "pass=|_authToken=)(?<secret>(?!\\$\\{)[^\\s\"'`\\\\,;&<>(){}\\[\\]]{1,256})",
    "gi",
  ),
};

/** An `Authorization:` header's credentials, whatever the scheme's token looks like. */
const AUTH_HEADER: SecretShape = {
  kind: "authorization header",
  gate: /authorization/i,
  pattern: new RegExp(
    `(?<lead>authorization${QUOTES}\\s{0,4}[:=]\\s{0,4}${QUOTES}(?:basic|bearer|token|digest|negotiate)\\s{1,4})` +
      "(?<secret>[A-Za-z0-9+/_.~=-]{4,})",
    "gi",
  ),
};

/** An AWS account id after its name (secretlint's AWS rule: `AWS_ACCOUNT_ID=1234-5678-9012`). */
const AWS_ACCOUNT: SecretShape = {
  kind: "AWS account id",
  gate: /account/i,
  pattern: new RegExp(
    `(?<lead>account_?(?:id)?${QUOTES}\\s{0,4}(?:=>|[:=])\\s{0,4}${QUOTES})(?<secret>[0-9]{4}-?[0-9]{4}-?[0-9]{4})(?![0-9])`,
    "gi",
  ),
};

/**
 * The user and password of a URL (`postgres://user:pass@host`, `https://tok:x-oauth-basic@github.com`):
 * secretlint's basic-auth and connection-string rules, for any scheme.
 */
const URL_CREDENTIALS: SecretShape = {
  kind: "password in a URL",
  gate: /:\/\//,
  pattern:
    /(?<lead>:\/\/)(?<=[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)(?<secret>[^\s:/?#@"'<>\\]{1,256}:[^\s/?#@"'<>\\]{1,256})(?=@)/g,
};

/**
 * Every vendor token in one pattern: one scan instead of one per vendor (three times faster on the packets'
 * text); a token matches the first vendor listed whose prefix and body it fits. Its left edge is the
 * caller's to check (`prefixed`).
 */
export const VENDOR_TOKENS = new RegExp(VENDOR_SHAPES.map((v) => v.pattern.source).join("|"), "g");

/** Shapes whose `secret` group, after a name or a scheme (`lead`), is replaced: in the order they run. */
export const KEYED_SHAPES: readonly SecretShape[] = [
  URL_CREDENTIALS,
  AUTH_HEADER,
  PASSWORD,
  AWS_ACCOUNT,
  KEYED,
];

/**
 * Inside a run of token characters: a bare hex key of 40+ characters with a digit and a letter (SHA-1-sized),
 * not glued to an id by `-` or `_`, nor to a name by `.` (`DOC-<hex>` and `<hex>.pdf` are names).
 */
export const HEX_TOKEN =
  /(?<![A-Za-z0-9_-])(?<![A-Za-z0-9]\.)(?=[0-9]{0,1024}[a-fA-F])(?=[a-fA-F]{0,1024}[0-9])[0-9a-fA-F]{40,}(?![A-Za-z0-9_-]|\.[A-Za-z0-9])/g;

/**
 * A whole run of token characters that is bare base64 of 32+ characters (a file name or an id has `-`, `_` or
 * `.` in it, and `key=…` is read as a keyed value); a key when `isRandomBase64` says so.
 */
export const BASE64_RUN = /^[A-Za-z0-9+/]{32,}={0,2}\.?$/;

/** True for a random base64 key: upper and lower case and a digit, 4.2+ bits per character, few slashes (no path). */
export function isRandomBase64(value: string): boolean {
  const body = value.replace(/=*\.?$/, "");
  if (body.startsWith("/") || !/\d/.test(body) || !/[a-z]/.test(body) || !/[A-Z]/.test(body)) return false;
  const slashes = body.length - body.replaceAll("/", "").length;
  return slashes * 16 <= body.length && entropy(body) >= 4.2;
}

/** Marks a PEM private key: from its BEGIN line to its END line (or, cut short, to the end of its body). */
export const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
/** A PEM private key's END line. */
export const PEM_END = /-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
