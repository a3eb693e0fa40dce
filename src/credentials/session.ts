import { and, eq, gt, lt } from "drizzle-orm";
import { sha256Hex } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import { getDb } from "../db/client";
import { sessions, users } from "../db/schema/accounts";
import type { Bindings } from "../env";
import type { UserRow } from "./principal";

/**
 * Browser sessions, the credential of the pages (src/web/session.ts keeps the cookie and CSRF).
 * The cookie holds a random id; D1 holds only its SHA-256, so a copy of the database cannot be
 * replayed as a cookie. Sessions expire and end on sign-out, and all of a user's end at once when
 * the user's credentials are revoked (user-credentials.ts).
 */
export interface SessionCredential {
  row: typeof sessions.$inferSelect;
  user: UserRow;
}

/** The live session for a cookie value, with its user; null when unknown or expired. */
export async function findSession(env: Bindings, raw: string | undefined): Promise<SessionCredential | null> {
  if (!raw || raw.length > 200) return null;
  const [hit] = await getDb(env.DB)
    .select({ row: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, await sha256Hex(raw)), gt(sessions.expiresAt, Date.now())))
    .limit(1);
  return hit ?? null;
}

/**
 * Creates a session and returns its raw id (for the cookie) and a sweep of expired rows, which the
 * caller runs after the response so the table does not grow without bound.
 */
export async function createSession(
  env: Bindings,
  input: { userId: number; pendingTwoFactor: boolean; ttlMs: number },
): Promise<{ raw: string; sweep: Promise<void> }> {
  const db = getDb(env.DB);
  const now = Date.now();
  const raw = randomToken();
  await db.insert(sessions).values({
    idHash: await sha256Hex(raw),
    userId: input.userId,
    pendingTwoFactor: input.pendingTwoFactor,
    createdAt: now,
    expiresAt: now + input.ttlMs,
  });
  const sweep = db.delete(sessions).where(lt(sessions.expiresAt, now)).then(() => undefined, () => undefined);
  return { raw, sweep };
}

export async function deleteSession(env: Bindings, raw: string): Promise<void> {
  await getDb(env.DB).delete(sessions).where(eq(sessions.idHash, await sha256Hex(raw)));
}

/** Ends every session of the user (sign-out everywhere, block, password change). */
export async function deleteSessionsOfUser(env: Bindings, userId: number): Promise<number> {
  const gone = await getDb(env.DB).delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.idHash });
  return gone.length;
}
