import { getConfig } from "../config";
import { AppError } from "../domain/errors";
import type { Bindings } from "../env";
import type { FailureCounter, HitResult, ThrottlePolicy, ThrottleStatus } from "./failure-counter";

export type { HitResult, ThrottlePolicy, ThrottleStatus } from "./failure-counter";
export { throttleKey } from "./address";

/**
 * Throttling of failed authentication (docs/security.md, Throttle). Buckets:
 *  - "failed_auth": failed credentials of any kind from one client address (password grant,
 *    sign-in, two-factor codes, client secrets, Basic credentials on git), one shared count so
 *    an attacker cannot multiply guesses by switching endpoints;
 *  - "account_lock": failed passwords and two-factor codes for one account, counted per client
 *    address (the lockout that cannot be turned against the account's owner);
 *  - "failed_bearer": failed bearer tokens from one client address (src/credentials/bearer-throttle.ts),
 *    apart from failed_auth so a client retrying with an expired token cannot ban sign-in.
 * Other callers may pass their own bucket name and policy.
 *
 * Usage: `checkAllowed` before verifying a low-entropy secret (a password, a six-digit code), so
 * a banned address learns nothing; `hitFailure` after a failure. High-entropy tokens need no
 * check first (guessing one is hopeless): count their failures only, so valid tokens never pay.
 */
export type ThrottleBucket = "failed_auth" | "account_lock" | "failed_bearer";

export function throttlePolicy(env: Bindings, bucket: ThrottleBucket): ThrottlePolicy {
  const t = getConfig(env).throttle;
  if (bucket === "failed_bearer") return t.failedBearer;
  return bucket === "account_lock" ? t.accountLock : t.failedAuth;
}

function counter(env: Bindings, bucket: string, key: string): DurableObjectStub<FailureCounter> {
  const ns = env.FAILURE_COUNTER as unknown as DurableObjectNamespace<FailureCounter>;
  return ns.get(ns.idFromName(`${bucket}:${key}`));
}

export async function checkAllowed(env: Bindings, bucket: ThrottleBucket | string, key: string, opts: { subKey?: string; policy?: ThrottlePolicy } = {}): Promise<ThrottleStatus> {
  const policy = opts.policy ?? throttlePolicy(env, bucket as ThrottleBucket);
  return counter(env, bucket, key).check(opts.subKey ?? "", Date.now(), policy);
}

export async function hitFailure(env: Bindings, bucket: ThrottleBucket | string, key: string, opts: { subKey?: string; policy?: ThrottlePolicy } = {}): Promise<HitResult> {
  const policy = opts.policy ?? throttlePolicy(env, bucket as ThrottleBucket);
  return counter(env, bucket, key).hit(opts.subKey ?? "", Date.now(), policy);
}

/** Sub-keys of one key that are banned now (for the account lockout: the locked-out addresses). */
export async function currentBans(env: Bindings, bucket: ThrottleBucket | string, key: string): Promise<{ subKey: string; until: number }[]> {
  return counter(env, bucket, key).bans(Date.now());
}

/** Clears a key's counters and bans; returns how many bans it lifted. */
export async function resetThrottle(env: Bindings, bucket: ThrottleBucket | string, key: string): Promise<number> {
  return counter(env, bucket, key).reset(Date.now());
}

/** A request refused by the throttle; each API family renders it in its own error shape. */
export class ThrottledError extends AppError {
  constructor(readonly status: ThrottleStatus) {
    super("rate_limited", "Too many failed authentication attempts from this address. Retry later.", { retryAfterSeconds: status.retryAfterSeconds });
    this.name = "ThrottledError";
  }
}

/** Throws ThrottledError when the key is banned. */
export async function assertAllowed(env: Bindings, bucket: ThrottleBucket | string, key: string, opts: { subKey?: string; policy?: ThrottlePolicy } = {}): Promise<void> {
  const status = await checkAllowed(env, bucket, key, opts);
  if (!status.allowed) throw new ThrottledError(status);
}

/**
 * GitLab's rate-limit headers (Rack::Attack): RateLimit-Limit, -Observed, -Remaining, -Reset (Unix
 * time), -ResetTime (HTTP date), and Retry-After on a refusal (RFC 9110 §10.2.3).
 */
export function rateLimitHeaders(s: ThrottleStatus, now = Date.now()): Record<string, string> {
  const resetAt = Math.floor(now / 1000) + s.resetSeconds;
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(s.limit),
    "RateLimit-Observed": String(s.observed),
    "RateLimit-Remaining": String(s.remaining),
    "RateLimit-Reset": String(resetAt),
    "RateLimit-ResetTime": new Date(resetAt * 1000).toUTCString(),
  };
  if (!s.allowed) headers["Retry-After"] = String(s.retryAfterSeconds);
  return headers;
}
