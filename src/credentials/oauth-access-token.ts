import { getConfig } from "../config";
import { getDb } from "../db/client";
import { findGrantHolder, grantEnded } from "../db/grant-holder";
import type { ValidateResult } from "../durable/token-family";
import type { Bindings } from "../env";
import { isRemoved } from "../versioning/gate";
import { AuthError } from "./errors";
import { familyStub } from "./oauth-family";
import { ACCESS_PREFIX, NO_USER_ID, parseAccessToken, type ParsedToken } from "./oauth-token-format";
import { bearerTokenHash } from "./token-hash";
import { recall, remember } from "./validation-cache";
import type { CredentialKind } from "./kind";
import type { ApplicationPrincipal, Principal } from "./principal";

/** From 15.0 every token expires, whatever the application says (spec, Versioning). */
export function expiryForced(env: Bindings): boolean {
  return isRemoved("oauth-tokens-without-expiry", getConfig(env).serviceVersion);
}

/**
 * Validates an OAuth access token against its family's state: one call to the family's Durable
 * Object, addressed by the id inside the token. From 15.0 a stored token without expiry gets one on
 * this read. (Requests on the API go through the validation cache first: resolveOAuthAccessToken.)
 */
export async function validateAccessToken(env: Bindings, token: string, parsed: ParsedToken, withUser = false): Promise<ValidateResult> {
  return familyStub(env, parsed.fid).validateAccess({
    accessHash: await bearerTokenHash(token),
    now: Date.now(),
    fillExpiry: expiryForced(env),
    withUser,
  });
}

/**
 * How long a user snapshot kept in the family may stand in for the D1 row. Changes made through
 * userChanged() take effect at once; this bounds any change that forgets to call it.
 */
export const USER_SNAPSHOT_TTL_MS = 10_000;

/**
 * One call to the family answers both "is this token valid" and, from its user snapshot, "who is
 * the user": one storage hop. When the snapshot is missing or older than USER_SNAPSHOT_TTL_MS the
 * row is read from D1 (a second hop, at most once per TTL per family) and handed back to the family.
 */
async function resolveOAuthAccessToken(env: Bindings, token: string): Promise<Principal | ApplicationPrincipal> {
  const parsed = parseAccessToken(token);
  if (!parsed) throw new AuthError("invalid");
  // Taken before the object is asked, so a remembered answer ends no later than L after it vouched.
  const askedAt = Date.now();
  const known = recall<Principal | ApplicationPrincipal>(env, token, askedAt);
  if (known) return { ...known };
  const check = await validateAccessToken(env, token, parsed, true);
  if (!check.ok) throw new AuthError(check.reason);
  const family = check.family;
  if (family.userId === NO_USER_ID) {
    // client_credentials: the token acts for its application alone (the token names user 0 too).
    if (parsed.userId !== NO_USER_ID || family.applicationId === null || family.applicationUid === null) throw new AuthError("invalid");
    const application: ApplicationPrincipal = {
      kind: "application",
      applicationId: family.applicationId,
      applicationUid: family.applicationUid,
      scopes: family.scopes,
      tokenId: family.id,
      expiresAt: family.accessExpiresAt,
      issuedAt: family.accessCreatedAt,
      resource: family.resource,
      dpopJkt: family.jkt ?? null,
    };
    remember(env, token, application, askedAt, family.accessExpiresAt);
    return { ...application };
  }
  const now = Date.now();
  let snapshot = family.user && now - family.user.at < USER_SNAPSHOT_TTL_MS ? family.user : null;
  if (!snapshot) {
    // The user and the cutoff of a pending change that ends this grant, in one query (src/db/grant-holder.ts).
    const holder = await findGrantHolder(getDb(env.DB), family.userId, family.applicationId);
    if (holder) {
      snapshot = { row: holder.user, at: now, grantsEndedBefore: holder.grantsEndedBefore };
      await familyStub(env, family.id).putUser(holder.user, now, holder.grantsEndedBefore);
    }
  }
  const user = snapshot?.row;
  if (!user || user.id !== parsed.userId) throw new AuthError("invalid");
  if (grantEnded(family.createdAt, snapshot?.grantsEndedBefore)) throw new AuthError("revoked");
  if (user.state !== "active") throw new AuthError("blocked");
  const principal: Principal = {
    kind: "oauth",
    user,
    scopes: family.scopes,
    tokenId: family.id,
    applicationId: family.applicationId,
    applicationUid: family.applicationUid,
    expiresAt: family.accessExpiresAt,
    issuedAt: family.accessCreatedAt,
    resource: family.resource,
    dpopJkt: family.jkt ?? null,
    ...(family.act ? { act: family.act } : {}),
  };
  remember(env, token, principal, askedAt, family.accessExpiresAt);
  return { ...principal };
}

/** OAuth access tokens (`gloat-`): the bearer credential of every API family. */
export const oauthAccessToken: CredentialKind = {
  name: "oauth",
  prefix: ACCESS_PREFIX,
  resolve: (env, token) => resolveOAuthAccessToken(env, token),
};
