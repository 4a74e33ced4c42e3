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
