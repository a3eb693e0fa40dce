import { decodeJwt, errors, jwtVerify } from "jose";
import { getConfig } from "../../config";
import { getDb } from "../../db/client";
import { claimAssertionJti } from "../../db/client-assertion-jtis";
import { findUserByLogin } from "../../db/users";
import { CLIENT_SIGNING_ALGS } from "../../domain/client-key-set";
import { resourcePathOf } from "../../domain/resources";
import { isScope, parseRequestedScopes, parseScopes } from "../../domain/scopes";
import { CLOCK_TOLERANCE_SECONDS, MAX_JTI_LENGTH } from "../client-assertion";
import { remoteKeys } from "../client-keys";
import { OAuthError } from "../errors";
import { issueAccessOnly, tokenResponse } from "../issue";
import { ACCESS_TOKEN_TYPE } from "./token-exchange";
import type { Grant } from "./types";

export { JWT_BEARER_GRANT_TYPE } from "./client";

/**
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 §2.1) with an Identity
 * Assertion JWT Authorization Grant (ID-JAG; draft-ietf-oauth-identity-assertion-authz-grant, MCP
 * Enterprise-Managed Authorization): the enterprise's identity provider vouches that its user may
 * use this client here, and the client trades that for an access token without a consent screen.
 *
 * Accepted only from identity providers the administrator lists in TRUSTED_ID_JAG_ISSUERS (issuer
 * and JWKS URL; the key set is fetched through the public-host guard and cached like a client's,
 * src/oauth/client-keys.ts). Checked: header `typ` oauth-id-jag+jwt, an asymmetric signature by
 * the issuer's key, `aud` this server's issuer, `client_id` the authenticated client, `exp`
 * present and not past (at most MAX_ID_JAG_LIFETIME_SECONDS ahead), `jti` present; the user is the
 * one whose email is the assertion's `email` claim (docs/agents.md says why), and must be active.
 * Scopes: those the assertion grants (`scope`), narrowed by the request, within the client's;
 * the resource: the assertion's `resource`, which the request may only repeat. No refresh token:
 * the identity provider issues a new ID-JAG when the token expires.
 */
export const ID_JAG_TYPE = "oauth-id-jag+jwt";
export const MAX_ID_JAG_LIFETIME_SECONDS = 600;

const refuse = (why: string) => new OAuthError("invalid_grant", `ID-JAG refused: ${why}`);

export const jwtBearerGrant: Grant = {
  required: ["assertion"],
  reads: ["assertion", "scope", "resource", "client_id", "client_secret", "client_assertion_type", "client_assertion"],
  async handle({ env, params, ip, issuer, resource, dpopJkt, client: clientOf }) {
    const client = await clientOf("authenticate");
    const config = getConfig(env);
    const assertion = params.get("assertion")!;
    let claimedIssuer: unknown;
    try {
      claimedIssuer = decodeJwt(assertion).iss;
    } catch {
      throw refuse("it is not a JWT.");
    }
    const trusted = config.trustedIdJagIssuers.find((t) => t.issuer === claimedIssuer);
    if (!trusted) throw refuse("its issuer is not a trusted identity provider.");
    let payload;
    try {
      ({ payload } = await jwtVerify(assertion, remoteKeys(trusted.jwksUri, config.allowLoopbackClientMetadata), {
        algorithms: [...CLIENT_SIGNING_ALGS],
        typ: ID_JAG_TYPE,
        issuer: trusted.issuer,
        audience: issuer,
        requiredClaims: ["exp", "jti", "sub", "client_id"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (e) {
      if (e instanceof OAuthError) throw refuse(e.description);
      if (e instanceof errors.JWTExpired) throw refuse("it has expired.");
      if (e instanceof errors.JWTClaimValidationFailed) throw refuse(`the ${e.claim} claim is not valid.`);
      throw refuse("its signature could not be verified with the identity provider's keys.");
    }
    if (payload.client_id !== client.app.uid) throw refuse("it was issued for another client.");
    if (payload.exp! * 1000 > Date.now() + (MAX_ID_JAG_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000) throw refuse("exp is too far ahead.");
    if (typeof payload.jti !== "string" || payload.jti.length > MAX_JTI_LENGTH) throw refuse("jti is not valid.");
    // RFC 7523 §3 item 7: one use per ID-JAG, held until its expiry (the client assertions' table).
    const fresh = await claimAssertionJti(getDb(env.DB), client.app.id, `id-jag ${trusted.issuer} ${payload.jti}`, (payload.exp! + CLOCK_TOLERANCE_SECONDS) * 1000, Date.now());
    if (!fresh) throw refuse("its jti has been used before.");
    const email = payload.email;
    if (typeof email !== "string" || !email.includes("@")) throw refuse("it names no email to find the user by.");
    const user = await findUserByLogin(getDb(env.DB), email);
    if (!user) throw refuse("no user has its email.");

    const allowed = parseScopes(client.app.scopes);
    const granted = typeof payload.scope === "string" ? parseRequestedScopes(payload.scope).filter((s) => allowed.includes(s)) : allowed;
    const requested = parseRequestedScopes(params.get("scope"));
    if (!requested.every(isScope) || !requested.every((s) => granted.includes(s))) throw new OAuthError("invalid_scope", "The requested scope is wider than the ID-JAG grants.");
    const scopes = requested.length > 0 ? requested : granted;
    if (scopes.length === 0) throw new OAuthError("invalid_scope");
    const bound = typeof payload.resource === "string" ? resourcePathOf(payload.resource, issuer) : null;
    if (typeof payload.resource === "string" && bound === null) throw new OAuthError("invalid_target", "The ID-JAG names a resource of another server.");
    if (resource !== null && bound !== null && resource !== bound) throw new OAuthError("invalid_target", "The requested resource is not the one the ID-JAG names.");

    // issueAccessOnly refuses a user who is not active (DESIGN, Blocked users): invalid_grant.
    const { token, family } = await issueAccessOnly(env, {
      app: client.app,
      user,
      userId: user.id,
      scopes,
      grantType: "jwt_bearer",
      ip,
      resource: bound ?? resource,
      dpopJkt,
      audit: { id_jag_issuer: trusted.issuer, id_jag_subject: payload.sub },
    });
    return { ...tokenResponse(family, { access: token }, family.accessCreatedAt, { createdAt: true }), issued_token_type: ACCESS_TOKEN_TYPE };
  },
};
