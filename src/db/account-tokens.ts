import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { sameWithoutCase } from "./namespace-paths";
import { users } from "./schema/accounts";
import type { UserRow } from "./users";

/**
 * The mailed single-use tokens of an account (Devise's reset_password_token and
 * confirmation_token): only their SHA-256 is stored, on the user's row, one of each kind at a time.
 * The lifetimes and the hashing are src/services/accounts/ rules; these only read and write.
 */

/** The user whose confirmed primary address this is (case-insensitive, through its unique index). */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(sameWithoutCase(users.email, email)).limit(1);
  return row ?? null;
}

/** A new reset token replaces any earlier one (only the newest link works). */
export async function storeResetPasswordToken(db: Db, userId: number, tokenHash: string, sentAt: number): Promise<void> {
  await db.update(users).set({ resetPasswordTokenHash: tokenHash, resetPasswordSentAt: sentAt }).where(eq(users.id, userId));
}

export async function findUserByResetPasswordToken(db: Db, tokenHash: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.resetPasswordTokenHash, tokenHash)).limit(1);
  return row ?? null;
}

/**
 * Spends a reset token and sets the new password in one conditional UPDATE: of two requests with
 * the same link, exactly one finds the hash still there. False when it was already spent.
 */
export function spendResetPasswordToken(db: Db, userId: number, tokenHash: string, passwordHash: string) {
  return db
    .update(users)
    .set({ passwordHash, passwordExpiresAt: null, resetPasswordTokenHash: null, resetPasswordSentAt: null })
    .where(and(eq(users.id, userId), eq(users.resetPasswordTokenHash, tokenHash)));
}

/** A new address waits in unconfirmed_email with its confirmation token until it is confirmed. */
export async function storeUnconfirmedEmail(db: Db, userId: number, email: string, tokenHash: string, sentAt: number): Promise<void> {
  await db.update(users).set({ unconfirmedEmail: email, confirmationTokenHash: tokenHash, confirmationSentAt: sentAt }).where(eq(users.id, userId));
}

export async function findUserByConfirmationToken(db: Db, tokenHash: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.confirmationTokenHash, tokenHash)).limit(1);
  return row ?? null;
}

/**
 * The unconfirmed address becomes the primary one, once: the UPDATE only finds the row while the
 * token is still there. A unique violation (someone else took the address meanwhile) propagates.
 */
export async function confirmUnconfirmedEmail(db: Db, userId: number, tokenHash: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ email: sql`${users.unconfirmedEmail}`, unconfirmedEmail: null, confirmationTokenHash: null, confirmationSentAt: null })
    .where(and(eq(users.id, userId), eq(users.confirmationTokenHash, tokenHash), isNotNull(users.unconfirmedEmail)))
    .returning({ id: users.id });
  return rows.length > 0;
}
