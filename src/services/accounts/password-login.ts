import { DUMMY_PASSWORD_HASH, verifyPassword } from "../../crypto/password";
import { recordAudit } from "../../db/audit";
import { activateUser } from "./user-state";
import { getDb } from "../../db/client";
import { recordSignInOfUser } from "../../db/user-accounts";
import { findUserByLogin, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { guardRefuses, rememberSignInAddress } from "./account-guard";
import { countAddressFailure } from "../../credentials/failed-auth-throttle";
import { assertAttemptAllowed, isLockedOut, recordFailedAttempt } from "./lockout";
import { AppError } from "../../domain/errors";

/**
 * "invalid" covers unknown users, wrong passwords and addresses locked out of the account alike:
 * one answer, so that sign-in and the password grant do not reveal which usernames exist.
 */
export const LOGIN_FAILURES = ["invalid", "blocked"] as const;
export type LoginFailure = (typeof LOGIN_FAILURES)[number];
const loginError = (reason: LoginFailure) => new AppError(reason === "blocked" ? "forbidden" : "unauthenticated", `login ${reason}`, { reason });

/**
 * Checks a username-or-email and password. Used by the sign-in page and the password grant; it
 * does not look at two-factor authentication (each caller decides that).
 *
 * Order (docs/security.md): the address throttle first (a banned address gets ThrottledError, 429,
 * before any password is checked), then the account-wide bound (an address the account never
 * signed in from is refused while it holds), then the account's lock for this address, then the
 * password.
 * Unknown users and locked attempts spend the same PBKDF2 time as a real check.
 *
 * On success of a user without two-factor, `sign_in` is audited; a two-factor user has signed in
 * only once the second step passes (recordSuccessfulSignIn).
 */
export async function verifyPasswordLogin(
  env: Bindings,
  login: string,
  password: string,
  ip: string | null,
  /** The sign-in page reactivates a deactivated account (GitLab); the password grant does not. */
  opts: { reactivate?: boolean } = {},
): Promise<UserRow> {
  const source = { ip };
  await assertAttemptAllowed(env, source);
  const db = getDb(env.DB);
  let user = login.length <= 255 ? await findUserByLogin(db, login.trim()) : null;
  if (!user) {
    await verifyPassword(password, DUMMY_PASSWORD_HASH);
    await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: "unknown", details: { reason: "unknown_user" }, ip });
    await countAddressFailure(env, source, "password");
    throw loginError("invalid");
  }
  // The account-wide bound (./account-guard.ts), then the lock of this address: either refuses
  // without checking the password, answered as a wrong one.
  if ((await guardRefuses(env, user.id, ip, "password")) || (await isLockedOut(env, user.id, source))) {
    // Not audited one by one (the lock was); counted towards the address throttle.
    await verifyPassword(password, DUMMY_PASSWORD_HASH);
    await countAddressFailure(env, source, "password");
    throw loginError("invalid");
  }
  if (!(await verifyPassword(password, user.passwordHash))) {
    await recordFailedAttempt(env, user.id, source, "password");
    throw loginError("invalid");
  }
  if (user.state === "deactivated" && opts.reactivate) {
    await activateUser(env, null, user.id);
    user = { ...user, state: "active" };
  }
  // Only someone who knows the password learns that the account is blocked.
  if (user.state !== "active") {
    await recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: user.id, details: { reason: "blocked" }, ip });
    throw loginError("blocked");
  }
  if (user.otpRequired) return user;
  return recordSuccessfulSignIn(env, user, ip, "password");
}

/** A complete sign-in: records the time and the address (a known address from now on), and audits it. */
export async function recordSuccessfulSignIn(
  env: Bindings,
  user: UserRow,
  ip: string | null,
  method: "password" | "two_factor" | "recovery_code",
): Promise<UserRow> {
  const db = getDb(env.DB);
  const [row] = await Promise.all([
    recordSignInOfUser(db, user.id),
    rememberSignInAddress(env, user.id, ip),
  ]);
  await recordAudit(db, { action: "sign_in", authorId: user.id, entityType: "user", entityId: user.id, details: { method }, ip });
  return row ?? user;
}
