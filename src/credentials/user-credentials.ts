import type { AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import type { Bindings } from "../env";
import { denyApprovedDeviceGrantsOfUser } from "../db/device-grants";
import { liveFamilies } from "../db/oauth-grants";
import { familyStub, revokeFamilies } from "./oauth-family";
import { dropUserFromPersonalAccessTokens } from "./personal-access-token";
import { deleteSessionsOfUser } from "./session";
import { outlastValidationCache, type SinceVouched } from "./validation-cache";

/**
 * What a change of the user (not of one token) does to every credential of that user at once.
 * Call these wherever a user row changes; the credentials keep a copy of the user so that a
 * request costs one storage hop (docs/oauth.md, One hop), and these calls are what keeps the copy
 * honest.
 */

/** Every credential that keeps a user snapshot drops it; answers when each last vouched for a token. */
async function dropUserSnapshots(env: Bindings, userId: number): Promise<SinceVouched[]> {
  const families = await liveFamilies(getDb(env.DB), { userId });
  const [pats, ...fams] = await Promise.all([dropUserFromPersonalAccessTokens(env, userId), ...families.map((f) => familyStub(env, f.id).dropUser())]);
  return [...pats, ...fams];
}

/**
 * The user row changed (unblock, activation, profile, two-factor): every credential that keeps a
 * user snapshot drops it, so the next request reads the new row. An isolate may still answer from
 * the old row for up to the validation cache's bound (DESIGN, Validation cache): nothing here takes
 * access away.
 */
export async function userChanged(env: Bindings, userId: number): Promise<void> {
  await dropUserSnapshots(env, userId);
}

/**
 * The user lost access (blocked, deactivated): the snapshots are dropped and this answers only once
 * no isolate can still remember a token of the user as valid (validation-cache.ts), so from then on
 * every request with any of the user's tokens reads the new state and is refused.
 */
export async function userLostAccess(env: Bindings, userId: number): Promise<void> {
  await outlastValidationCache(env, await dropUserSnapshots(env, userId));
}

/**
 * Device codes the user approved that no client has redeemed yet are ended: the client's next poll
 * is access_denied (RFC 8628 §3.5), and the end is final, so an unblock or activation revives
 * nothing. (A pending code has no user until someone approves it.)
 */
export async function endDeviceApprovalsOfUser(env: Bindings, userId: number): Promise<number> {
  return denyApprovedDeviceGrantsOfUser(env.DB, userId);
}

/**
 * The user must lose access now (block, deactivation, password change, "sign out everywhere"):
 * every OAuth grant is revoked, every approved device code ended, every session ended, and every
 * snapshot dropped, so a request with any credential of the user is refused from the moment this
 * returns (it waits out the validation cache's bound where a token was vouched for recently).
 */
export async function revokeAllCredentialsOfUser(
  env: Bindings,
  userId: number,
  actor: AuditActor | null,
  reason: string,
): Promise<{ families: number; sessions: number }> {
  const families = await liveFamilies(getDb(env.DB), { userId });
  const [revoked, sessions] = await Promise.all([
    revokeFamilies(env, families.map((f) => f.id), { actor, reason }),
    deleteSessionsOfUser(env, userId),
    endDeviceApprovalsOfUser(env, userId),
  ]);
  // Personal access tokens outlive a block (GitLab) but must be refused while it lasts.
  await userLostAccess(env, userId);
  return { families: revoked, sessions };
}
