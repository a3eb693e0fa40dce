import type { Bindings } from "../env";
import { revokeFamilies } from "../credentials/oauth-family";
import { OAuthError } from "./errors";

/**
 * A refused code exchange or refresh (the family's answer): invalid_client or invalid_grant. A
 * replay (code or superseded refresh token) has already revoked the family in its Durable Object;
 * the one revocation (src/credentials/oauth-family.ts) brings D1 and the audit log along, and the
 * refusal waits, as every revocation does, until no isolate still remembers a token of the family.
 */
export async function refuseGrant(
  env: Bindings,
  result: { error: "invalid_grant" | "invalid_client" | "invalid_target"; reuse?: boolean },
  reuse: { action: "code_reuse" | "refresh_reuse"; fid: string; userId: number; ip: string | null },
): Promise<never> {
  if (result.error === "invalid_client") throw new OAuthError("invalid_client");
  if (result.error === "invalid_target") throw new OAuthError("invalid_target", "The requested resource is not within the resource the grant was authorized for.");
  if (result.reuse) {
    await revokeFamilies(env, [reuse.fid], { action: reuse.action, reason: reuse.action, actor: { id: reuse.userId, ip: reuse.ip } });
  }
  throw new OAuthError("invalid_grant");
}
