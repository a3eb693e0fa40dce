import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { getConfig } from "../config";
import { timingSafeEqual } from "../crypto/hash";
import { randomToken, toBase64Url } from "../crypto/random";
import {
  createSession,
  deleteSession,
  deleteOtherSessionsOfUser,
  findSession,
  listSessionsOfUser,
  touchSession,
  type SessionCredential,
} from "../credentials/session";
import type { UserRow } from "../db/users";
import type { Bindings } from "../env";
import { clientAddress } from "../http/client-address";
import { endBrowserSession } from "../services/logout/session-end";
import { revokeSession } from "../services/accounts/sessions";
import { deliverDueLogouts } from "../services/logout/backchannel";

/**
 * Browser sessions on the pages: the cookie (its credential, stored hashed, is src/credentials/session.ts).
 * Sessions expire (SESSION_TTL_SECONDS) and end on sign-out.
 *
 * CSRF tokens are an HMAC of the session id (or, before sign-in, of a random pre-session cookie)
 * under a key derived from SECRET_KEY_BASE: nothing to store, and a token is useless with another
 * browser's cookie.
 */
export const SESSION_COOKIE = "_edge_auth_session";
export const PRE_SESSION_COOKIE = "_edge_auth_csrf";
/** /profile/active_sessions shows "last seen" to the minute; a write per request would be waste. */
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;
/** Between the password and the two-factor step: long enough to type a code, no longer. */
const PENDING_TTL_MS = 10 * 60 * 1000;

type Ctx = Context<any>;

function isHttps(c: Ctx): boolean {
  return new URL(c.req.url).protocol === "https:";
}

function cookieOptions(c: Ctx, maxAgeSeconds?: number) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: isHttps(c),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** The issuer a session signs in under and its logout tokens name (ISSUER, or the request's origin, as src/oauth/issuer.ts). */
function sessionIssuer(c: Ctx): string {
  return getConfig(c.env as Bindings).issuer || new URL(c.req.url).origin;
}

/** Per-request memo: pages ask for the user several times (layout, handler, CSRF). */
const memo = new WeakMap<Request, Promise<SessionCredential | null>>();
/** A session started during this request is the one CSRF tokens of the response bind to. */
const cookieOverride = new WeakMap<Request, string>();

function session(c: Ctx): Promise<SessionCredential | null> {
  let p = memo.get(c.req.raw);
  if (!p) {
    p = findSession(c.env as Bindings, cookieOverride.get(c.req.raw) ?? getCookie(c, SESSION_COOKIE)).then((hit) => {
      if (hit && !hit.row.pendingTwoFactor) {
        const now = Date.now();
        if (hit.row.lastSeenAt === null || now - hit.row.lastSeenAt > LAST_SEEN_RESOLUTION_MS) void defer(c, touchSession(c.env as Bindings, hit.row.idHash, now));
      }
      return hit;
    });
    memo.set(c.req.raw, p);
  }
  return p;
}

/** Runs work after the response when the runtime allows it, else before. */
function defer(c: Ctx, work: Promise<unknown>): Promise<void> | void {
  const settled = work.then(() => undefined, () => undefined);
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    return settled; // no execution context (a direct app.fetch without one)
  }
}

/** The stored id (SHA-256) of the browser's signed-in session, to mark it "current" or keep it. */
export async function currentSessionIdHash(c: Ctx): Promise<string | null> {
  const s = await session(c);
  return s && !s.row.pendingTwoFactor ? s.row.idHash : null;
}

/** The OpenID Connect sid of the browser's signed-in session (null signed out, or for a session older than sids). */
export async function currentSessionSid(c: Ctx): Promise<string | null> {
  const s = await session(c);
  return s && !s.row.pendingTwoFactor ? s.row.sid : null;
}

/** The browser's signed-in session row and user (null signed out, pending two-factor or not active). */
export async function currentSession(c: Ctx): Promise<SessionCredential | null> {
  const s = await session(c);
  return s && !s.row.pendingTwoFactor && s.user.state === "active" ? s : null;
}

/**
 * Signs the browser out on purpose (the sign-out button, the end-session endpoint): the session
 * ends as a change (src/services/logout/session-end.ts: back-channel logouts queued, its
 * session-bound grants revoked, the audit row), the cookie is cleared, and the queued logout
 * tokens are sent after the response (the cron retries what fails). Answers whether a session ended.
 */
export async function signOutBrowser(c: Ctx, reason: "sign_out" | "rp_initiated_logout"): Promise<boolean> {
  const env = c.env as Bindings;
  const s = await session(c);
  let ended = false;
  if (s && !s.row.pendingTwoFactor) {
    const ip = clientAddress(c.req.raw, env);
    ended = await endBrowserSession(env, { session: s.row, issuer: sessionIssuer(c), reason, actor: { id: s.user.id, ip } });
    await defer(c, deliverDueLogouts(env));
  } else if (s) {
    await deleteSession(env, cookieOverride.get(c.req.raw) ?? getCookie(c, SESSION_COOKIE) ?? "");
  }
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
  memo.set(c.req.raw, Promise.resolve(null));
  cookieOverride.delete(c.req.raw);
  return ended;
}

/** Ends another session of the signed-in user (/profile/active_sessions) through the sessions service, then sends its back-channel logouts after the response; false when it was not theirs. */
export async function revokeOtherSession(c: Ctx, userId: number, idHash: string): Promise<boolean> {
  const env = c.env as Bindings;
  const ended = await revokeSession(env, { id: userId, ip: clientAddress(c.req.raw, env) }, userId, idHash, sessionIssuer(c));
  if (ended) await defer(c, deliverDueLogouts(env));
  return ended;
}

