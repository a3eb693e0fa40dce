import { getConfig } from "../../config";
import { decryptWithAny, encryptString } from "../../crypto/encrypt";
import { sha256Hex } from "../../crypto/hash";
import { verifyReenteredPassword } from "./password-reentry";
import { randomBytes, toHex } from "../../crypto/random";
import { generateTotpSecret, otpauthUri, verifyTotp } from "../../crypto/totp";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import { acceptOtpStep, disableOtp, enableOtp, setBackupCodeHashes, setPendingOtpSecret, swapBackupCodeHashes } from "../../db/two-factor";
import { findUserById, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { userChanged } from "./user-changed";
import { AppError } from "../../domain/errors";

/**
 * Two-factor authentication with TOTP (RFC 6238) and one-time recovery codes, as GitLab:
 * a secret is generated and kept (encrypted) while enrolment is pending, enrolment is confirmed
 * with a code and the current password, and 10 recovery codes are shown once and stored hashed.
 */
export const RECOVERY_CODE_COUNT = 10;
const PURPOSE = "otp-secret";
export const TOTP_ISSUER = "Edge Auth";

export const TWO_FACTOR_FAILURES = ["wrong_password", "wrong_code", "already_enabled", "not_enabled"] as const;
export type TwoFactorFailure = (typeof TWO_FACTOR_FAILURES)[number];
const twoFactorError = (reason: TwoFactorFailure) =>
  new AppError(reason === "wrong_password" || reason === "wrong_code" ? "invalid" : "conflict", `two-factor: ${reason}`, { reason });

async function secretOf(env: Bindings, user: UserRow): Promise<string | null> {
  if (!user.otpSecretEnc) return null;
  const config = getConfig(env);
  return decryptWithAny([config.secretKeyBase, ...config.previousSecretKeyBases], PURPOSE, user.otpSecretEnc);
}

/** The pending secret for enrolment (made on first visit, kept until confirmed), and its URI. */
export async function pendingEnrolment(env: Bindings, user: UserRow): Promise<{ secret: string; uri: string }> {
  if (user.otpRequired) throw twoFactorError("already_enabled");
  let secret = await secretOf(env, user).catch(() => null);
  if (!secret) {
    secret = generateTotpSecret();
    const enc = await encryptString(getConfig(env).secretKeyBase, PURPOSE, secret);
    // Only set it when still unset (or unreadable: sealed under a key that is gone after a
    // SECRET_KEY_BASE rotation), so two tabs show the same secret and a lost key cannot loop.
    const row = await setPendingOtpSecret(getDb(env.DB), user, enc);
    if (!row) {
      const fresh = await findUserById(getDb(env.DB), user.id);
      if (!fresh) throw twoFactorError("not_enabled");
      return pendingEnrolment(env, fresh);
    }
  }
  return { secret, uri: otpauthUri(TOTP_ISSUER, user.email, secret) };
}

/** GitLab's recovery codes: 16 hexadecimal characters each. */
function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => toHex(randomBytes(8)));
}

async function hashCodes(codes: string[]): Promise<string> {
  return JSON.stringify(await Promise.all(codes.map((c) => sha256Hex(c.toLowerCase()))));
}

/** Confirms enrolment; returns the recovery codes, which are never shown again. */
export async function enableTwoFactor(
  env: Bindings,
  user: UserRow,
  code: string,
  password: string,
  ip: string | null,
): Promise<string[]> {
  if (user.otpRequired) throw twoFactorError("already_enabled");
  if (!(await verifyReenteredPassword(env, password, user.passwordHash, ip))) throw twoFactorError("wrong_password");
  const secret = await secretOf(env, user).catch(() => null);
  if (!secret || !(await acceptTotp(env, user.id, secret, code))) throw twoFactorError("wrong_code");
  const codes = newRecoveryCodes();
  const db = getDb(env.DB);
  await enableOtp(db, user.id, await hashCodes(codes));
  await recordAudit(db, { action: "two_factor_enabled", authorId: user.id, entityType: "user", entityId: user.id, ip });
  // Token families keep a copy of the user (two_factor_enabled is part of it): drop it now.
  await userChanged(env, user.id);
  return codes;
}

export async function disableTwoFactor(env: Bindings, user: UserRow, password: string, ip: string | null): Promise<void> {
  if (!(await verifyReenteredPassword(env, password, user.passwordHash, ip))) throw twoFactorError("wrong_password");
  const db = getDb(env.DB);
  await disableOtp(db, user.id);
  await recordAudit(db, { action: "two_factor_disabled", authorId: user.id, entityType: "user", entityId: user.id, ip });
  await userChanged(env, user.id);
}

/** New recovery codes replace all old ones (GitLab: "Regenerate recovery codes"). */
export async function regenerateRecoveryCodes(env: Bindings, user: UserRow, password: string, ip: string | null): Promise<string[]> {
  if (!user.otpRequired) throw twoFactorError("not_enabled");
  if (!(await verifyReenteredPassword(env, password, user.passwordHash, ip))) throw twoFactorError("wrong_password");
  const codes = newRecoveryCodes();
  await setBackupCodeHashes(getDb(env.DB), user.id, await hashCodes(codes));
  return codes;
}

/**
 * Accepts a TOTP code at most once (RFC 6238 §5.2): the step is recorded with a conditional
 * upsert, so of two requests with the same code only one succeeds.
 */
async function acceptTotp(env: Bindings, userId: number, secret: string, code: string): Promise<boolean> {
  const step = await verifyTotp(secret, code);
  if (step === null) return false;
  return acceptOtpStep(getDb(env.DB), userId, step);
}

/** Spends a recovery code with compare-and-swap on the stored list, so each works once. */
async function consumeRecoveryCode(env: Bindings, user: UserRow, code: string): Promise<boolean> {
  const clean = code.trim().toLowerCase();
  if (!/^[0-9a-f]{16}$/.test(clean)) return false;
  const hash = await sha256Hex(clean);
  const db = getDb(env.DB);
  for (let attempt = 0; attempt < 3; attempt++) {
    const fresh = attempt === 0 ? user : await findUserById(db, user.id);
    if (!fresh) return false;
    const list: string[] = JSON.parse(fresh.otpBackupCodeHashes || "[]");
    if (!list.includes(hash)) return false;
    const rest = JSON.stringify(list.filter((h) => h !== hash));
    if (await swapBackupCodeHashes(db, user.id, fresh.otpBackupCodeHashes, rest)) return true;
  }
  return false;
}

/** The second step of sign-in: a TOTP code or a recovery code. Returns which one matched. */
export async function verifySecondFactor(
  env: Bindings,
  user: UserRow,
  code: string,
): Promise<"two_factor" | "recovery_code" | null> {
  if (!user.otpRequired) return null;
  const trimmed = code.replace(/\s/g, "");
  if (/^\d{6}$/.test(trimmed)) {
    const secret = await secretOf(env, user).catch(() => null);
    return secret && (await acceptTotp(env, user.id, secret, trimmed)) ? "two_factor" : null;
  }
  return (await consumeRecoveryCode(env, user, trimmed)) ? "recovery_code" : null;
}

export function remainingRecoveryCodes(user: UserRow): number {
  try {
    return (JSON.parse(user.otpBackupCodeHashes || "[]") as string[]).length;
  } catch {
    return 0;
  }
}
