/**
 * `POST /ingest`: guard records posted live (lib/guard/ledger/live.ts), with the bearer token (hono's
 * bearerAuth over the compare the resident guard uses) and a body limit enforced while reading (hono's
 * bodyLimit: a chunked body is cut off at the limit, never read whole).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { bodyLimit } from "hono/body-limit";
import { sameSecret } from "../../../lib/guard/resident/access.ts";
import type { LedgerRecord } from "../../../lib/guard/engine/record.ts";
import type { Page } from "../../context.ts";
import { INGEST_CAPS } from "../../read/sources/ingest.ts";

/** Default /ingest body limit: 1 MiB. */
export const INGEST_LIMIT = 1 << 20;

function isRecord(value: unknown): value is LedgerRecord {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return typeof r.session === "string" && r.session.length > 0 && r.session.length <= 200 &&
    typeof r.event === "string" && typeof r.decision === "string";
}

/** A refusal as bearerAuth answers it (it adds the WWW-Authenticate challenge): 401 and our line. */
function refused(text: string) {
  return (_c: Context) => new Response(text, { status: 401 });
}

export const page: Page = {
  routes({ store, options }) {
    const app = new Hono();
    const limit = options.ingestLimit ?? INGEST_LIMIT;
    const token = options.token;
    const wrongToken = "Cannot ingest: missing or wrong bearer token. Send Authorization: Bearer <token>.";
    app.post(
      "/ingest",
      async (c, next) => {
        if (token) return await next();
        return c.text(
          "Cannot ingest: the dashboard has no token. Start it with --token or FIABLE_LIVE_TOKEN.",
          403,
        );
      },
      bearerAuth({
        verifyToken: (given) => sameSecret(given, token ?? ""),
        noAuthenticationHeader: { message: refused(wrongToken) },
        invalidAuthenticationHeader: { message: refused(wrongToken) },
        invalidToken: { message: refused(wrongToken) },
      }),
      bodyLimit({
        maxSize: limit,
        onError: (c) => {
          const declared = c.req.header("content-length");
          return c.text(
            `Cannot ingest ${declared ?? `more than ${limit}`} bytes: the limit is ${limit}. ` +
              "Send one record per request.",
            413,
          );
        },
      }),
      async (c) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(await c.req.text());
        } catch {
          return c.text("Cannot ingest: the body is not JSON. Send one ledger record as a JSON object.", 400);
        }
        const records = Array.isArray(parsed) ? parsed : [parsed];
        if (!records.length || !records.every(isRecord)) {
          return c.text(
            "Cannot ingest: each record needs string session, event and decision fields. Send ledger records.",
            400,
          );
        }
        const caps = options.ingestCaps ?? INGEST_CAPS;
        const held = records.findIndex((r) => !store.ingest(r, Date.now(), caps));
        if (held >= 0) {
          return c.text(
            `Cannot ingest more for session ${
              JSON.stringify(String(records[held].session).slice(0, 100))
            }: ` +
              `it holds ${caps.session} bytes of live records, the most one session may (${held} of this ` +
              `request's ${records.length} records were taken). Read its ledger from the trial dir.`,
            413,
          );
        }
        return c.body(null, 204);
      },
    );
    return app;
  },
};
