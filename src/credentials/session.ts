import { sha256Hex } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import { getDb } from "../db/client";
import * as store from "../db/sessions";
import type { Bindings } from "../env";
import type { UserRow } from "./principal";

/**
 * Browser sessions, the credential of the pages (src/web/session.ts keeps the cookie and CSRF).
 * The cookie holds a random id; D1 holds only its SHA-256, so a copy of the database cannot be
 * replayed as a cookie. Sessions expire and end on sign-out, and all of a user's end at once when
 * the user's credentials are revoked (user-credentials.ts).
 */
export interface SessionCredential {
  row: store.SessionRow;
  user: UserRow;
}

/** The live session for a cookie value, with its user; null when unknown or expired. */
export async function findSession(env: Bindings, raw: string | undefined): Promise<SessionCredential | null> {
  if (!raw || raw.length > 200) return null;
  return store.findLiveSession(getDb(env.DB), await sha256Hex(raw), Date.now());
}

/**
 * Creates a session and returns its raw id (for the cookie) and a sweep of expired rows, which the
 * caller runs after the response so the table does not grow without bound.
 */
export async function createSession(
  env: Bindings,
  input: { userId: number; pendingTwoFactor: boolean; ttlMs: number; userAgent?: string | null; ipAddress?: string | null; issuer?: string | null },
): Promise<{ raw: string; sweep: Promise<void> }> {
  const db = getDb(env.DB);
  const now = Date.now();
  const raw = randomToken();
  await store.insertSession(db, {
    idHash: await sha256Hex(raw),
    userId: input.userId,
    pendingTwoFactor: input.pendingTwoFactor,
    createdAt: now,
    expiresAt: now + input.ttlMs,
    userAgent: input.userAgent ?? null,
    ipAddress: input.ipAddress ?? null,
    lastSeenAt: now,
    // OpenID Connect's sid (Back-Channel Logout §2.1): random and public, unrelated to the cookie.
    sid: randomToken(),
    issuer: input.issuer ?? null,
  });
  const sweep = store.deleteExpiredSessions(db, now).then(() => undefined, () => undefined);
  return { raw, sweep };
}

export async function deleteSession(env: Bindings, raw: string): Promise<void> {
  await store.deleteSessionByHash(getDb(env.DB), await sha256Hex(raw));
}

/** Ends every session of the user (sign-out everywhere, block, password change). */
export async function deleteSessionsOfUser(env: Bindings, userId: number): Promise<number> {
  return store.deleteSessionsOfUser(getDb(env.DB), userId);
}

/**
 * Ends every session of the user but `keepIdHash` (the browser that changed the password or the
 * two-factor settings stays signed in).
 */
export async function deleteOtherSessionsOfUser(env: Bindings, userId: number, keepIdHash: string | null): Promise<number> {
  return store.deleteSessionsOfUser(getDb(env.DB), userId, keepIdHash);
}

/** Ends one session of the user (revoke on /profile/active_sessions); false when it was not theirs. */
export async function deleteSessionOfUser(env: Bindings, userId: number, idHash: string): Promise<boolean> {
  return store.deleteSessionOfUser(getDb(env.DB), userId, idHash);
}

/** A user's signed-in sessions (not the half-done two-factor ones), most recently used first. */
export async function listSessionsOfUser(env: Bindings, userId: number, now: number): Promise<store.SessionRow[]> {
  return store.listSessionsOfUser(getDb(env.DB), userId, now);
}

/** Records a request of the session (the caller decides how often, so reads stay reads). */
export async function touchSession(env: Bindings, idHash: string, now: number): Promise<void> {
  await store.touchSession(getDb(env.DB), idHash, now);
}
