import type { AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import type { Bindings } from "../env";
import { familyStub, liveFamilies, revokeFamilies } from "./oauth-family";
import { dropUserFromPersonalAccessTokens } from "./personal-access-token";
import { deleteSessionsOfUser } from "./session";

/**
 * What a change of the user (not of one token) does to every credential of that user at once.
 * Call these wherever a user row changes; the credentials keep a copy of the user so that a
 * request costs one storage hop (docs/oauth.md, One hop), and these calls are what keeps the copy
 * honest.
 */

/**
 * The user row changed (unblock, admin flag, profile, two-factor): every credential that keeps a
 * user snapshot drops it, so the next request reads the new row.
 */
export async function userChanged(env: Bindings, userId: number): Promise<void> {
  const families = await liveFamilies(getDb(env.DB), { userId });
  await Promise.all([...families.map((f) => familyStub(env, f.id).dropUser()), dropUserFromPersonalAccessTokens(env, userId)]);
}

/**
 * Device codes the user approved that no client has redeemed yet are ended: the client's next poll
 * is access_denied (RFC 8628 §3.5), and the end is final, so an unblock or activation revives
 * nothing. (A pending code has no user until someone approves it.)
 */
export async function endDeviceApprovalsOfUser(env: Bindings, userId: number): Promise<number> {
  const res = await env.DB.prepare("UPDATE oauth_device_grants SET status = 'denied' WHERE user_id = ? AND status = 'approved'").bind(userId).run();
  return res.meta.changes;
}

/**
 * The user must lose access now (block, deactivation, password change, "sign out everywhere"):
 * every OAuth grant is revoked, every approved device code ended, every session ended, and every
 * snapshot dropped, so a request with
 * any credential of the user is refused from the moment this returns.
 */
export async function revokeAllCredentialsOfUser(
  env: Bindings,
  userId: number,
  actor: AuditActor | null,
  reason: string,
): Promise<{ families: number; sessions: number }> {
  const families = await liveFamilies(getDb(env.DB), { userId });
  const [revoked, sessions] = await Promise.all([
    revokeFamilies(env, families, actor, reason),
    deleteSessionsOfUser(env, userId),
    endDeviceApprovalsOfUser(env, userId),
  ]);
  await userChanged(env, userId);
  return { families: revoked, sessions };
}
