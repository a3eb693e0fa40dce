import { recordAudit } from "../db/audit";
import type { Db } from "../db/client";
import { markFamilies } from "../db/oauth-grants";
import { OAuthError } from "./errors";

/**
 * A refused code exchange or refresh (the family's answer): invalid_client or invalid_grant. A
 * replay (code or superseded refresh token) has already revoked the family in its Durable Object;
 * D1 and the audit log follow.
 */
export async function refuseGrant(
  db: Db,
  result: { error: "invalid_grant" | "invalid_client" | "invalid_target"; reuse?: boolean },
  reuse: { action: "code_reuse" | "refresh_reuse"; fid: string; userId: number; applicationId: number | null; ip: string | null; now: number },
): Promise<never> {
  if (result.error === "invalid_client") throw new OAuthError("invalid_client");
  if (result.error === "invalid_target") throw new OAuthError("invalid_target", "The requested resource is not within the resource the grant was authorized for.");
  if (result.reuse) {
    await markFamilies(db, [reuse.fid], "revoked", reuse.now);
    await recordAudit(db, {
      action: reuse.action,
      authorId: reuse.userId,
      entityType: "oauth_token_family",
      entityId: reuse.fid,
      details: { application_id: reuse.applicationId, revoked: true },
      ip: reuse.ip,
    });
  }
  throw new OAuthError("invalid_grant");
}
