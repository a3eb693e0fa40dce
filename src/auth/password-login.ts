import { eq, sql } from "drizzle-orm";
import { DUMMY_PASSWORD_HASH, verifyPassword } from "../crypto/password";
import { recordAudit } from "../db/audit";
import { activateUser } from "../accounts/user-state";
import { getDb } from "../db/client";
import { users } from "../db/schema/accounts";
import { findUserByLogin, type UserRow } from "../db/users";
import type { Bindings } from "../env";

/** GitLab (Devise lockable): 10 failed attempts lock the account for 10 minutes. */
export const MAX_FAILED_ATTEMPTS = 10;
export const LOCK_DURATION_MS = 10 * 60 * 1000;

export type LoginFailure = "invalid" | "locked" | "blocked";

export class LoginError extends Error {
  constructor(
    readonly reason: LoginFailure,
    /** When a locked account unlocks (ms since the epoch). */
    readonly lockedUntil: number | null = null,
  ) {
    super(`login ${reason}`);
    this.name = "LoginError";
  }
}

export function isLocked(user: Pick<UserRow, "lockedUntil">, now = Date.now()): boolean {
  return user.lockedUntil !== null && user.lockedUntil > now;
}

/**
 * Checks a username-or-email and password. Used by the sign-in page and the password grant; it
 * does not look at two-factor authentication (each caller decides that).
 *
 * On success of a user without two-factor, the failure counter is reset and `sign_in` is audited;
 * a two-factor user has signed in only once the second step passes (recordSuccessfulSignIn).
 */
export async function verifyPasswordLogin(
  env: Bindings,
  login: string,
  password: string,
  ip: string | null,
  /** The sign-in page reactivates a deactivated account (GitLab); the password grant does not. */
  opts: { reactivate?: boolean } = {},
): Promise<UserRow> {
  const db = getDb(env.DB);
  let user = login.length <= 255 ? await findUserByLogin(db, login.trim()) : null;
  if (!user) {
    // Spend the same PBKDF2 time as for a real user, so timing does not reveal who exists.
    await verifyPassword(password, DUMMY_PASSWORD_HASH);
    await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: "unknown", details: { reason: "unknown_user" }, ip });
    throw new LoginError("invalid");
  }
  if (isLocked(user)) {
    await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: user.id, details: { reason: "locked" }, ip });
    throw new LoginError("locked", user.lockedUntil);
  }
  const ok = await verifyPassword(password, user.passwordHash);
  if (!ok) {
    const lockedUntil = await recordFailedAttempt(env, user.id, ip, "password");
    if (lockedUntil !== null) throw new LoginError("locked", lockedUntil);
    throw new LoginError("invalid");
  }
  if (user.state === "deactivated" && opts.reactivate) {
    await activateUser(env, null, user.id);
    user = { ...user, state: "active" };
  }
  // Only someone who knows the password learns that the account is blocked.
  if (user.state !== "active") {
    await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: user.id, details: { reason: "blocked" }, ip });
    throw new LoginError("blocked");
  }
  if (user.otpRequired) return user;
  return recordSuccessfulSignIn(env, user, ip, "password");
}

/**
 * Counts one failed attempt (a wrong password, or a wrong two-factor code) in a single conditional
 * UPDATE, so concurrent failures are each counted and exactly one of them locks the account.
 * An expired lock starts a new count. Returns the lock's end when the account is now locked.
 */
export async function recordFailedAttempt(
  env: Bindings,
  userId: number,
  ip: string | null,
  method: "password" | "two_factor",
): Promise<number | null> {
  const db = getDb(env.DB);
  const now = Date.now();
  const lockEnd = now + LOCK_DURATION_MS;
  // SQLite evaluates every SET expression against the old row, so `next` is spelled out twice.
  const next = sql`(CASE WHEN ${users.lockedUntil} IS NOT NULL AND ${users.lockedUntil} <= ${now} THEN 1 ELSE ${users.failedAttempts} + 1 END)`;
  const [row] = await db
    .update(users)
    .set({
      failedAttempts: next,
      lockedUntil: sql`(CASE WHEN ${next} >= ${MAX_FAILED_ATTEMPTS} THEN ${lockEnd} ELSE NULL END)`,
    })
    .where(sql`${users.id} = ${userId} AND (${users.lockedUntil} IS NULL OR ${users.lockedUntil} <= ${now})`)
    .returning({ failedAttempts: users.failedAttempts, lockedUntil: users.lockedUntil });
  await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: userId, details: { method }, ip });
  if (!row) {
    // Another request locked the account between our read and this update.
    const [current] = await db.select({ lockedUntil: users.lockedUntil }).from(users).where(eq(users.id, userId));
    return current?.lockedUntil ?? lockEnd;
  }
  if (row.lockedUntil === null) return null;
  if (row.failedAttempts === MAX_FAILED_ATTEMPTS) {
    await recordAudit(db, { action: "lockout", entityType: "user", entityId: userId, details: { until: row.lockedUntil }, ip });
  }
  return row.lockedUntil;
}

/** A complete sign-in: resets the failure count, records the time and audits it. */
export async function recordSuccessfulSignIn(
  env: Bindings,
  user: UserRow,
  ip: string | null,
  method: "password" | "two_factor" | "recovery_code",
): Promise<UserRow> {
  const db = getDb(env.DB);
  const now = Date.now();
  const [row] = await db
    .update(users)
    .set({ failedAttempts: 0, lockedUntil: null, lastSignInAt: now })
    .where(eq(users.id, user.id))
    .returning();
  await recordAudit(db, { action: "sign_in", authorId: user.id, entityType: "user", entityId: user.id, details: { method }, ip });
  return row ?? user;
}