/**
 * The password or two-factor settings changed: every other session of the user ends (someone who
 * had the old password may hold one); the browser that made the change stays signed in.
 */
export async function endOtherSessions(c: Ctx, userId: number): Promise<number> {
  const keep = await currentSessionIdHash(c);
  return deleteOtherSessionsOfUser(c.env as Bindings, userId, keep);
}

/** The signed-in user; null when signed out, expired, blocked, or still pending two-factor. */
export async function currentUser(c: Ctx): Promise<UserRow | null> {
  const s = await session(c);
  if (!s || s.row.pendingTwoFactor || s.user.state !== "active") return null;
  c.set("sessionUserId", s.user.id);
  return s.user;
}

/**
 * When the signed-in person last authenticated (ms): the session starts at sign-in (a fresh one
 * after the two-factor step), so its creation time is OpenID Connect's auth_time.
 */
export async function sessionAuthTime(c: Ctx): Promise<number | null> {
  const s = await session(c);
  if (!s || s.row.pendingTwoFactor || s.user.state !== "active") return null;
  return s.row.createdAt;
}

/** The user who passed the password step and still owes a two-factor code. */
export async function pendingTwoFactorUser(c: Ctx): Promise<UserRow | null> {
  const s = await session(c);
  if (!s || !s.row.pendingTwoFactor || s.user.state !== "active") return null;
  return s.user;
}

/**
 * Starts a new session (a fresh id every time, against session fixation) and ends the one the
 * browser held before.
 */
export async function startSession(c: Ctx, userId: number, opts: { pendingTwoFactor?: boolean } = {}): Promise<void> {
  const env = c.env as Bindings;
  await endSession(c);
  const ttlMs = opts.pendingTwoFactor ? PENDING_TTL_MS : getConfig(env).sessionTtlSeconds * 1000;
  const { raw, sweep } = await createSession(env, {
    userId,
    pendingTwoFactor: opts.pendingTwoFactor ?? false,
    ttlMs,
    userAgent: c.req.header("User-Agent")?.slice(0, 255) ?? null,
    ipAddress: clientAddress(c.req.raw, c.env),
    // The `iss` of the logout tokens this session's end sends (Back-Channel Logout §2.4).
    issuer: sessionIssuer(c),
  });
  await defer(c, sweep);
  setCookie(c, SESSION_COOKIE, raw, cookieOptions(c, Math.floor(ttlMs / 1000)));
  cookieOverride.set(c.req.raw, raw);
  memo.delete(c.req.raw);
}

/** Ends the browser's session, in storage and in the cookie. */
export async function endSession(c: Ctx): Promise<void> {
  const raw = cookieOverride.get(c.req.raw) ?? getCookie(c, SESSION_COOKIE);
  if (raw) await deleteSession(c.env as Bindings, raw);
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
  memo.set(c.req.raw, Promise.resolve(null));
  cookieOverride.delete(c.req.raw);
}

const keyCache = new Map<string, Promise<CryptoKey>>();
function csrfKey(secretKeyBase: string): Promise<CryptoKey> {
  let k = keyCache.get(secretKeyBase);
  if (!k) {
    k = (async () => {
      // A key of its own for CSRF, derived so it never equals the key of anything else.
      const material = new TextEncoder().encode(`csrf-token-v1:${secretKeyBase}`);
      const digest = await crypto.subtle.digest("SHA-256", material);
      return crypto.subtle.importKey("raw", digest, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    })();
    keyCache.set(secretKeyBase, k);
  }
  return k;
}

async function hmac(c: Ctx, binding: string, secretKeyBase = getConfig(c.env as Bindings).secretKeyBase): Promise<string> {
  const key = await csrfKey(secretKeyBase);
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(binding));
  return toBase64Url(new Uint8Array(sig));
}

/**
 * The CSRF token for forms of this response: bound to the session, or before sign-in to a
 * pre-session cookie that this call sets when the browser has none.
 */
export async function csrfToken(c: Ctx): Promise<string> {
  const started = cookieOverride.get(c.req.raw);
  if (started) return hmac(c, `session:${started}`);
  const sessionId = getCookie(c, SESSION_COOKIE);
  if (sessionId && (await session(c)) !== null) return hmac(c, `session:${sessionId}`);
  let pre = getCookie(c, PRE_SESSION_COOKIE);
  if (!pre || pre.length > 200) {
    pre = randomToken();
    setCookie(c, PRE_SESSION_COOKIE, pre, cookieOptions(c));
  }
  return hmac(c, `pre:${pre}`);
}

/** True when the token was made by csrfToken for a cookie this browser holds. */
export async function verifyCsrf(c: Ctx, token: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  const sessionId = getCookie(c, SESSION_COOKIE);
  const pre = getCookie(c, PRE_SESSION_COOKIE);
  let ok = false;
  // During a SECRET_KEY_BASE rotation, forms rendered before it still submit.
  const config = getConfig(c.env as Bindings);
  for (const key of [config.secretKeyBase, ...config.previousSecretKeyBases]) {
    if (sessionId) ok = timingSafeEqual(token, await hmac(c, `session:${sessionId}`, key)) || ok;
    if (pre) ok = timingSafeEqual(token, await hmac(c, `pre:${pre}`, key)) || ok;
  }
  return ok;
}
