import { recordCodeExchanged } from "../../services/token-families";
import { getDb } from "../../db/client";
import { findGrantHolder } from "../../db/grant-holder";
import { isValidVerifier, s256 } from "../../domain/pkce";
import { OAuthError } from "../errors";
import { expiryForced } from "../../credentials/oauth-access-token";
import { familyStub } from "../../credentials/oauth-family";
import { refuseGrant } from "../family";
import { tokenResponse } from "../issue";
import { hashToken, mintAccessToken, mintRefreshToken, parseCode } from "../../credentials/oauth-token-format";
import { idTokenFor, withIdToken } from "../oidc/id-token";
import type { Grant } from "./types";

/**
 * grant_type=authorization_code (spec, POST /oauth/token): with PKCE (client_id, code,
 * redirect_uri, code_verifier) or without (client_id, client_secret, code, redirect_uri).
 * Order (DESIGN, convention 4): client, redirect_uri, PKCE, single use; the last three run inside
 * the family's Durable Object, atomically, so of concurrent exchanges exactly one succeeds.
 */
export const authorizationCodeGrant: Grant = {
  required: ["code", "redirect_uri"],
  reads: ["client_id", "client_secret", "code", "redirect_uri", "code_verifier", "resource"],
  async handle({ env, params, ip, issuer, resource, dpopJkt, client: clientOf }) {
    const db = getDb(env.DB);
    const client = await clientOf("identify");
    const code = params.get("code")!;
    const verifier = params.get("code_verifier") || null;
    const parsed = parseCode(code);
    if (!parsed) throw new OAuthError("invalid_grant");
    // RFC 7636 §4.6: a malformed verifier cannot match; refuse it as a bad grant.
    if (verifier !== null && !isValidVerifier(verifier)) throw new OAuthError("invalid_grant");
    const { fid, userId } = parsed;
    const now = Date.now();
    const family = familyStub(env, fid);
    // Everything is hashed and minted before the one call, which then runs atomically.
    const access = mintAccessToken(userId, fid);
    const refresh = mintRefreshToken(userId, fid);
    // The user's state, and the cutoff of a pending change that ends this grant (src/db/grant-holder.ts),
    // are read beside the hashing and checked by the family as it issues.
    const [holder, codeHash, verifierChallenge, accessHash, refreshHash] = await Promise.all([
      findGrantHolder(db, userId, client.app.id),
      hashToken(code),
      verifier ? s256(verifier) : null,
      hashToken(access),
      hashToken(refresh),
    ]);
    const result = await family.exchangeCode({
      codeHash,
      applicationId: client.app.id,
      clientAuthenticated: client.authenticated,
      redirectUri: params.get("redirect_uri")!,
      verifierChallenge,
      pair: { accessHash, refreshHash, createdAt: now },
      forceExpiry: expiryForced(env),
      now,
      user: holder ? { state: holder.user.state } : null,
      grantsEndedBefore: holder?.grantsEndedBefore ?? null,
      resource,
      dpopJkt,
    });
    if (!result.ok) return refuseGrant(env, result, { action: "code_reuse", fid, userId, ip });
    // The id_token's reads run beside the bookkeeping writes: with openid the exchange waits for no extra hop.
    const [idToken] = await Promise.all([
      idTokenFor(env, issuer, result.family, { withNonce: true, recorded: true }),
      recordCodeExchanged(db, fid, {
        authorId: userId,
        details: { grant_type: "authorization_code", application_id: client.app.id, scopes: result.family.scopes, pkce: verifier !== null },
        ip,
      }),
    ]);
    return withIdToken(tokenResponse(result.family, { access, refresh }, now, { createdAt: true }), idToken);
  },
};
