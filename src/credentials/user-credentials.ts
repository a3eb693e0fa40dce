import type { Bindings } from "../env";
import { denyApprovedDeviceGrantsOfUser } from "../db/device-grants";

/**
 * Device codes the user approved that no client has redeemed yet are ended: the client's next poll
 * is access_denied (RFC 8628 §3.5), and the end is final, so an unblock or activation revives
 * nothing. (A pending code has no user until someone approves it.) What a change of the user row
 * does to the credentials that keep a copy of it: src/services/accounts/user-changed.ts.
 */
export async function endDeviceApprovalsOfUser(env: Bindings, userId: number): Promise<number> {
  return denyApprovedDeviceGrantsOfUser(env.DB, userId);
}
