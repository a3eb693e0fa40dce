import { recordAudit } from "../db/audit";
import { getDb } from "../db/client";
import type { Bindings } from "../env";
import { hitFailure, throttleKey, ThrottledError } from "../throttle";

/**
 * Counts one failed authentication from a client address in the "failed_auth" bucket
 * (docs/security.md, Throttle): a wrong password or two-factor code, a wrong client secret, a
 * failed Basic login at the front door. One count for every such endpoint, so an attacker cannot
 * multiply guesses by switching endpoints; beside it bearer-throttle.ts counts failed tokens.
 *
 * Audits the ban when this failure started it. The failure that starts the ban is answered as the
 * failure it is; a failure from an address already banned (one whose credentials are not checked
 * against the throttle first, or one that raced past the check) throws ThrottledError (429).
 */
export async function countAddressFailure(env: Bindings, source: { ip: string | null }, method: string): Promise<void> {
  const hit = await hitFailure(env, "failed_auth", throttleKey(source.ip));
  if (hit.banStarted) {
    await recordAudit(getDb(env.DB), {
      action: "throttled",
      entityType: "client_address",
      entityId: throttleKey(source.ip),
      details: { bucket: "failed_auth", method, ban_seconds: hit.retryAfterSeconds },
      ip: source.ip,
    });
  }
  if (!hit.allowed && !hit.banStarted) throw new ThrottledError(hit);
}
