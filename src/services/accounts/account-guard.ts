import { getConfig } from "../../config";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import { deletePendingTwoFactorSessions, hasSignInAddress, rememberSignInAddressOf } from "../../db/user-accounts";
import type { Bindings } from "../../env";
import { checkAllowed, hitFailure, resetThrottle, throttleKey } from "../../throttle";

/**
 * The account-wide bound on guessing (docs/security.md, "Account-wide bound").
 *
 * The lockout (./lockout.ts) counts failures per account *and* address, so an attacker holding
 * many addresses (an IPv6 /48 is 65,536 /64s) multiplies its guesses by its addresses. This bound
 * counts every failed password and every failed second-factor code of one account, whatever the
 * address, in two budgets (a six-digit code needs a much smaller one than a password). When a
 * budget is spent within its window the account is *guarded* for ACCOUNT_GUARD_SECONDS: only
 * addresses the account has completed a sign-in from before ("known addresses") may still try
 * that kind of secret; any other address is answered as for a wrong password without the secret
 * being checked. So the attacker's guesses per hour are bounded by the budget, not by its
 * addresses, while the owner at their usual address signs in as always: spending the budget
 * locks nobody out of a known address, which is why it is not a lockout weapon.
 *
 * Spending the second-factor budget also ends every pending second-factor step of the account
 * (the password must be proved again) and is audited on the account, so its owner and the
 * administrators see that someone holds the password.
 *
 * Counting lives in the same FailureCounter Durable Object as the other throttles (strongly
 * consistent across isolates), one object per account with the sub-keys "password" and
 * "two_factor".
 */
export type GuardedSecret = "password" | "two_factor";

const BUCKET = "account_guard";

function policy(env: Bindings, kind: GuardedSecret) {
  const g = getConfig(env).accountGuard;
  return { limit: kind === "password" ? g.passwordFailures : g.twoFactorFailures, windowSeconds: g.windowSeconds, banSeconds: g.guardSeconds };
}

/** Has this account completed a sign-in from this address (by throttle key) before? */
export async function isKnownAddress(env: Bindings, userId: number, ip: string | null): Promise<boolean> {
  return hasSignInAddress(getDb(env.DB), userId, throttleKey(ip));
}

/** Remembers the address of a completed sign-in (called once both factors passed). */
export async function rememberSignInAddress(env: Bindings, userId: number, ip: string | null, now = Date.now()): Promise<void> {
  await rememberSignInAddressOf(getDb(env.DB), userId, throttleKey(ip), now);
}

/**
 * True when the account's budget for this kind of secret is spent and the address is not one the
 * account signed in from: the caller answers as for a wrong secret without checking it.
 */
export async function guardRefuses(env: Bindings, userId: number, ip: string | null, kind: GuardedSecret): Promise<boolean> {
  const status = await checkAllowed(env, BUCKET, String(userId), { subKey: kind, policy: policy(env, kind) });
  if (status.allowed) return false;
  return !(await isKnownAddress(env, userId, ip));
}

/**
 * Counts one failed secret towards the account's budget. Returns true when this failure spent the
 * budget (the guard starts now): audited once; for a second-factor code, every pending
 * second-factor step of the account ends.
 */
export async function countGuardedFailure(env: Bindings, userId: number, ip: string | null, kind: GuardedSecret): Promise<boolean> {
  const p = policy(env, kind);
  const hit = await hitFailure(env, BUCKET, String(userId), { subKey: kind, policy: p });
  if (!hit.banStarted) return false;
  const db = getDb(env.DB);
  let pendingEnded = 0;
  if (kind === "two_factor") pendingEnded = await deletePendingTwoFactorSessions(db, userId);
  await recordAudit(db, {
    action: "account_guarded",
    entityType: "user",
    entityId: userId,
    details: {
      method: kind,
      failures: p.limit,
      window_seconds: p.windowSeconds,
      until: Date.now() + hit.retryAfterSeconds * 1000,
      ...(kind === "two_factor" ? { pending_sign_ins_ended: pendingEnded } : {}),
    },
    ip,
  });
  return true;
}

/** An administrator's unlock also lifts the guard (src/services/accounts/lockout.ts unlockAccount). */
export async function liftGuard(env: Bindings, userId: number): Promise<number> {
  return resetThrottle(env, BUCKET, String(userId));
}
