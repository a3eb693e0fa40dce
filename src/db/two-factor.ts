import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { users } from "./schema/accounts";
import { userOtpState } from "./schema/two-factor";
import type { UserRow } from "./users";

/** The two-factor columns of a user and the last accepted TOTP step (src/services/accounts/two-factor.ts). */

/**
 * Sets the pending TOTP secret only while it is unset, or still the unreadable value the caller
 * saw (sealed under a key gone after a SECRET_KEY_BASE rotation), and two-factor is off. The row,
 * or null when another request set it first.
 */
export async function setPendingOtpSecret(db: Db, user: Pick<UserRow, "id" | "otpSecretEnc">, enc: string): Promise<UserRow | null> {
  const unsetOrUnreadable = user.otpSecretEnc
    ? sql`(${users.otpSecretEnc} IS NULL OR ${users.otpSecretEnc} = ${user.otpSecretEnc})`
    : sql`${users.otpSecretEnc} IS NULL`;
  const [row] = await db
    .update(users)
    .set({ otpSecretEnc: enc })
    .where(and(eq(users.id, user.id), unsetOrUnreadable, eq(users.otpRequired, false)))
    .returning();
  return row ?? null;
}

export async function enableOtp(db: Db, userId: number, backupCodeHashes: string): Promise<void> {
  await db.update(users).set({ otpRequired: true, otpBackupCodeHashes: backupCodeHashes }).where(eq(users.id, userId));
}

/** Two-factor off: the secret, the recovery codes and the last used step go together. */
export async function disableOtp(db: Db, userId: number): Promise<void> {
  await db.batch([
    db.update(users).set({ otpRequired: false, otpSecretEnc: null, otpBackupCodeHashes: "[]" }).where(eq(users.id, userId)),
    db.delete(userOtpState).where(eq(userOtpState.userId, userId)),
  ]);
}

export async function setBackupCodeHashes(db: Db, userId: number, backupCodeHashes: string): Promise<void> {
  await db.update(users).set({ otpBackupCodeHashes: backupCodeHashes }).where(eq(users.id, userId));
}

/** Compare-and-swap of the recovery-code list: true when it still was `expected` and is now `next`. */
export async function swapBackupCodeHashes(db: Db, userId: number, expected: string, next: string): Promise<boolean> {
  const res = await db
    .update(users)
    .set({ otpBackupCodeHashes: next })
    .where(and(eq(users.id, userId), eq(users.otpBackupCodeHashes, expected)))
    .returning({ id: users.id });
  return res.length === 1;
}

/** Records a TOTP step only when it is later than the last one accepted (RFC 6238 §5.2: each code once). */
export async function acceptOtpStep(db: Db, userId: number, step: number): Promise<boolean> {
  const rows = await db
    .insert(userOtpState)
    .values({ userId, lastUsedStep: step })
    .onConflictDoUpdate({
      target: userOtpState.userId,
      set: { lastUsedStep: step },
      setWhere: sql`${userOtpState.lastUsedStep} < ${step}`,
    })
    .returning({ step: userOtpState.lastUsedStep });
  return rows.length === 1;
}
