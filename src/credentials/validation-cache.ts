import { getConfig } from "../config";
import { ExpiringMap } from "../domain/expiring-map";
import type { SinceVouched } from "../durable/token-family-state";
import type { Bindings } from "../env";

/**
 * The validation cache (DESIGN, "Validation cache (bounded staleness)"). An isolate remembers a
 * *positive* answer about a bearer token for at most L seconds (VALIDATION_CACHE_SECONDS), never
 * past the token's expiry, so a client's repeated requests skip the hop to the token's object.
 * Refusals are never remembered.
 *
 * The promise "after a change that takes access away answers, no request with the credential
 * succeeds anywhere" is kept by time, not by telling isolates: the credential's object knows when
 * it last vouched for the token (in memory; from its construction when it cannot know), every
 * change that takes access away returns how long ago that was, and the answering side waits out the
 * rest of L (`outlastValidationCache`). An entry is dated from before its validation was asked, so
 * it always expires no later than L after the object's last vouching, whatever the isolate's clock
 * says of the object's (both readings of an entry's life are on the isolate's own clock).
 */
/** A bound on memory: a busy isolate sees far fewer live tokens in L seconds than this. Times are
 * milliseconds since the epoch on this isolate's clock. */
const entries = new ExpiringMap<unknown>(4096);

/** Observable counts (tests and bench/profile assert hits skip the object). */
export const validationCacheStats = { hits: 0, misses: 0 };

/** L in milliseconds; 0 when the cache is off. */
export function validationCacheMs(env: Bindings): number {
  return getConfig(env).validationCacheSeconds * 1000;
}

/**
 * The remembered value for `key`, or null. `key` names the credential kind and the token; it lives
 * in this isolate's memory only (as the hash memo's keys do), never in storage or a log.
 */
export function recall<T>(env: Bindings, key: string, now: number): T | null {
  if (validationCacheMs(env) === 0) return null;
  const hit = entries.get(key, now) as T | null;
  if (hit !== null) {
    validationCacheStats.hits++;
    return hit;
  }
  validationCacheStats.misses++;
  return null;
}

/**
 * Remembers a positive validation asked at `askedAt` (taken before the call to the object), for L
 * from then and never past `expiresAt` (ms, null when the token does not expire).
 */
export function remember<T>(env: Bindings, key: string, value: T, askedAt: number, expiresAt: number | null): void {
  const bound = validationCacheMs(env);
  if (bound === 0) return;
  const until = Math.min(askedAt + bound, expiresAt ?? Infinity);
  if (until <= askedAt) return;
  entries.set(key, value, until);
}

/**
 * A value derived from a validated caller (userinfo's groups), remembered under the same bound: at
 * most L, never past `expiresAt`. Changes that take access away wait the bound out as above; other
 * changes (a new group membership) show within L.
 */
export async function rememberedFor<T>(env: Bindings, key: string, expiresAt: number | null, load: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const known = recall<T>(env, key, now);
  if (known !== null) return known;
  const value = await load();
  remember(env, key, value, now, expiresAt);
  return value;
}

export type { SinceVouched };

/**
 * Waits until no isolate can still remember a positive answer from any of these objects: the
 * remainder of L after the most recent vouching. Called by every change that takes access away
 * before it answers (revocation, PAT deletion, block, deactivation, password change). The wait
 * starts at the call, so a caller may start it as soon as the objects answered and await it after
 * its other writes.
 */
export async function outlastValidationCache(env: Bindings, since: readonly SinceVouched[]): Promise<void> {
  const bound = validationCacheMs(env);
  if (bound === 0) return;
  const known = since.filter((s): s is number => s !== null);
  if (known.length === 0) return;
  const wait = bound - Math.max(0, Math.min(...known));
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * Waits out a whole L from now: for answers remembered from storage that no object dates (an
 * authenticated OAuth client, src/oauth/request.ts), a change that takes them away has just been
 * written, and any isolate's entry was asked before it, so it expires within L.
 */
export function outlastValidationCacheFromNow(env: Bindings): Promise<void> {
  return outlastValidationCache(env, [0]);
}

/** For tests: forget everything this isolate remembers. */
export function forgetValidations(): void {
  entries.clear();
}
