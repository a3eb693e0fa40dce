import { getConfig } from "../../config";
import { getDb } from "../../db/client";
import { findUserById } from "../../db/users";
import { OAuthError } from "../errors";
import { admitDevicePoll, findDeviceGrantByDeviceCode, redeemDeviceGrant, type DeviceGrantRow } from "../../db/device-grants";
import { issueAccessOnly, mintAccessIssue, tokenResponse, type MintedIssue } from "../issue";
import { idTokenFor, withIdToken } from "../oidc/id-token";
import type { Grant, GrantContext } from "./types";
import { parseScopes } from "../../domain/scopes";
import { hashToken, openPair, sealPair } from "../../credentials/oauth-token-format";
import { familyStub } from "../../credentials/oauth-family";

export { DEVICE_CODE_GRANT_TYPE } from "./client";

/** The sealed answer's context: a device grant, not a token family (the key derivation's second input). */
const sealContext = (g: DeviceGrantRow) => `device-grant:${g.id}`;

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5). Order: client,
 * device code (unknown or another client's: invalid_grant), a retry of the redeeming poll, expiry
 * (expired_token), poll rate (slow_down), the person's decision (authorization_pending,
 * access_denied), then the single redemption.
 *
 * Redemption and issuance are one step (DESIGN, "Changes that finish"): the family id and tokens
 * are minted first and sealed under a key derived from the device code (the mechanism of a refresh
 * token's grace record, src/credentials/oauth-token-format.ts); the conditional update that redeems
 * the code stores that sealed answer, so exactly one concurrent poll wins and the approval is never
 * spent without its answer. The issue that follows is idempotent. A poll retried within
 * REFRESH_GRACE_SECONDS (its answer lost to a crash or the network) opens the same answer, finishes
 * the issue if it had not, and gets the same tokens, as long as they were not used (as a refresh
 * token's grace); after that the code is spent (invalid_grant).
 */
export const deviceCodeGrant: Grant = {
  required: ["device_code"],
  reads: ["client_id", "client_secret", "device_code", "resource"],
  async handle(ctx) {
    const { env, params } = ctx;
    const client = await ctx.client("authenticate");
    const deviceCode = params.get("device_code")!;
    const grant = await findDeviceGrantByDeviceCode(env.DB, deviceCode);
    if (!grant || grant.application_id !== client.app.id) throw new OAuthError("invalid_grant");
    const now = Date.now();
    if (grant.status === "redeemed") return answerAgain(ctx, client.app, grant, deviceCode, now);
    if (grant.expires_at <= now) throw new OAuthError("expired_token");
    if (!(await admitDevicePoll(env.DB, grant, now))) throw new OAuthError("slow_down");
    if (grant.status === "pending") throw new OAuthError("authorization_pending");
    if (grant.status === "denied") throw new OAuthError("access_denied");
    const minted = await redeemWithAnswer(env, grant, deviceCode, now);
    if (!minted) throw new OAuthError("invalid_grant");
    return issue(ctx, client.app, grant, minted);
  },
};

/** The redemption: the tokens minted and sealed, then stored with the redeemed state in one statement; null when another poll redeemed first. */
export async function redeemWithAnswer(env: GrantContext["env"], grant: DeviceGrantRow, deviceCode: string, now: number): Promise<MintedIssue | null> {
  const minted = mintAccessIssue(grant.user_id!, true, now);
  const sealed = await sealPair(deviceCode, sealContext(grant), minted);
  return (await redeemDeviceGrant(env.DB, grant.id, sealed, now)) ? minted : null;
}

type App = Awaited<ReturnType<GrantContext["client"]>>["app"];

async function answerAgain(ctx: GrantContext, app: App, grant: DeviceGrantRow, deviceCode: string, now: number) {
  const graceMs = getConfig(ctx.env).refreshGraceSeconds * 1000;
  if (!grant.sealed_response || grant.redeemed_at === null || now - grant.redeemed_at > graceMs) throw new OAuthError("invalid_grant");
  const minted = await openPair<MintedIssue>(deviceCode, sealContext(grant), grant.sealed_response).catch(() => null);
  if (!minted) throw new OAuthError("invalid_grant");
  // As a refresh token's grace: once the tokens were used (or rotated, or revoked) the client has them; no second copy.
  if ((await familyStub(ctx.env, minted.fid).issueState(await hashToken(minted.token))) === "spent") throw new OAuthError("invalid_grant");
  return issue(ctx, app, grant, minted);
}

/** The family of the minted tokens (created once, whoever gets here first) and the token response. */
async function issue(ctx: GrantContext, app: App, grant: DeviceGrantRow, minted: MintedIssue) {
  // issueAccessOnly refuses a user who is no longer active (approved, then blocked or deactivated).
  const user = await findUserById(getDb(ctx.env.DB), grant.user_id!);
  if (!user) throw new OAuthError("invalid_grant");
  const { token, refresh, family } = await issueAccessOnly(ctx.env, {
    app,
    user,
    userId: user.id,
    scopes: parseScopes(grant.scopes),
    grantType: "device_code",
    ip: ctx.ip,
    withRefresh: true,
    resource: ctx.resource,
    dpopJkt: ctx.dpopJkt,
    oidc: { nonce: null, authTime: grant.auth_time ?? minted.now },
    minted,
  });
  const idToken = await idTokenFor(ctx.env, ctx.issuer, family, { withNonce: false });
  return withIdToken(tokenResponse(family, { access: token, refresh }, Date.now(), { createdAt: true }), idToken);
}
