import { and, desc, eq, gt, lt, ne } from "drizzle-orm";
import type { Db } from "./client";
import { sessions, users } from "./schema/accounts";
import type { UserRow } from "./users";
import { queueLogoutsOfUserSessions } from "./backchannel-logouts";

/**
 * Browser sessions in D1, by the SHA-256 of the cookie's random id (the rules, the hashing and the
 * lifetimes are src/credentials/session.ts's; this module only stores).
 */
export type SessionRow = typeof sessions.$inferSelect;

/** The session with this id hash and its user, when it has not expired at `now`. */
export async function findLiveSession(db: Db, idHash: string, now: number): Promise<{ row: SessionRow; user: UserRow } | null> {
  const [hit] = await db
    .select({ row: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .limit(1);
  return hit ?? null;
}

export async function insertSession(db: Db, row: typeof sessions.$inferInsert): Promise<void> {
  await db.insert(sessions).values(row);
}

/** Removes the sessions that expired before `now`. */
export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}

export async function deleteSessionByHash(db: Db, idHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.idHash, idHash));
}

/**
 * Removes every session of the user but `keepIdHash` (all of them when null); answers how many.
 * The Back-Channel Logout deliveries of the ended sessions are queued in the same batch, before
 * the rows go (src/db/backchannel-logouts.ts): every path that ends a user's sessions (block,
 * deactivation, a password change, sign out everywhere) notifies the clients they signed into.
 */
export async function deleteSessionsOfUser(db: Db, userId: number, keepIdHash: string | null = null, now = Date.now()): Promise<number> {
  const [, gone] = await db.batch([
    queueLogoutsOfUserSessions(db, userId, keepIdHash, now),
    db
      .delete(sessions)
      .where(keepIdHash === null ? eq(sessions.userId, userId) : and(eq(sessions.userId, userId), ne(sessions.idHash, keepIdHash)))
      .returning({ id: sessions.idHash }),
  ]);
  return gone.length;
}

/** The statement that ends one session of the user (the guard of a session's end, src/services/logout/). */
export function deleteSessionStatement(db: Db, userId: number, idHash: string) {
  return db.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.idHash, idHash)));
}

/** Removes one session of the user; false when no such session was theirs. */
export async function deleteSessionOfUser(db: Db, userId: number, idHash: string): Promise<boolean> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.idHash, idHash)))
    .returning({ id: sessions.idHash });
  return gone.length > 0;
}

/** The user's signed-in sessions (not the half-done two-factor ones) live at `now`, most recently used first. */
export async function listSessionsOfUser(db: Db, userId: number, now: number): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.pendingTwoFactor, false), gt(sessions.expiresAt, now)))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt));
}

export async function touchSession(db: Db, idHash: string, now: number): Promise<void> {
  await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.idHash, idHash));
}
