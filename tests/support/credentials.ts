/**
 * Made-up credentials of every shape the redactor must catch, each as it would be planted in text (`text`)
 * with the part that must never survive (`secret`) and where the shape comes from: secretlint's recommended
 * preset (the test oracle, `tests/secretlint.ts`), gitleaks' rule of that id, or the issue that found it leaking.
 * Bodies come from a seeded generator, so they look random (as real keys do) and are the same on every run.
 */

/** One planted credential. */
export interface Credential {
  name: string;
  /** The credential as it appears in text (with its key name, URL or PEM lines around it). */
  text: string;
  /** What must not survive redaction. */
  secret: string;
  /** `secretlint:<rule>` (the oracle reports it), `gitleaks:<rule-id>`, or `#32` (the hostile-input probe). */
  source: string;
  /** The file name the oracle should see it in (secretlint's npm and GCP rules look at the file kind). */
  file?: string;
}

/** A deterministic generator (mulberry32), so every run plants the same values. */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = generator(32);
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;

/** `n` characters drawn from `alphabet`. */
function draw(alphabet: string, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/**
 * A PEM private key: `lines` full base64 lines 64 wide, starting as DER does (`MII`), then a short last line
 * (20 characters: too short to look random on its own, the line #32 found leaking).
 */
export function pemKey(label = "PRIVATE KEY", lines = 18): { text: string; lastLine: string } {
  const body = `MII${draw(B64, 64 * lines + 20 - 7)}AQAB`;
  const wrapped = body.match(/.{1,64}/g)!;
  return {
    text: `-----BEGIN ${label}-----\n${wrapped.join("\n")}\n-----END ${label}-----`,
    lastLine: wrapped.at(-1)!,
  };
}

const pem = pemKey("RSA PRIVATE KEY");
const gcpPem = pemKey();
/** A 1Password service-account token: `ops_` and the base64 of its JSON, padded to end in `fQ==` (`}`). */
function opsToken(): string {
  let json = JSON.stringify({
    email: `${draw("abcdefghijklmnopqrstuvwxyz", 13)}@1passwordserviceaccounts.lcl`,
    muk: { alg: "A256GCM", k: draw(B64URL, 43), kty: "oct" },
    secretKey: draw(ALNUM, 30),
  });
  while (json.length % 3 !== 1) json = `{ ${json.slice(1)}`;
  return `ops_${btoa(json)}`;
}

const secrets = {
  awsKey: `AKIA${draw("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`,
  awsSecret: draw(B64, 40),
  anthropic: `sk-ant-api03-${draw(B64URL, 93)}AA`,
  openai: `sk-proj-${draw(B64URL, 74)}T3BlbkFJ${draw(B64URL, 74)}`,
  openaiLegacy: `sk-${draw(ALNUM, 20)}T3BlbkFJ${draw(ALNUM, 20)}`,
  github: `ghp_${draw(ALNUM, 36)}`,
  githubFine: `github_pat_${draw(ALNUM, 22)}_${draw(ALNUM, 59)}`,
  githubApp: `ghs_${draw("0123456789", 7)}_eyJ${draw(B64URL, 40)}.eyJ${draw(B64URL, 120)}.${
    draw(B64URL, 86)
  }`,
  gitlab: `glpat-${draw(B64URL, 20)}`,
  slackUser: `xoxp-${draw("0123456789", 11)}-${draw("0123456789", 12)}-${draw("0123456789", 13)}-${
    draw(HEX, 32)
  }`,
  slackBot: `xoxb-${draw("0123456789", 11)}-${draw("0123456789", 13)}-${draw(ALNUM, 24)}`,
  slackHook: `https://hooks.slack.com/services/T${draw(ALNUM, 10)}/B${draw(ALNUM, 10)}/${draw(ALNUM, 24)}`,
  twilio: `SK${draw(HEX, 32)}`,
  apiKey32: draw(HEX, 32),
  stripe: `sk_live_${draw(ALNUM, 99)}`,
  sendgrid: `SG.${draw(B64URL, 22)}.${draw(B64URL, 43)}`,
  shopify: `shpat_${draw(HEX, 32)}`,
  npm: `npm_${draw(ALNUM, 36)}`,
  npmrc: draw(B64URL, 36),
  groq: `gsk_${draw(ALNUM, 52)}`,
  huggingFace: `hf_${draw("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)}`,
  linear: `lin_api_${draw(ALNUM, 40)}`,
  notion: `ntn_${draw("0123456789", 11)}${draw(ALNUM, 35)}`,
  grafanaCloud: `glc_${draw(B64, 80)}`,
  grafanaSa: `glsa_${draw(ALNUM, 32)}_${draw(HEX, 8)}`,
  onePassword: opsToken(),
  vault: `hvs.${draw(B64URL, 95)}`,
  vercel: `vcp_${draw(ALNUM, 24)}`,
  databricks: `dapi${draw(HEX, 32)}`,
  docker: `dckr_pat_${draw(B64URL, 27)}`,
  figma: `figd_${draw(B64URL, 40)}`,
  cloudflare: `cfut_${draw(ALNUM, 40)}${draw(HEX, 8)}`,
  tailscale: `tskey-api-${draw(ALNUM, 12)}-${draw(ALNUM, 30)}`,
  jwt: `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${draw(B64URL, 60)}.${draw(B64URL, 43)}`,
  urlPassword: draw(ALNUM, 14),
  mongoPassword: draw(ALNUM, 16),
  textPassword: draw(ALNUM, 14),
  hex40: draw(HEX, 40),
  base64: draw(B64, 56),
  oauthUser: draw(HEX, 40),
};

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
const DIGITS = "0123456789";
const uuid = () => `${draw(HEX, 8)}-${draw(HEX, 4)}-${draw(HEX, 4)}-${draw(HEX, 4)}-${draw(HEX, 12)}`;

/**
 * gitleaks' default rules (config/gitleaks.toml) with a prefix or structure of their own, one token each in the
 * shape the rule describes: [rule id, token].
 */
const GITLEAKS_TOKENS: [string, string][] = [
  [
    "1password-secret-key",
    `A3-${draw(UPPER, 6)}-${draw(UPPER, 11)}-${draw(UPPER, 5)}-${draw(UPPER, 5)}-${draw(UPPER, 5)}`,
  ],
  ["adobe-client-secret", `p8e-${draw(ALNUM, 32)}`],
  ["adyen-api-key", `AQEyhmfx.${draw(B64URL, 60)}`],
  ["age-secret-key", `AGE-SECRET-KEY-1${draw("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)}`],
  ["alibaba-access-key-id", `LTAI${draw(ALNUM, 20)}`],
  ["artifactory-api-key", `AKCp${draw(ALNUM, 69)}`],
  ["artifactory-reference-token", `cmVmd${draw(ALNUM, 59)}`],
  ["atlassian-api-token", `ATATT3${draw(B64URL, 186)}`],
  [
    "authress-service-client-access-key",
    `sc_${draw(LOWER, 12)}.${draw(LOWER, 5)}.acc_${draw(LOWER, 20)}.${draw(B64URL, 60)}`,
  ],
  ["aws-access-token", `ABIA${draw("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`],
  ["braintree-access-token", `access_token$sandbox$${draw(LOWER, 16)}`],
  ["castai-api-key", `castai_v1_${draw(ALNUM, 64)}_${draw(ALNUM, 8)}`],
  ["clickhouse-cloud-api-secret-key", `4b1d${draw(ALNUM, 38)}`],
  ["clojars-api-token", `CLOJARS_${draw(LOWER, 60)}`],
  ["cloudflare-origin-ca-key", `v1.0-${draw(HEX, 24)}-${draw(HEX, 146)}`],
  ["digitalocean-pat", `dop_v1_${draw(HEX, 64)}`],
  ["digitalocean-access-token", `doo_v1_${draw(HEX, 64)}`],
  ["digitalocean-refresh-token", `dor_v1_${draw(HEX, 64)}`],
  ["doppler-api-token", `dp.pt.${draw(ALNUM, 43)}`],
  ["duffel-api-token", `duffel_test_${draw(B64URL, 43)}`],
  ["dynatrace-api-token", `dt0c01.${draw(UPPER, 24)}.${draw(ALNUM, 64)}`],
  ["easypost-api-token", `EZAK${draw(ALNUM, 54)}`],
  ["easypost-test-api-token", `EZTK${draw(ALNUM, 54)}`],
  ["facebook-page-access-token", `EAAM${draw(ALNUM, 120)}`],
  ["flutterwave-secret-key", `FLWSECK_TEST-${draw("abcdefgh0123456789", 32)}-X`],
  ["flutterwave-public-key", `FLWPUBK_TEST-${draw("abcdefgh0123456789", 32)}-X`],
  ["flutterwave-encryption-key", `FLWSECK_TEST-${draw("abcdefgh0123456789", 12)}`],
  ["flyio-access-token", `fo1_${draw(B64URL, 43)}`],
  ["frameio-api-token", `fio-u-${draw(B64URL, 64)}`],
  ["gcp-oauth-client-secret", `GOCSPX-${draw(B64URL, 28)}`],
  ["gitlab-session-cookie", `_gitlab_session=${draw(LOWER, 32)}`],
  ["grafana-api-key", `eyJrIjoi${draw(ALNUM, 80)}`],
  ["harness-api-key", `pat.${draw(B64URL, 22)}.${draw(ALNUM, 24)}.${draw(ALNUM, 20)}`],
  ["heroku-api-key-v2", `HRKU-AA${draw(B64URL, 58)}`],
  ["infracost-api-token", `ico-${draw(ALNUM, 32)}`],
  ["intra42-client-secret", `s-s4t2ud-${draw(HEX, 64)}`],
  ["jwt-base64", `ZXlKaGJHY2lPaU${draw(B64, 60)}`],
  ["langsmith-api-key", `lsv2_pt_${draw(LOWER, 32)}_${draw(LOWER, 10)}`],
  ["new-relic-browser-api-token", `NRJS-${draw(HEX, 19)}`],
  ["new-relic-insert-key", `NRII-${draw(LOWER, 32)}`],
  ["new-relic-user-api-key", `NRAK-${draw(UPPER, 27)}`],
  ["openshift-user-token", `sha256~${draw(B64URL, 43)}`],
  ["perplexity-api-key", `pplx-${draw(ALNUM, 48)}`],
  ["planetscale-api-token", `pscale_tkn_${draw(B64URL, 43)}`],
  ["planetscale-oauth-token", `pscale_oauth_${draw(B64URL, 43)}`],
  ["planetscale-password", `pscale_pw_${draw(B64URL, 43)}`],
  ["postman-api-token", `PMAK-${draw(HEX, 24)}-${draw(HEX, 34)}`],
  ["prefect-api-token", `pnu_${draw(ALNUM, 36)}`],
  ["pulumi-api-token", `pul-${draw(HEX, 40)}`],
  ["pypi-upload-token", `pypi-AgEIcHlwaS5vcmc${draw(B64URL, 70)}`],
  ["readme-api-token", `rdme_${draw(LOWER, 70)}`],
  ["rubygems-api-token", `rubygems_${draw(HEX, 48)}`],
  ["scalingo-api-token", `tk-us-${draw(B64URL, 48)}`],
  ["sendinblue-api-token", `xkeysib-${draw(HEX, 64)}-${draw(ALNUM, 16)}`],
  ["sentry-user-token", `sntryu_${draw(HEX, 64)}`],
  ["sentry-org-token", `sntrys_eyJpYXQiO${draw(B64, 40)}LCJyZWdpb25fdXJs${draw(B64, 40)}_${draw(B64, 43)}`],
  ["settlemint-application-access-token", `sm_aat_${draw(ALNUM, 16)}`],
  ["settlemint-personal-access-token", `sm_pat_${draw(ALNUM, 16)}`],
  ["settlemint-service-access-token", `sm_sat_${draw(ALNUM, 16)}`],
  ["shippo-api-token", `shippo_live_${draw(HEX, 40)}`],
  ["sourcegraph-access-token", `sgp_${draw(HEX, 16)}_${draw(HEX, 40)}`],
  ["square-access-token", `sq0atp-${draw(B64URL, 22)}`],
  [
    "microsoft-teams-webhook",
    `https://acme.webhook.office.com/webhookb2/${uuid()}@${uuid()}/IncomingWebhook/${
      draw(LOWER, 32)
    }/${uuid()}`,
  ],
  ["claude-code-session-url", `https://claude.ai/code/session_${draw(ALNUM, 24)}`],
  ["azure-ad-client-secret", `${draw(ALNUM, 3)}${draw(DIGITS, 1)}Q~${draw(ALNUM, 32)}`],
  ["facebook-access-token", `${draw(DIGITS, 15)}|${draw(LOWER, 30)}`],
  ["hashicorp-tf-api-token", `${draw(LOWER, 14)}.atlasv1.${draw(B64URL, 64)}`],
  ["maxmind-license-key", `${draw(ALNUM, 6)}_${draw(ALNUM, 29)}_mmk`],
  ["braintree-tokenization-key", `sandbox_${draw(LOWER, 8)}_${draw(LOWER, 16)}`],
];

/**
 * gitleaks' rules that take a value after a vendor's name, each as a config line names it: [rule id, the
 * text before the value, the value].
 */
const GITLEAKS_KEYED: [string, string, string][] = [
  ["adafruit-api-key", "ADAFRUIT_IO = ", draw(B64URL, 32)],
  ["adobe-client-id", "adobe_client: ", draw(HEX, 32)],
  ["airtable-api-key", 'airtable_base = "', draw(LOWER, 17)],
  ["algolia-api-key", "algolia_admin=", draw(LOWER, 32)],
  ["alibaba-secret-key", "alibaba_access => ", draw(LOWER, 30)],
  ["asana-client-id", "asana_client_id: ", draw(DIGITS, 16)],
  ["asana-client-secret", "ASANA_CLIENT=", draw(LOWER, 32)],
  ["atlassian-api-token", "jira: ", draw(ALNUM, 24)],
  ["beamer-api-token", "beamer = ", `b_${draw(B64URL, 44)}`],
  ["bitbucket-client-secret", "bitbucket_client := ", draw(B64URL, 64)],
  ["bittrex-secret-key", "bittrex_api: ", draw(LOWER, 32)],
  ["cisco-meraki-api-key", "meraki_dashboard = ", draw(HEX, 40)],
  ["cloudflare-api-key", "CLOUDFLARE_API=", draw(B64URL, 40)],
  ["codecov-access-token", "codecov: ", draw(LOWER, 32)],
  ["cohere-api-token", "cohere = ", draw(ALNUM, 40)],
  ["coinbase-access-token", "coinbase_access = ", draw(B64URL, 64)],
  ["confluent-secret-key", "confluent_api=", draw(LOWER, 64)],
  ["contentful-delivery-api-token", "contentful_delivery: ", draw(B64URL, 43)],
  ["datadog-access-token", "datadog_app = ", draw(LOWER, 40)],
  ["defined-networking-api-token", "dnkey = ", `dnkey-${draw(B64URL, 26)}-${draw(B64URL, 52)}`],
  ["discord-client-id", "discord_client: ", draw(DIGITS, 18)],
  ["discord-client-secret", "DISCORD_OAUTH=", draw(B64URL, 32)],
  ["droneci-access-token", "droneci = ", draw(LOWER, 32)],
  ["dropbox-api-token", "dropbox_app: ", draw(LOWER, 15)],
  ["etsy-access-token", "ETSY = ", draw(LOWER, 24)],
  ["facebook-secret", "facebook_app_secret_value: ", draw(HEX, 32)],
  ["fastly-api-token", "fastly = ", draw(B64URL, 32)],
  ["finicity-client-secret", "finicity_app: ", draw(LOWER, 20)],
  ["finnhub-access-token", "finnhub = ", draw(LOWER, 20)],
  ["flickr-access-token", "flickr_api: ", draw(LOWER, 32)],
  ["freshbooks-access-token", "freshbooks = ", draw(LOWER, 64)],
  ["gitter-access-token", "gitter: ", draw(B64URL, 40)],
  ["gocardless-api-token", "gocardless = ", `live_${draw(B64URL, 40)}`],
  ["heroku-api-key", "heroku_api: ", uuid()],
  ["hubspot-api-key", "hubspot = ", uuid().toUpperCase()],
  ["intercom-api-key", "intercom: ", draw(B64URL, 60)],
  ["jfrog-api-key", "jfrog = ", draw(LOWER, 73)],
  ["jfrog-identity-token", "artifactory_identity: ", draw(LOWER, 64)],
  ["kraken-access-token", "kraken = ", draw(B64, 86)],
  ["kucoin-secret-key", "kucoin_api: ", uuid()],
  ["launchdarkly-access-token", "launchdarkly = ", draw(B64URL, 40)],
  ["linear-client-secret", "linear_oauth: ", draw(HEX, 32)],
  ["linkedin-client-secret", "linked_in = ", draw(LOWER, 16)],
  ["lob-api-key", "lob_live = ", `live_${draw(HEX, 35)}`],
  ["looker-client-secret", "looker: ", draw(ALNUM, 24)],
  ["mailchimp-api-key", "mailchimp = ", `${draw(HEX, 32)}-us12`],
  ["mailgun-private-api-token", "mailgun: ", `key-${draw(HEX, 32)}`],
  ["mapbox-api-token", "mapbox = ", `pk.${draw(LOWER, 60)}.${draw(LOWER, 22)}`],
  ["mattermost-access-token", "mattermost: ", draw(LOWER, 26)],
  ["messagebird-api-token", "message_bird = ", draw(LOWER, 25)],
  ["netlify-access-token", "netlify: ", draw(B64URL, 43)],
  ["new-relic-user-api-id", "new_relic = ", draw(LOWER, 64)],
  ["nytimes-access-token", "nytimes: ", draw(B64URL, 32)],
  ["okta-access-token", "okta = ", `00${draw(B64URL, 40)}`],
  ["plaid-secret-key", "plaid_client: ", draw(LOWER, 30)],
  ["privateai-api-token", "private_ai = ", draw(LOWER, 32)],
  ["rapidapi-access-token", "rapidapi: ", draw(B64URL, 50)],
  ["sendbird-access-token", "sendbird = ", draw(HEX, 40)],
  ["sentry-access-token", "sentry: ", draw(HEX, 64)],
  ["snyk-api-token", "snyk = ", uuid()],
  ["sonar-api-token", "sonar_login: ", draw(B64URL, 40)],
  ["squarespace-access-token", "squarespace = ", uuid()],
  ["sumologic-access-token", "SUMO_ACCESS: ", draw(ALNUM, 64)],
  ["telegram-bot-api-token", "telegram_bot = ", `${draw(DIGITS, 10)}:A${draw(B64URL, 34)}`],
  ["travisci-access-token", "travis: ", draw(LOWER, 22)],
  ["twitch-api-token", "twitch = ", draw(LOWER, 30)],
  ["twitter-api-secret", "twitter_consumer: ", draw(ALNUM, 50)],
  ["typeform-api-token", "typeform = ", `tfp_${draw(B64URL, 59)}`],
  ["yandex-api-key", "yandex: ", `AQVN${draw(B64URL, 36)}`],
  ["zendesk-secret-key", "zendesk = ", draw(ALNUM, 40)],
];

/** A credential planted as it is, with nothing around it. */
function bare(name: string, secret: string, source: string): Credential {
  return { name, text: secret, secret, source };
}

/** Every planted credential, one per shape. */
export const CREDENTIALS: Credential[] = [
  bare("AWS access key", secrets.awsKey, "secretlint:aws"),
  {
    name: "AWS secret key",
    text: `aws_secret_access_key = "${secrets.awsSecret}"`,
    secret: secrets.awsSecret,
    source: "secretlint:aws",
  },
  {
    name: "AWS account id",
    text: "AWS_ACCOUNT_ID=4242-1357-8642",
    secret: "4242-1357-8642",
    source: "secretlint:aws",
  },
  bare("Anthropic key", secrets.anthropic, "secretlint:anthropic"),
  bare("OpenAI project key", secrets.openai, "secretlint:openai"),
  bare("OpenAI key", secrets.openaiLegacy, "secretlint:openai"),
  bare("GitHub token", secrets.github, "secretlint:github"),
  bare("GitHub fine-grained token", secrets.githubFine, "secretlint:github"),
  bare("GitHub app token", secrets.githubApp, "secretlint:github"),
  bare("GitLab token", secrets.gitlab, "secretlint:gitlab"),
  bare("Slack user token", secrets.slackUser, "secretlint:slack"),
  bare("Slack bot token", secrets.slackBot, "secretlint:slack"),
  {
    name: "Slack webhook",
    text: secrets.slackHook,
    secret: secrets.slackHook.slice(34),
    source: "secretlint:slack",
  },
  {
    name: "Twilio key",
    text: `twilio ${secrets.twilio}`,
    secret: secrets.twilio,
    source: "gitleaks:twilio-api-key",
  },
  {
    name: "32-hex API key",
    text: `X-API-Key: ${secrets.apiKey32}`,
    secret: secrets.apiKey32,
    source: "gitleaks:generic-api-key",
  },
  bare("Stripe key", secrets.stripe, "secretlint:stripe"),
  bare("SendGrid key", secrets.sendgrid, "secretlint:sendgrid"),
  bare("Shopify token", secrets.shopify, "secretlint:shopify"),
  bare("npm token", secrets.npm, "secretlint:npm"),
  {
    name: "npmrc auth token",
    text: `//registry.npmjs.org/:_authToken=${secrets.npmrc}`,
    secret: secrets.npmrc,
    source: "secretlint:npm",
    file: ".npmrc",
  },
  {
    name: "GitHub token in a package URL",
    text: `"repository": "https://${secrets.oauthUser}:x-oauth-basic@github.com/acme/tool"`,
    secret: secrets.oauthUser,
    source: "secretlint:npm",
    file: "package.json",
  },
  bare("Groq key", secrets.groq, "secretlint:groq"),
  bare("Hugging Face token", secrets.huggingFace, "secretlint:huggingface"),
  bare("Linear key", secrets.linear, "secretlint:linear"),
  bare("Notion token", secrets.notion, "secretlint:notion"),
  bare("Grafana cloud token", secrets.grafanaCloud, "secretlint:grafana"),
  bare("Grafana service token", secrets.grafanaSa, "secretlint:grafana"),
  bare("1Password token", secrets.onePassword, "secretlint:1password"),
  bare("Vault token", secrets.vault, "secretlint:hashicorp-vault"),
  bare("Vercel token", secrets.vercel, "secretlint:vercel"),
  bare("Databricks token", secrets.databricks, "secretlint:databricks"),
  bare("Docker token", secrets.docker, "secretlint:docker"),
  bare("Figma token", secrets.figma, "secretlint:figma"),
  bare("Cloudflare token", secrets.cloudflare, "secretlint:cloudflare"),
  bare("Tailscale key", secrets.tailscale, "secretlint:tailscale"),
  { name: "PEM private key", text: pem.text, secret: pem.lastLine, source: "secretlint:privatekey" },
  {
    name: "GCP service account key",
    text: JSON.stringify({
      type: "service_account",
      private_key_id: secrets.hex40,
      private_key: `${gcpPem.text}\n`,
      client_email: "svc@acme.iam.gserviceaccount.com",
    }),
    secret: gcpPem.lastLine,
    source: "secretlint:gcp",
    file: "key.json",
  },
  {
    name: "password in a URL",
    text: `https://svc_claims:${secrets.urlPassword}@api.acme-health.org/v1`,
    secret: secrets.urlPassword,
    source: "secretlint:basicauth",
  },
  {
    name: "connection string",
    text: `mongodb+srv://claims_rw:${secrets.mongoPassword}@cluster0.acme.net/claims`,
    secret: secrets.mongoPassword,
    source: "secretlint:database-connection-string",
  },
  {
    name: "password in text",
    text: `login with password=${secrets.textPassword} today`,
    secret: secrets.textPassword,
    source: "gitleaks:generic-api-key",
  },
  bare("JSON web token", secrets.jwt, "gitleaks:jwt"),
  { name: "40-hex key", text: `hash ${secrets.hex40} here`, secret: secrets.hex40, source: "fiable" },
  {
    name: "random base64 key",
    text: `key material ${secrets.base64} here`,
    secret: secrets.base64,
    source: "fiable",
  },
];

/** The credentials of gitleaks' default rules: each token bare, each keyed value after its vendor's name. */
export const GITLEAKS_CREDENTIALS: Credential[] = [
  ...GITLEAKS_TOKENS.map(([rule, token]) => bare(rule, token, `gitleaks:${rule}`)),
  ...GITLEAKS_KEYED.map(([rule, lead, value]) => ({
    name: `${rule} (keyed)`,
    text: `${lead}${value}${lead.endsWith('"') ? '"' : ""}`,
    secret: value,
    source: `gitleaks:${rule}`,
  })),
];
CREDENTIALS.push(...GITLEAKS_CREDENTIALS);

/** The seven shapes the hostile-input probe of #32 found reaching ledgers (by `name` above). */
export const ISSUE_32 = [
  "Slack user token",
  "GitLab token",
  "Twilio key",
  "32-hex API key",
  "password in a URL",
  "password in text",
  "PEM private key",
];
