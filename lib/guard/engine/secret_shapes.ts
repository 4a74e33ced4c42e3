/**
 * What a credential looks like: the known prefixes and structures of secretlint's recommended preset
 * (13.1) and of gitleaks' default rules (config/gitleaks.toml; each shape names its rule ids), each written a
 * little wider than its source (a shorter or longer body, a looser left edge) so that whatever they detect is
 * caught here too. Never an identifier's shape: the simulator's ids (`CASE-…`, `CM-CASE-…`, `DOC-…`, file
 * names, paths) carry no credential prefix, and a keyed value must follow a credential's or a vendor's name.
 * Every quantifier is bounded or runs over one token, so no pattern backtracks over long input (token runs
 * past `MAX_TOKEN` are cut before any pattern sees them). The only place the project keeps these shapes.
 */

/** A credential shape: its kind, and a global pattern whose match (or whose `secret` group) is the secret. */
export interface SecretShape {
  kind: string;
  /** Where the shape comes from: `gitleaks:<rule id>[, <rule id>…]` for the rules of gitleaks' default set. */
  source?: string;
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
function prefixed(kind: string, head: string, body: string, source?: string): SecretShape {
  return { kind, pattern: new RegExp(`${head}${body}`, "g"), ...(source ? { source } : {}) };
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
  // secretlint: anthropic; gitleaks: anthropic-api-key, anthropic-admin-api-key.
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
  prefixed(
    "Slack webhook",
    "https://hooks\\.slack\\.com/",
    "(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{8,}",
  ),
  prefixed(
    "AWS access key",
    "A(?:3T[A-Z0-9]|KIA|GPA|IDA|ROA|IPA|NPA|NVA|SIA|BIA|CCA)",
    "[A-Z0-9]{16}(?![A-Za-z0-9])",
    "gitleaks:aws-access-token",
  ),
  prefixed("Google API key", "AIza", "[0-9A-Za-z_-]{35}"),
  prefixed("Google OAuth token", "ya29\\.", "[0-9A-Za-z_-]{20,}"),
  prefixed("Twilio key", "SK", "[0-9a-fA-F]{32}(?![A-Za-z0-9])", "gitleaks:twilio-api-key"),
  prefixed("Stripe key", "[sr]k_(?:live|test|prod)_", "[A-Za-z0-9]{10,}"),
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
  prefixed(
    "JSON web token",
    "eyJ",
    "[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{0,}",
    "gitleaks:jwt",
  ),
  prefixed("bearer token", "Bearer", "\\s{1,8}[A-Za-z0-9._~+/=-]{16,}"),
  // The rest of gitleaks' default rules with a prefix or a structure of their own.
  prefixed(
    "1Password secret key",
    "(?<![A-Za-z0-9_-])A3-",
    "[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    "gitleaks:1password-secret-key",
  ),
  prefixed("Adobe client secret", "p8e-", "[A-Za-z0-9]{32}", "gitleaks:adobe-client-secret"),
  prefixed("Adyen key", "AQE", "[a-z0-9]{5,}\\.[A-Za-z0-9_=-]{50,80}", "gitleaks:adyen-api-key"),
  prefixed(
    "age secret key",
    "AGE-SECRET-KEY-1",
    "[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    "gitleaks:age-secret-key",
  ),
  prefixed("Alibaba key", "LTAI", "[A-Za-z0-9]{20}(?![A-Za-z0-9])", "gitleaks:alibaba-access-key-id"),
  prefixed("Artifactory key", "AKCp", "[A-Za-z0-9]{69}", "gitleaks:artifactory-api-key"),
  prefixed("Artifactory token", "cmVmd", "[A-Za-z0-9]{59}", "gitleaks:artifactory-reference-token"),
  prefixed("Atlassian token", "ATATT3", "[A-Za-z0-9_=-]{150,}", "gitleaks:atlassian-api-token"),
  prefixed(
    "Authress key",
    "(?:sc|ext|scauth|authress)_",
    "[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}",
    "gitleaks:authress-service-client-access-key",
  ),
  prefixed(
    "Braintree token",
    "access_token\\$(?:production|sandbox)\\$",
    "[a-z0-9]{16}",
    "gitleaks:braintree-access-token",
  ),
  prefixed("Cast AI key", "castai_v1_", "[A-Za-z0-9]{64}_[A-Za-z0-9]{8}", "gitleaks:castai-api-key"),
  prefixed(
    "ClickHouse key",
    "(?<![A-Za-z0-9_-])4b1d",
    "[A-Za-z0-9]{38}(?![A-Za-z0-9])",
    "gitleaks:clickhouse-cloud-api-secret-key",
  ),
  prefixed("Clojars token", "CLOJARS_", "[A-Za-z0-9]{60}", "gitleaks:clojars-api-token"),
  prefixed(
    "Cloudflare origin key",
    "v1\\.0-",
    "[a-f0-9]{24}-[a-f0-9]{146}",
    "gitleaks:cloudflare-origin-ca-key",
  ),
  prefixed(
    "DigitalOcean token",
    "do[opr]_v1_",
    "[a-f0-9]{64}",
    "gitleaks:digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token",
  ),
  prefixed("Doppler token", "dp\\.pt\\.", "[A-Za-z0-9]{43}", "gitleaks:doppler-api-token"),
  prefixed("Duffel token", "duffel_(?:test|live)_", "[A-Za-z0-9_=-]{43}", "gitleaks:duffel-api-token"),
  prefixed(
    "Dynatrace token",
    "dt0c01\\.",
    "[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}",
    "gitleaks:dynatrace-api-token",
  ),
  prefixed(
    "EasyPost token",
    "EZ[AT]K",
    "[A-Za-z0-9]{54}",
    "gitleaks:easypost-api-token, easypost-test-api-token",
  ),
  prefixed("Facebook token", "EAA[MC]", "[A-Za-z0-9]{100,}", "gitleaks:facebook-page-access-token"),
  prefixed(
    "Flutterwave key",
    "FLW(?:SEC|PUB)K_TEST-",
    "[a-hA-H0-9]{12,32}(?:-X)?",
    "gitleaks:flutterwave-secret-key, flutterwave-public-key, flutterwave-encryption-key",
  ),
  prefixed(
    "Fly.io token",
    "f(?:o1_|m1[ar]_|m2_)",
    "[A-Za-z0-9+/_-]{43,}={0,3}",
    "gitleaks:flyio-access-token",
  ),
  prefixed("Frame.io token", "fio-u-", "[A-Za-z0-9_=-]{64}", "gitleaks:frameio-api-token"),
  prefixed("Google OAuth secret", "GOCSPX-", "[A-Za-z0-9_-]{24,}", "gitleaks:gcp-oauth-client-secret"),
  prefixed("GitLab session", "_gitlab_session=", "[0-9a-z]{32}", "gitleaks:gitlab-session-cookie"),
  prefixed("Grafana key", "eyJrIjoi", "[A-Za-z0-9]{70,400}={0,3}", "gitleaks:grafana-api-key"),
  prefixed(
    "Harness token",
    "[ps]at\\.",
    "[A-Za-z0-9_-]{22}\\.[A-Za-z0-9]{24}\\.[A-Za-z0-9]{20}",
    "gitleaks:harness-api-key",
  ),
  prefixed("Heroku key", "HRKU-AA", "[0-9A-Za-z_-]{58}", "gitleaks:heroku-api-key-v2"),
  prefixed("Infracost token", "ico-", "[A-Za-z0-9]{32}", "gitleaks:infracost-api-token"),
  prefixed("Intra42 secret", "s-s4t2(?:ud|af)-", "[a-fA-F0-9]{64}", "gitleaks:intra42-client-secret"),
  prefixed("JSON web token", "ZXlK", "[A-Za-z0-9/\\\\_+-]{40,}={0,2}", "gitleaks:jwt-base64"),
  prefixed("LangSmith key", "lsv2_(?:pt|sk)_", "[a-z0-9]{32}_[a-z0-9]{10}", "gitleaks:langsmith-api-key"),
  prefixed(
    "New Relic key",
    "NR(?:JS|II|AK)-",
    "[A-Za-z0-9-]{19,32}",
    "gitleaks:new-relic-browser-api-token, new-relic-insert-key, new-relic-user-api-key",
  ),
  prefixed("OpenShift token", "sha256~", "[A-Za-z0-9_-]{43}", "gitleaks:openshift-user-token"),
  prefixed("Perplexity key", "pplx-", "[A-Za-z0-9]{48}", "gitleaks:perplexity-api-key"),
  prefixed(
    "PlanetScale token",
    "pscale_(?:tkn|oauth|pw)_",
    "[A-Za-z0-9_=.-]{32,64}",
    "gitleaks:planetscale-api-token, planetscale-oauth-token, planetscale-password",
  ),
  prefixed("Postman key", "PMAK-", "[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}", "gitleaks:postman-api-token"),
  prefixed("Prefect token", "pnu_", "[A-Za-z0-9]{36}", "gitleaks:prefect-api-token"),
  prefixed("Pulumi token", "pul-", "[a-f0-9]{40}", "gitleaks:pulumi-api-token"),
  prefixed("PyPI token", "pypi-AgEIcHlwaS5vcmc", "[A-Za-z0-9_-]{50,}", "gitleaks:pypi-upload-token"),
  prefixed("Readme token", "rdme_", "[a-z0-9]{70}", "gitleaks:readme-api-token"),
  prefixed("RubyGems key", "rubygems_", "[a-f0-9]{48}", "gitleaks:rubygems-api-token"),
  prefixed("Scalingo token", "tk-us-", "[A-Za-z0-9_-]{48}", "gitleaks:scalingo-api-token"),
  prefixed("Sendinblue key", "xkeysib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}", "gitleaks:sendinblue-api-token"),
  prefixed(
    "Sentry token",
    "sntry[su]_",
    "[A-Za-z0-9+/=_]{64,}",
    "gitleaks:sentry-org-token, sentry-user-token",
  ),
  prefixed(
    "SettleMint token",
    "sm_(?:aat|pat|sat)_",
    "[A-Za-z0-9]{16}",
    "gitleaks:settlemint-application-access-token, settlemint-personal-access-token, settlemint-service-access-token",
  ),
  prefixed("Shippo token", "shippo_(?:live|test)_", "[a-fA-F0-9]{40}", "gitleaks:shippo-api-token"),
  prefixed(
    "Sourcegraph token",
    "sgp_",
    "(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
    "gitleaks:sourcegraph-access-token",
  ),
  prefixed(
    "Square token",
    "(?:EAAA|sq0atp-|sq0csp-)",
    "[A-Za-z0-9_-]{22,60}",
    "gitleaks:square-access-token",
  ),
  prefixed(
    "Microsoft Teams webhook",
    "https://[a-z0-9]{1,60}\\.webhook\\.office\\.com/",
    "webhookb2/[A-Za-z0-9@/_-]{40,}",
    "gitleaks:microsoft-teams-webhook",
  ),
  prefixed(
    "Claude Code session",
    "https?://claude\\.ai/code/",
    "session_[A-Za-z0-9]{16,}",
    "gitleaks:claude-code-session-url",
  ),
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
  source: "gitleaks:generic-api-key",
  gate: /key|token|secret/i,
  pattern: new RegExp(
    `(?<lead>(?:key|token|secret)(?<=(?<![A-Za-z0-9])${KEY_NAME})(?:[_-]?id)?(?![A-Za-z0-9])` +
      `${QUOTES}\\s{0,4}(?:=>|:=|[:=])?\\s{0,4}${QUOTES})(?<secret>[A-Za-z0-9+/_.~=-]{16,512})`,
    "gi",
  ),
  accept: keyedValue,
};

/**
 * The vendors whose gitleaks rules take a value after the vendor's name (`ALGOLIA_ADMIN=…`, `jira: …`,
 * `"plaid_secret": "…"`), one rule id each (most have several: `<vendor>-api-key`, `-client-secret`, …).
 */
export const VENDOR_NAMES: readonly [string, string][] = [
  ["adafruit", "adafruit-api-key"],
  ["adobe", "adobe-client-id"],
  ["airtable", "airtable-api-key"],
  ["algolia", "algolia-api-key"],
  ["alibaba", "alibaba-secret-key"],
  ["asana", "asana-client-id, asana-client-secret"],
  ["atlassian", "atlassian-api-token"],
  ["confluence", "atlassian-api-token"],
  ["jira", "atlassian-api-token"],
  ["beamer", "beamer-api-token"],
  ["bitbucket", "bitbucket-client-secret"],
  ["bittrex", "bittrex-secret-key"],
  ["meraki", "cisco-meraki-api-key"],
  ["cloudflare", "cloudflare-api-key"],
  ["codecov", "codecov-access-token"],
  ["cohere", "cohere-api-token"],
  ["co_api_key", "cohere-api-token"],
  ["coinbase", "coinbase-access-token"],
  ["confluent", "confluent-secret-key"],
  ["contentful", "contentful-delivery-api-token"],
  ["datadog", "datadog-access-token"],
  ["dnkey", "defined-networking-api-token"],
  ["discord", "discord-client-id, discord-client-secret"],
  ["droneci", "droneci-access-token"],
  ["dropbox", "dropbox-api-token"],
  ["etsy", "etsy-access-token"],
  ["facebook", "facebook-secret"],
  ["fastly", "fastly-api-token"],
  ["finicity", "finicity-client-secret"],
  ["finnhub", "finnhub-access-token"],
  ["flickr", "flickr-access-token"],
  ["freshbooks", "freshbooks-access-token"],
  ["gitter", "gitter-access-token"],
  ["gocardless", "gocardless-api-token"],
  ["heroku", "heroku-api-key"],
  ["hubspot", "hubspot-api-key"],
  ["intercom", "intercom-api-key"],
  ["jfrog", "jfrog-api-key"],
  ["artifactory", "jfrog-identity-token"],
  ["bintray", "jfrog-api-key"],
  ["kraken", "kraken-access-token"],
  ["kucoin", "kucoin-secret-key"],
  ["launchdarkly", "launchdarkly-access-token"],
  ["linear", "linear-client-secret"],
  ["linked[_-]?in", "linkedin-client-secret"],
  ["lob", "lob-api-key"],
  ["looker", "looker-client-secret"],
  ["mailchimp", "mailchimp-api-key"],
  ["mailgun", "mailgun-private-api-token"],
  ["mapbox", "mapbox-api-token"],
  ["mattermost", "mattermost-access-token"],
  ["message[_-]?bird", "messagebird-api-token"],
  ["netlify", "netlify-access-token"],
  ["new[_-]?relic", "new-relic-user-api-id"],
  ["nytimes", "nytimes-access-token"],
  ["okta", "okta-access-token"],
  ["plaid", "plaid-secret-key"],
  ["private[_-]?ai", "privateai-api-token"],
  ["rapidapi", "rapidapi-access-token"],
  ["sendbird", "sendbird-access-token"],
  ["sentry", "sentry-access-token"],
  ["snyk", "snyk-api-token"],
  ["sonar", "sonar-api-token"],
  ["squarespace", "squarespace-access-token"],
  ["sumo", "sumologic-access-token"],
  ["telegram", "telegram-bot-api-token"],
  ["travis", "travisci-access-token"],
  ["twitch", "twitch-api-token"],
  ["twitter", "twitter-api-secret"],
  ["typeform", "typeform-api-token"],
  ["yandex", "yandex-api-key"],
  ["zendesk", "zendesk-secret-key"],
];

/**
 * A value after a vendor's name, as gitleaks' semi-generic rules take it: 14+ characters of 3+ bits of entropy
 * per character with a digit (2.5+ for digits alone: a client id), or 20+ of mixed case without one; never a
 * simulator id (an upper-case word and a `-` or `_`: `CASE-…`, `DOC-…`, `REF-CM_…`, `P2P-…`, `intake-…`).
 */
function vendorValue(value: string): boolean {
  if (value.length < 14 || /^(?:[A-Z]{1,12}|P2P|intake|p2p)[-_]/.test(value)) return false;
  const bits = entropy(value);
  if (/^\d+$/.test(value)) return bits >= 2.5;
  if (/\d/.test(value)) return bits >= 3;
  return value.length >= 20 && /[a-z]/.test(value) && /[A-Z]/.test(value) && bits >= 3.5;
}

/** A value keyed by a vendor's name: the name at a word's start, up to 20 more name characters, an operator. */
const VENDOR_KEYED: SecretShape = {
  kind: "vendor credential",
  source: `gitleaks:${[...new Set(VENDOR_NAMES.map(([, rule]) => rule))].join(", ")}`,
  gate: new RegExp(VENDOR_NAMES.map(([name]) => name).join("|"), "i"),
  pattern: new RegExp(
    `(?<lead>(?<![A-Za-z])(?:${VENDOR_NAMES.map(([name]) => name).join("|")})[A-Za-z0-9_.-]{0,20}${QUOTES}` +
      `\\s{0,3}(?:=>|:{1,3}=|\\?=|\\|\\||[:=>,])\\s{0,5}${QUOTES})(?<secret>[A-Za-z0-9+/_.~=:|%-]{14,256})`,
    "gi",
  ),
  accept: vendorValue,
};

/** Azure AD client secrets: three characters, a digit, `Q~`, then 31 to 34 (gitleaks azure-ad-client-secret). */
const AZURE_SECRET: SecretShape = {
  kind: "Azure client secret",
  source: "gitleaks:azure-ad-client-secret",
  gate: /\dQ~/,
  pattern:
    /(?<![A-Za-z0-9_~.])(?<lead>)(?<secret>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/g,
};

/**
 * Structures with no prefix of their own, found by a small literal first: Facebook's `<app id>|<secret>`
 * (facebook-access-token), Terraform Cloud's `<id>.atlasv1.<secret>` (hashicorp-tf-api-token), MaxMind's
 * `<id>_<secret>_mmk` (maxmind-license-key), Braintree's `sandbox_<id>_<key>` (braintree-tokenization-key).
 */
const STRUCTURED: SecretShape = {
  kind: "structured token",
  source:
    "gitleaks:facebook-access-token, hashicorp-tf-api-token, maxmind-license-key, braintree-tokenization-key",
  gate: /\d[|%]|atlasv1|_mmk|(?:production|sandbox)_/,
  pattern: new RegExp(
    "(?<![A-Za-z0-9_-])(?<lead>)(?<secret>[0-9]{15,16}[|%][0-9A-Za-z_-]{27,40}|[A-Za-z0-9]{14}\\.atlasv1\\." +
      "[A-Za-z0-9_=-]{60,70}|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk|(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16})" +
      "(?![A-Za-z0-9])",
    "g",
  ),
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
  VENDOR_KEYED,
  AZURE_SECRET,
  STRUCTURED,
];

/**
 * Inside a run of token characters: a bare hex key of 32+ characters with a digit and a letter (an MD5- to
 * SHA-1-sized key: gitleaks' keyed hex rules hold 32 to 64), not glued to an id by `-` or `_`, nor to a name
 * by `.` (`DOC-<hex>` and `<hex>.pdf` are names). One of 40 or more is always a key; a shorter one only where
 * it is not an id the evidence holds (`secrets.ts`, `KeepHex`).
 */
export const HEX_TOKEN =
  /(?<![A-Za-z0-9_-])(?<![A-Za-z0-9]\.)(?=[0-9]{0,1024}[a-fA-F])(?=[a-fA-F]{0,1024}[0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9_-]|\.[A-Za-z0-9])/g;
/** The length from which a bare hex run is a key wherever it is. */
export const HEX_ALWAYS = 40;

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
