import { checkAllowed, hitFailure, throttleKey, type ThrottlePolicy, type ThrottleStatus } from "../throttle";
import type { Bindings } from "../env";

/**
 * Attempt limits of the identity provider's open doors (docs/oidc.md, Throttling), on the shared
 * failure counter (src/throttle/): a key is checked before the attempt and counted after it, and
 * the count that reaches the limit bans the key for banSeconds.
 *  - device_code_entry: wrong or expired user codes typed on /oauth/device, per person and per
 *    client address (valid codes are not counted);
 *  - dynamic_registration: every registration at POST /oauth/register, per client address;
 *  - client_metadata_document: every fetch of a Client ID Metadata Document that has no stored
 *    application, per client address (src/oauth/client-metadata/resolve.ts). A first authorization
 *    fetches up to three times (the anonymous request, the one after sign-in, the approval), so
 *    thirty fetches an hour are what ten registrations an hour cost.
 */
export const POLICIES = {
  device_code_entry: { limit: 10, windowSeconds: 60, banSeconds: 60 },
  dynamic_registration: { limit: 10, windowSeconds: 3600, banSeconds: 3600 },
  client_metadata_document: { limit: 30, windowSeconds: 3600, banSeconds: 3600 },
} satisfies Record<string, ThrottlePolicy>;

export type AttemptBucket = keyof typeof POLICIES;

/** The keys of an attempt: the client address (src/http/client-address.ts; "unknown" without) and any others. */
export function attemptKeys(ip: string | null, ...others: string[]): string[] {
  return [`ip:${throttleKey(ip)}`, ...others];
}

/** The first refusal among the keys, or null when every key may go on. */
export async function attemptRefused(env: Bindings, bucket: AttemptBucket, keys: string[]): Promise<ThrottleStatus | null> {
  const statuses = await Promise.all(keys.map((k) => checkAllowed(env, bucket, k, { policy: POLICIES[bucket] })));
  return statuses.find((s) => !s.allowed) ?? null;
}

export async function countAttempt(env: Bindings, bucket: AttemptBucket, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => hitFailure(env, bucket, k, { policy: POLICIES[bucket] })));
}
