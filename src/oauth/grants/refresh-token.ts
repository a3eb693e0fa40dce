import { outlastValidationCache } from "../../credentials/validation-cache";
import { getConfig } from "../../config";
import { getDb } from "../../db/client";
import { isValidVerifier, s256 } from "../../domain/pkce";
import { OAuthError } from "../errors";
import { USER_SNAPSHOT_TTL_MS, expiryForced } from "../../credentials/oauth-access-token";
import { findGrantHolder } from "../../db/grant-holder";
import { familyStub } from "../../credentials/oauth-family";
import { refuseGrant } from "../family";
import { tokenResponse } from "../issue";
import { hashToken, mintAccessToken, mintRefreshToken, openPair, parseRefreshToken, sealPair } from "../../credentials/oauth-token-format";
import { idTokenFor, withIdToken } from "../oidc/id-token";
import type { Grant } from "./types";

interface SealedTokens {
  access: string;
  refresh: string;
}

/**
 * grant_type=refresh_token (spec parameter sets: client_id, refresh_token, redirect_uri,
 * code_verifier with PKCE; client_id, client_secret, refresh_token, redirect_uri without). The
 * policy is DESIGN's, Refresh tokens 2-4, applied atomically in the family's Durable Object.
 *
 * A client that sends no secret is checked by the family itself (client_id and a PKCE grant), so
 * a PKCE rotation costs one storage hop; a secret is verified against D1 first, with the client's
 * grant types, and then remembered for at most L (the validation cache, keyed by the secret's
 * hash), so a confidential client's rotations cost one storage hop too (bench/RESULTS.md). Every client holds refresh_token with each grant that issues refresh tokens
 * (grants/client.ts), so the family's client check is the grant-type check without a secret.
 */
export const refreshTokenGrant: Grant = {
  required: ["refresh_token"],
  reads: ["client_id", "client_secret", "refresh_token", "redirect_uri", "code_verifier", "resource"],
  async handle({ env, params, creds, ip, issuer, resource, dpopJkt, client: clientOf }) {
    if (!creds.clientId) throw new OAuthError("invalid_client");
    const refreshToken = params.get("refresh_token")!;
    const verifier = params.get("code_verifier") || null;
    const parsed = parseRefreshToken(refreshToken);
    if (!parsed) throw new OAuthError("invalid_grant");
    if (verifier !== null && !isValidVerifier(verifier)) throw new OAuthError("invalid_grant");
    const db = getDb(env.DB);
    let clientAuthenticated = false;
    if (creds.clientSecret || creds.assertion) {
      const client = await clientOf("remembered");
      clientAuthenticated = client.authenticated;
    }
    const { fid, userId } = parsed;
    const now = Date.now();
    const access = mintAccessToken(userId, fid);
    const refresh = mintRefreshToken(userId, fid);
    const [refreshHash, accessHash, newRefreshHash, verifierChallenge, sealed] = await Promise.all([
      hashToken(refreshToken),
      hashToken(access),
      hashToken(refresh),
      verifier ? s256(verifier) : null,
      sealPair(refreshToken, fid, { access, refresh } satisfies SealedTokens),
    ]);
    const rotation = {
      refreshHash,
      clientId: creds.clientId,
      clientAuthenticated,
      redirectUri: params.get("redirect_uri") || null,
      verifierChallenge,
      pair: { accessHash, refreshHash: newRefreshHash, createdAt: now },
      forceExpiry: expiryForced(env),
      sealed,
      now,
      graceMs: getConfig(env).refreshGraceSeconds * 1000,
      ip,
      userMaxAgeMs: USER_SNAPSHOT_TTL_MS,
      resource,
      dpopJkt,
    };
    const family = familyStub(env, fid);
    let result = await family.rotate({ ...rotation, user: null });
    if (!result.ok && result.error === "user_needed") {
      // No young user snapshot in the family: the user's state comes from D1 (DESIGN, Blocked users).
      // With the cutoff of a pending change that ends this grant (src/db/grant-holder.ts), in the same query.
      const holder = await findGrantHolder(db, userId, result.applicationId);
      if (!holder) throw new OAuthError("invalid_grant");
      result = await family.rotate({ ...rotation, user: holder.user, grantsEndedBefore: holder.grantsEndedBefore });
    }
    if (!result.ok) {
      if (result.error === "user_needed") throw new OAuthError("invalid_grant");
      return refuseGrant(env, result, { action: "refresh_reuse", fid, userId, ip });
    }
    if (result.kind === "grace") {
      // The same pair again, opened with the presented token: only its holder can read it.
      const [same, idToken] = await Promise.all([openPair<SealedTokens>(refreshToken, fid, result.sealed), idTokenFor(env, issuer, result.family, { withNonce: false })]);
      return withIdToken(tokenResponse(result.family, same, now, { createdAt: true }), idToken);
    }
    // The spec's refresh row: both old tokens are invalidated. An isolate may still remember the
    // replaced access token for up to L (DESIGN, "Validation cache"), so the new pair is answered
    // only once L has passed since the family last vouched for it; after that it fails everywhere.
    await outlastValidationCache(env, [result.sinceVouched]);
    // token_refreshed is queued by the family with the rotation and flushed to D1 in batches.
    const idToken = await idTokenFor(env, issuer, result.family, { withNonce: false });
    return withIdToken(tokenResponse(result.family, { access, refresh }, now, { createdAt: true }), idToken);
  },
};
