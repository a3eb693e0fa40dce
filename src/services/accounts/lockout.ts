import { accountStateError, type StateChange } from "./user-state";
import { recordAudit, type AuditActor } from "../../db/audit";
import { getDb } from "../../db/client";
import { clearLockoutOfUser, markLockedUntil } from "../../db/user-accounts";
import type { Bindings } from "../../env";
import { countGuardedFailure, liftGuard } from "./account-guard";
import { assertAllowed, checkAllowed, currentBans, hitFailure, resetThrottle, throttleKey } from "../../throttle";
import { countAddressFailure } from "../../credentials/failed-auth-throttle";

/**
 * The account lockout that cannot be used as a weapon (issue 8, item 2; docs/security.md).
 *
 * GitLab (Devise lockable) locks an account for everybody after 10 failures, so anyone could keep
 * its owner out. Here failures are counted per account *and client address*: 10 wrong passwords or
 * two-factor codes within an hour lock that address out of that account for 10 minutes, while the
 * owner signing in from anywhere else is unaffected. Every failure also counts towards the
 * per-address throttle ("failed_auth", src/credentials/failed-auth-throttle.ts) and the
 * account-wide bound (./account-guard.ts), which bounds guessing from many addresses.
 *
 * A locked attempt is answered exactly like a wrong password (same message, same status), so the
 * lockout does not reveal which usernames exist. The lock and the unlock are audited; the
 * individual failures beyond the limit are not (they never reach the password check).
 */

export interface AttemptSource {
  /** The client address (src/http/client-address.ts), or null when absent (docs/security.md, Throttle). */
  ip: string | null;
}

const lockKey = (userId: number) => String(userId);

/** Before any credential check: is this address banned (throttle), or locked out of this account? */
export async function assertAttemptAllowed(env: Bindings, source: AttemptSource): Promise<void> {
  await assertAllowed(env, "failed_auth", throttleKey(source.ip));
}

/** True when the address is locked out of the account (the caller answers as for a wrong password). */
export async function isLockedOut(env: Bindings, userId: number, source: AttemptSource): Promise<boolean> {
  const status = await checkAllowed(env, "account_lock", lockKey(userId), { subKey: throttleKey(source.ip) });
  return !status.allowed;
}

/**
 * A wrong password or two-factor code for a known account: counts towards the account's lock for
 * this address (auditing and recording the lock once, when it starts), the account-wide bound and
 * the address throttle. Returns `{ guarded: true }` when this failure spent the account-wide
 * budget (for a two-factor code the caller's pending sign-in has then ended).
 */
export async function recordFailedAttempt(env: Bindings, userId: number, source: AttemptSource, method: "password" | "two_factor"): Promise<{ guarded: boolean }> {
  const db = getDb(env.DB);
  const [lock, guarded] = await Promise.all([
    hitFailure(env, "account_lock", lockKey(userId), { subKey: throttleKey(source.ip) }),
    countGuardedFailure(env, userId, source.ip, method),
    recordAudit(db, { action: "failed_sign_in", entityType: "user", entityId: userId, details: { method }, ip: source.ip }),
  ]);
  if (lock.banStarted) {
    const until = Date.now() + lock.retryAfterSeconds * 1000;
    // users.locked_until shows administrators (API `locked`, admin page) that some address is
    // locked out; it does not refuse anybody by itself.
    await markLockedUntil(db, userId, until);
    await recordAudit(db, { action: "lockout", entityType: "user", entityId: userId, details: { until, address: throttleKey(source.ip), method }, ip: source.ip });
  }
  await countAddressFailure(env, source, method);
  return { guarded };
}

/** The addresses locked out of an account now, with when each lock ends (admin view). */
export async function accountLocks(env: Bindings, userId: number): Promise<{ address: string; until: number }[]> {
  return (await currentBans(env, "account_lock", lockKey(userId))).map((b) => ({ address: b.subKey, until: b.until }));
}

/**
 * An administrator's unlock (`POST /users/:id/unlock`, the admin page): lifts every address's
 * lock on the account and audits it. Shaped like the other moderation actions: `true`.
 */
export async function unlockAccount(env: Bindings, actor: AuditActor, userId: number): Promise<StateChange> {
  const db = getDb(env.DB);
  if (!(await clearLockoutOfUser(db, userId))) throw accountStateError("not_found", "User Not Found");
  const lifted = await resetThrottle(env, "account_lock", lockKey(userId));
  const guardsLifted = await liftGuard(env, userId);
  await recordAudit(db, { action: "account_unlocked", actor, entityType: "user", entityId: userId, details: { locks_lifted: lifted, guards_lifted: guardsLifted } });
  return true;
}
