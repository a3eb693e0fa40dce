import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { decideDeviceGrant, type DeviceGrantRow } from "../db/device-grants";
import type { Bindings } from "../env";

/**
 * A person's decision on a device authorization request (RFC 8628 §3.3, the /oauth/device page):
 * the pending grant is approved or denied at most once, and the decision is audited with it.
 */
export async function decideDeviceAuthorization(
  env: Bindings,
  actor: AuditActor,
  grant: DeviceGrantRow,
  decision: { approve: boolean; authTime: number; now: number },
): Promise<boolean> {
  const decided = await decideDeviceGrant(env.DB, grant.id, { approve: decision.approve, userId: actor.id, authTime: decision.authTime, now: decision.now });
  if (!decided) return false;
  await recordAudit(getDb(env.DB), {
    action: decision.approve ? "device_authorization_approved" : "device_authorization_denied",
    actor,
    entityType: "oauth_application",
    entityId: grant.application_id,
    details: { scopes: grant.scopes },
  });
  return true;
}
