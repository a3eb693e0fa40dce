import { DurableObject } from "cloudflare:workers";
import type { ThrottlePolicy } from "../config";
import type { Bindings } from "../env";

/**
 * One failure counter per throttle bucket and client address (or, for the account lockout, per
 * account), in its own Durable Object: counting is strongly consistent across isolates and
 * colos, where isolate memory would let an attacker spread guesses over isolates. Every method
 * body is synchronous (the SQLite-backed sync KV API), so each call is atomic without locks.
 *
 * An object may hold several sub-keys (the account lockout keeps one per client address, so one
 * call can unlock them all); plain per-address throttles use the sub-key "".
 *
 * Counting is Fail2Ban's, as GitLab's Rack::Attack does for failed authentication: failures are
 * counted in a fixed window; the failure that reaches the limit bans the sub-key for banSeconds.
 */

/** A bucket's policy is configuration (src/config.ts), read there from the THROTTLE_* variables. */
export type { ThrottlePolicy };

export interface ThrottleStatus {
  allowed: boolean;
  limit: number;
  /** Failures counted in the current window (RateLimit-Observed). */
  observed: number;
  remaining: number;
  /** Seconds until the window or the ban ends (RateLimit-Reset is now + this). */
  resetSeconds: number;
  /** Seconds a refused client should wait (Retry-After); 0 while allowed. */
  retryAfterSeconds: number;
}

export interface HitResult extends ThrottleStatus {
  /** True for the one failure that started a ban: the caller audits that, not every failure. */
  banStarted: boolean;
}

interface Counter {
  windowStart: number;
  failures: number;
  bannedUntil: number | null;
  /** When neither window nor ban is running any more: the alarm deletes the counter then. */
  expiresAt: number;
}

const PREFIX = "c:";

export class FailureCounter extends DurableObject<Bindings> {
  private read(subKey: string, now: number, policy: ThrottlePolicy): Counter {
    const c = this.ctx.storage.kv.get<Counter>(PREFIX + subKey);
    const fresh = { windowStart: now, failures: 0, bannedUntil: null, expiresAt: now + policy.windowSeconds * 1000 };
    if (!c) return fresh;
    if (c.bannedUntil !== null && c.bannedUntil > now) return c;
    // The window (and any ban) is over: a fresh count.
    if (c.bannedUntil !== null || c.windowStart + policy.windowSeconds * 1000 <= now) return fresh;
    return c;
  }

  private status(c: Counter, now: number, policy: ThrottlePolicy): ThrottleStatus {
    const banned = c.bannedUntil !== null && c.bannedUntil > now;
    const end = banned ? c.bannedUntil! : c.windowStart + policy.windowSeconds * 1000;
    const resetSeconds = Math.max(1, Math.ceil((end - now) / 1000));
    return {
      allowed: !banned,
      limit: policy.limit,
      observed: c.failures,
      remaining: banned ? 0 : Math.max(0, policy.limit - c.failures),
      resetSeconds,
      retryAfterSeconds: banned ? resetSeconds : 0,
    };
  }

  check(subKey: string, now: number, policy: ThrottlePolicy): ThrottleStatus {
    return this.status(this.read(subKey, now, policy), now, policy);
  }

  hit(subKey: string, now: number, policy: ThrottlePolicy): HitResult {
    const c = this.read(subKey, now, policy);
    // A failure that raced past the check while banned: the ban already stands, count nothing.
    if (c.bannedUntil !== null && c.bannedUntil > now) return { ...this.status(c, now, policy), banStarted: false };
    c.failures += 1;
    const banStarted = c.failures >= policy.limit;
    if (banStarted) c.bannedUntil = now + policy.banSeconds * 1000;
    c.expiresAt = Math.max(c.windowStart + policy.windowSeconds * 1000, c.bannedUntil ?? 0);
    this.ctx.storage.kv.put(PREFIX + subKey, c);
    // Nothing outlives its window or ban: the alarm removes expired counters (a later alarm
    // than needed only delays that cleanup).
    void this.ctx.storage.setAlarm(c.expiresAt + 1000);
    return { ...this.status(c, now, policy), banStarted };
  }

  /** Sub-keys banned now, with when each ban ends (the account lockout's admin view). */
  bans(now: number): { subKey: string; until: number }[] {
    const out: { subKey: string; until: number }[] = [];
    for (const [key, c] of this.ctx.storage.kv.list<Counter>({ prefix: PREFIX })) {
      if (c.bannedUntil !== null && c.bannedUntil > now) out.push({ subKey: key.slice(PREFIX.length), until: c.bannedUntil });
    }
    return out;
  }

  /** Clears every sub-key (an administrator's unlock); returns how many were banned. */
  reset(now: number): number {
    const banned = this.bans(now).length;
    for (const [key] of this.ctx.storage.kv.list({ prefix: PREFIX })) this.ctx.storage.kv.delete(key);
    return banned;
  }

  async alarm(): Promise<void> {
    const now = Date.now();
    let next = Infinity;
    for (const [key, c] of this.ctx.storage.kv.list<Counter>({ prefix: PREFIX })) {
      if (c.expiresAt <= now) this.ctx.storage.kv.delete(key);
      else next = Math.min(next, c.expiresAt);
    }
    if (next !== Infinity) await this.ctx.storage.setAlarm(next + 1000);
  }
}
