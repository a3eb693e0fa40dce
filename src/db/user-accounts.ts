import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "./client";
import { sessions, users } from "./schema/accounts";
import { projects } from "./schema/projects";
import { registryRepositories } from "./schema/registry";
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

/** The UPDATE itself, unawaited: the guard of a password change recorded with its intent (expiry untouched when not given). */
export function passwordHashUpdate(db: Db, userId: number, passwordHash: string, expiresAt?: number | null) {
  return db
    .update(users)
    .set(expiresAt === undefined ? { passwordHash } : { passwordHash, passwordExpiresAt: expiresAt })
    .where(eq(users.id, userId));
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

export interface UserAttributeChanges {
  name?: string;
  username?: string;
  email?: string;
  isAdmin?: boolean;
}

/**
 * An administrator's edit of a user's attributes. A new username renames the user's personal
 * namespace: the paths of the user's own projects follow in the same batch (repositories are stored
 * by project id, so nothing moves on disk). D1's unique indexes and namespace triggers refuse a
 * taken username or email (the caller wraps this in claimNamespacePath).
 */
export async function updateUserAttributes(db: Db, user: { id: number; username: string }, changes: UserAttributeChanges): Promise<UserRow> {
  const renamed = changes.username !== undefined && changes.username !== user.username;
  const update = db.update(users).set(changes).where(eq(users.id, user.id)).returning();
  if (!renamed) {
    const [row] = await update;
    return row;
  }
  const prefix = `${user.username}/`;
  const [[row]] = await db.batch([
    update,
    db
      .update(projects)
      .set({ pathWithNamespace: sql`${changes.username} || '/' || substr(${projects.pathWithNamespace}, ${prefix.length + 1})` })
      .where(and(eq(projects.namespaceKind, "user"), eq(projects.namespaceId, user.id))),
  ]);
  return row;
}

/** Does any project in the user's personal namespace hold container images (whose names carry its path)? */
export async function personalProjectsHaveRegistryRepositories(db: Db, userId: number): Promise<boolean> {
  const rows = await db
    .select({ id: registryRepositories.id })
    .from(registryRepositories)
    .innerJoin(projects, eq(projects.id, registryRepositories.projectId))
    .where(and(eq(projects.namespaceKind, "user"), eq(projects.namespaceId, userId)))
    .limit(1);
  return rows.length > 0;
}
