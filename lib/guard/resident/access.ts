/**
 * Who may talk to the resident guard. Bound to loopback it answers local hooks only (a request naming another
 * Host or coming from a web page's Origin is refused, so a page cannot rebind a name to it); bound anywhere
 * else it needs a bearer token, which every request but `/health` must carry. Pure: no I/O.
 */
import { timingSafeEqual } from "node:crypto";

/** The environment variable holding the guard's token (the hook settings send it as a bearer token). */
export const TOKEN_ENV = "FIABLE_GUARD_TOKEN";

/** True for a loopback interface or name: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Why the guard must not bind `host`, or null when it may: a non-loopback address without a token would let
 * anyone who can reach it write case locks and block counts into any session.
 */
export function bindRefusal(host: string, token: string | undefined): string | null {
  if (isLoopback(host) || token) return null;
  return `Cannot serve on ${host} without a token: anyone who can reach it could write into any session. ` +
    `Bind 127.0.0.1, or set ${TOKEN_ENV} (or --token) and send it as "Authorization: Bearer <token>".`;
}

/** The request headers access is decided on (node:http lower-cases the names). */
export interface RequestHeaders {
  host?: string;
  origin?: string;
  authorization?: string;
}

/** The host name of a Host header or an origin URL, without port or brackets, lower-cased. */
export function hostName(value: string): string {
  const bare = value.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/.*$/, "");
  const m = /^\[([^\]]*)\](?::\d+)?$/.exec(bare) ?? /^([^:]*)(?::\d+)?$/.exec(bare);
  return (m ? m[1] : bare).toLowerCase();
}

/**
 * True when a secret given with a request is the token, compared in constant time (the resident guard's hooks
 * and the dashboard's pages and /ingest alike).
 */
export function sameSecret(given: string, token: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The credentials of an `Authorization: Bearer <token>` header ("" without one); the scheme in any case. */
export function bearerToken(header: string | undefined): string {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
}

/**
 * Whether to answer a request: null to go on, or the status and a one-line error. A foreign Origin is
 * refused always; a foreign Host when bound to loopback; a missing or wrong token when one is set (`/health`
 * excepted, so the lifecycle checks still see the guard).
 */
export function refusal(
  headers: RequestHeaders,
  options: { boundHost: string; token?: string; path: string },
): { status: number; error: string } | null {
  if (headers.origin && !isLoopback(hostName(headers.origin))) {
    return {
      status: 403,
      error: `Refused: requests from a web page (Origin ${headers.origin}) are not hooks.`,
    };
  }
  if (isLoopback(options.boundHost) && headers.host && !isLoopback(hostName(headers.host))) {
    return {
      status: 403,
      error: `Refused: Host ${headers.host} is not this machine; call http://127.0.0.1.`,
    };
  }
  if (options.token && options.path !== "/health") {
    if (!sameSecret(bearerToken(headers.authorization), options.token)) {
      return { status: 401, error: `Refused: send the guard's token as "Authorization: Bearer <token>".` };
    }
  }
  return null;
}
