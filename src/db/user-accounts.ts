import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "./client";
import { sessions, users } from "./schema/accounts";
import { signInAddresses } from "./schema/sign-in-addresses";
import type { UserRow } from "./users";

/**
 * The writes of src/services/accounts: sign-in bookkeeping, lockout marks, password and account
 * state. Each is one statement; the conditional ones say whether they changed anything, so two
 * racing requests change (and audit) once.
 */

export type AccountState = "active" | "blocked" | "deactivated";

/** One conditional UPDATE: true when the user was in one of `from` and is now `to`. */
export async function transitionUserState(db: Db, userId: number, from: AccountState[], to: AccountState): Promise<boolean> {
  const rows = await userStateTransition(db, userId, from, to);
  return rows.length > 0;
}

/** The conditional UPDATE itself, unawaited: the guard of a change recorded with its intent (src/db/pending-changes.ts recordIntent). */
export function userStateTransition(db: Db, userId: number, from: AccountState[], to: AccountState) {
  return db
    .update(users)
    .set({ state: to })
    .where(and(eq(users.id, userId), inArray(users.state, from)))
    .returning({ id: users.id });
}

/** A complete sign-in resets the failure count and records the time; the fresh row, if the user still exists. */
export async function recordSignInOfUser(db: Db, userId: number, now = Date.now()): Promise<UserRow | undefined> {
  const [row] = await db.update(users).set({ failedAttempts: 0, lastSignInAt: now }).where(eq(users.id, userId)).returning();
  return row;
}

/** Shows administrators that some address is locked out until `until` (never shortens a later mark). */
export async function markLockedUntil(db: Db, userId: number, until: number): Promise<void> {
  await db.update(users).set({ lockedUntil: sql`MAX(COALESCE(${users.lockedUntil}, 0), ${until})` }).where(eq(users.id, userId));
}

/** Clears the lockout mark and the failure count; false when there is no such user. */
export async function clearLockoutOfUser(db: Db, userId: number): Promise<boolean> {
  const rows = await db.update(users).set({ lockedUntil: null, failedAttempts: 0 }).where(eq(users.id, userId)).returning({ id: users.id });
  return rows.length > 0;
}

export async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<void> {
  await passwordHashUpdate(db, userId, passwordHash);
}

/** The UPDATE itself, unawaited: the guard of a password change recorded with its intent. */
export function passwordHashUpdate(db: Db, userId: number, passwordHash: string) {
  return db.update(users).set({ passwordHash }).where(eq(users.id, userId));
}

/** Has the user completed a sign-in from this address key before? */
export async function hasSignInAddress(db: Db, userId: number, address: string): Promise<boolean> {
  const row = await db
    .select({ userId: signInAddresses.userId })
    .from(signInAddresses)
    .where(and(eq(signInAddresses.userId, userId), eq(signInAddresses.address, address)))
    .get();
  return row !== undefined;
}

export async function rememberSignInAddressOf(db: Db, userId: number, address: string, now: number): Promise<void> {
  await db
    .insert(signInAddresses)
    .values({ userId, address, lastSignInAt: now })
    .onConflictDoUpdate({ target: [signInAddresses.userId, signInAddresses.address], set: { lastSignInAt: now } });
}

/** Ends every sign-in of the user that waits for its second factor; how many there were. */
export async function deletePendingTwoFactorSessions(db: Db, userId: number): Promise<number> {
  const ended = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.pendingTwoFactor, true)))
    .returning({ id: sessions.idHash });
  return ended.length;
}
