import { getDb } from "../../db/client";
import { findUserById } from "../../db/users";
import { OAuthError } from "../errors";
import { admitDevicePoll, findDeviceGrantByDeviceCode, redeemDeviceGrant } from "../../db/device-grants";
import { issueAccessOnly, tokenResponse } from "../issue";
import { idTokenFor, withIdToken } from "../oidc/id-token";
import type { Grant } from "./types";
import { parseScopes } from "../../domain/scopes";

export { DEVICE_CODE_GRANT_TYPE } from "./client";

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). Order: client,
 * device code (unknown or another client's: invalid_grant), expiry (expired_token), poll rate
 * (slow_down), the person's decision (authorization_pending, access_denied), then the single
 * redemption, a conditional update of which exactly one concurrent poll wins.
 */
export const deviceCodeGrant: Grant = {
  required: ["device_code"],
  reads: ["client_id", "client_secret", "device_code", "resource"],
  async handle({ env, params, ip, issuer, resource, dpopJkt, client: clientOf }) {
    const db = getDb(env.DB);
    const client = await clientOf("authenticate");
    const grant = await findDeviceGrantByDeviceCode(env.DB, params.get("device_code")!);
    if (!grant || grant.application_id !== client.app.id) throw new OAuthError("invalid_grant");
    const now = Date.now();
    if (grant.status === "redeemed") throw new OAuthError("invalid_grant");
    if (grant.expires_at <= now) throw new OAuthError("expired_token");
    if (!(await admitDevicePoll(env.DB, grant, now))) throw new OAuthError("slow_down");
    if (grant.status === "pending") throw new OAuthError("authorization_pending");
    if (grant.status === "denied") throw new OAuthError("access_denied");
    if (!(await redeemDeviceGrant(env.DB, grant.id))) throw new OAuthError("invalid_grant");
    // issueAccessOnly refuses a user who is no longer active (approved, then blocked or deactivated).
    const user = await findUserById(db, grant.user_id!);
    if (!user) throw new OAuthError("invalid_grant");
    const { token, refresh, family } = await issueAccessOnly(env, {
      app: client.app,
      user,
      userId: user.id,
      scopes: parseScopes(grant.scopes),
      grantType: "device_code",
      ip,
      withRefresh: true,
      resource,
      dpopJkt,
      oidc: { nonce: null, authTime: grant.auth_time ?? now },
    });
    const idToken = await idTokenFor(env, issuer, family, { withNonce: false });
    return withIdToken(tokenResponse(family, { access: token, refresh }, now, { createdAt: true }), idToken);
  },
};
