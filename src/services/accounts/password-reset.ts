import { hashPassword } from "../../crypto/password";
import { findUserByEmail, findUserByResetPasswordToken, spendResetPasswordToken, storeResetPasswordToken } from "../../db/account-tokens";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import type { UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { sendMail } from "../../mail/mail";
import { checkAllowed, hitFailure, throttleKey, type ThrottlePolicy } from "../../throttle";
import { AppError } from "../../domain/errors";
import { assertStrongPassword, replacePassword } from "./password-change";
import { newMailedToken, RESET_PASSWORD_WITHIN_MS, stillValid, tokenHash } from "./mailed-tokens";

/**
 * A forgotten password, reset by a mailed link (GitLab's "Forgot your password?", Devise's
 * Recoverable): /users/password/new asks for the address, the link opens /users/password/edit.
 *
 * - The answer is the same whether or not the address belongs to anyone (no enumeration), and
 *   takes the same time: the work that depends on the address runs after the answer.
 * - Requests are throttled per client address (every request counts) and per account (every
 *   mail sent counts); a refused request answers the same, and sends nothing.
 * - The link holds a random token of which only the SHA-256 is stored; it works for two hours and
 *   once, and a newer request replaces it.
 * - Setting the new password ends every session, OAuth grant and approved device code of the user
 *   (replacePassword: a change that finishes, src/services/accounts/password-change.ts).
 */
export const RESET_THROTTLE = {
  /** Requests per client address. */
  address: { limit: 10, windowSeconds: 3600, banSeconds: 3600 },
  /** Mails per account. */
  account: { limit: 3, windowSeconds: 3600, banSeconds: 3600 },
} satisfies Record<string, ThrottlePolicy>;
const BUCKET = "password_reset";

/** Why a new password was refused: "weak" carries GitLab's sentence as the message. */
export const RESET_FAILURES = ["invalid_token", "mismatch", "weak"] as const;
const resetError = (reason: "invalid_token" | "mismatch") => new AppError("invalid", `password reset ${reason}`, { reason });

/**
 * The request for a link, in two parts so that its answer cannot tell whether the address exists
 * (by content or by time): the per-address throttle is checked and counted before the answer,
 * and everything that depends on the address (the lookup, the account's throttle, the token, the
 * mail and the audit row) is `afterwards`, which the caller hands to waitUntil whatever the
 * address. `afterwards` may reject; the caller logs it (the answer has gone by then).
 * Whether a mail went out is only in the audit log.
 */
export async function requestPasswordReset(env: Bindings, origin: string, email: string, ip: string | null): Promise<{ afterwards: Promise<void> }> {
  const addressKey = `ip:${throttleKey(ip)}`;
  const address = await checkAllowed(env, BUCKET, addressKey, { policy: RESET_THROTTLE.address });
  if (!address.allowed) return { afterwards: Promise.resolve() };
  await hitFailure(env, BUCKET, addressKey, { policy: RESET_THROTTLE.address });
  return { afterwards: mailResetLink(env, origin, email, ip) };
}

/** The per-account part of a request: a link to an active account's address, within its throttle. */
async function mailResetLink(env: Bindings, origin: string, email: string, ip: string | null): Promise<void> {
  const db = getDb(env.DB);
  const user = email.includes("@") ? await findUserByEmail(db, email.trim()) : null;
  // Blocked and deactivated accounts get no link: they could not sign in with the new password.
  if (!user || user.state !== "active") return;
  const accountKey = `user:${user.id}`;
  if (!(await checkAllowed(env, BUCKET, accountKey, { policy: RESET_THROTTLE.account })).allowed) return;
  await hitFailure(env, BUCKET, accountKey, { policy: RESET_THROTTLE.account });
  const { token, hash } = await newMailedToken();
  await storeResetPasswordToken(db, user.id, hash, Date.now());
  const link = `${origin}/users/password/edit?reset_password_token=${token}`;
  const sent = await sendMail(env, origin, {
    to: user.email,
    subject: "Reset password instructions",
    text: [
      `Hello, ${user.name}!`,
      "",
      "Someone, hopefully you, has requested to reset the password for your account.",
      "",
      `Change your password by opening this link within two hours: ${link}`,
      "",
      "If you did not perform this request, you can safely ignore this email.",
      "Your password will not change until you open the link above and create a new one.",
    ].join("\n"),
  });
  await recordAudit(db, { action: "password_reset_requested", authorId: user.id, entityType: "user", entityId: user.id, ip, details: { mail_sent: sent } });
}

/** The user a reset link is for while it is still good; null when unknown, spent or expired. */
export async function userOfResetToken(env: Bindings, token: unknown, now = Date.now()): Promise<UserRow | null> {
  const hash = await tokenHash(token);
  if (!hash) return null;
  const user = await findUserByResetPasswordToken(getDb(env.DB), hash);
  if (!user || user.state !== "active" || !stillValid(user.resetPasswordSentAt, RESET_PASSWORD_WITHIN_MS, now)) return null;
  return user;
}

/** Sets the new password through a reset link: once, within its lifetime; then ends every credential. */
export async function resetPassword(env: Bindings, input: { token: unknown; password: string; confirmation: string }, ip: string | null): Promise<UserRow> {
  const user = await userOfResetToken(env, input.token);
  if (!user) throw resetError("invalid_token");
  if (input.password !== input.confirmation) throw resetError("mismatch");
  assertStrongPassword(input.password);
  const db = getDb(env.DB);
  const hash = (await tokenHash(input.token))!;
  // The link spent with the new hash (the guard: once), the intent to end every credential and the
  // audit row in one batch (DESIGN, "Changes that finish").
  const spent = await replacePassword(env, {
    userId: user.id,
    actor: { id: user.id, ip },
    reason: "password_reset",
    guard: spendResetPasswordToken(db, user.id, hash, await hashPassword(input.password)),
    audit: { action: "password_reset", actor: { id: user.id, ip }, entityType: "user", entityId: user.id },
  });
  if (!spent) throw resetError("invalid_token");
  return user;
}
