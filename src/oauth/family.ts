import { recordAudit } from "../db/audit";
import type { Db } from "../db/client";
import { markFamilies } from "../db/oauth-grants";
import { outlastValidationCache, type SinceVouched } from "../credentials/validation-cache";
import type { Bindings } from "../env";
import { OAuthError } from "./errors";

/**
 * A refused code exchange or refresh (the family's answer): invalid_client or invalid_grant. A
 * replay (code or superseded refresh token) has already revoked the family in its Durable Object;
 * D1 and the audit log follow, and the 400 is answered only once no isolate can still remember the
 * family's access token (DESIGN, "Validation cache": a replay takes access away like /oauth/revoke).
 */
export async function refuseGrant(
  env: Bindings,
  db: Db,
  result: { error: "invalid_grant" | "invalid_client" | "invalid_target"; reuse?: boolean; sinceVouched?: SinceVouched },
  reuse: { action: "code_reuse" | "refresh_reuse"; fid: string; userId: number; applicationId: number | null; ip: string | null; now: number },
): Promise<never> {
  if (result.error === "invalid_client") throw new OAuthError("invalid_client");
  if (result.error === "invalid_target") throw new OAuthError("invalid_target", "The requested resource is not within the resource the grant was authorized for.");
  if (result.reuse) {
    // Started at once, awaited after the writes (as /oauth/revoke does).
    const settled = outlastValidationCache(env, [result.sinceVouched ?? null]);
    await markFamilies(db, [reuse.fid], "revoked", reuse.now);
    await recordAudit(db, {
      action: reuse.action,
      authorId: reuse.userId,
      entityType: "oauth_token_family",
      entityId: reuse.fid,
      details: { application_id: reuse.applicationId, revoked: true },
      ip: reuse.ip,
    });
    await settled;
  }
  throw new OAuthError("invalid_grant");
}
