import { getDb } from "../../db/client";
import { findUserById } from "../../db/users";
import type { ActorClaim, FamilyView } from "../../durable/token-family-state";
import { validateAccessToken } from "../../credentials/oauth-access-token";
import { NO_USER_ID, parseAccessToken } from "../../credentials/oauth-token-format";
import { resourceCovers, resourcePathOf } from "../../domain/resources";
import { isScope, parseRequestedScopes } from "../../domain/scopes";
import type { Bindings } from "../../env";
import { OAuthError } from "../errors";
import { issueAccessOnly, tokenResponse, type TokenResponse } from "../issue";
import type { Grant } from "./types";

export { TOKEN_EXCHANGE_GRANT_TYPE } from "./client";

/**
 * grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693) for delegation: a client
 * holding a user's access token of this service (issued to that same client) obtains a new one
 * that only narrows it: scopes within the subject token's, a resource within its resource (RFC 8707
 * `resource`, or `audience` naming one of this service's resources), an expiry no later than the
 * subject token's; never a refresh token. With an `actor_token` (another access token of this
 * service) the new token records who acts for the user in its `act` claim (§4.1), shown by
 * introspection and written into the audit row of every action the token takes. A blocked or
 * deactivated user gets nothing (invalid_grant).
 */
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

export const tokenExchangeGrant: Grant = {
  required: ["subject_token", "subject_token_type"],
  reads: [
    "subject_token",
    "subject_token_type",
    "actor_token",
    "actor_token_type",
    "requested_token_type",
    "resource",
    "audience",
    "scope",
    "client_id",
    "client_secret",
    "client_assertion_type",
    "client_assertion",
  ],
  async handle({ env, params, ip, issuer, resource, dpopJkt, client: clientOf }) {
    const client = await clientOf("authenticate");
    if (params.get("subject_token_type") !== ACCESS_TOKEN_TYPE) throw new OAuthError("invalid_request", `subject_token_type must be ${ACCESS_TOKEN_TYPE}.`);
    const requestedType = params.get("requested_token_type");
    if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE) throw new OAuthError("invalid_request", `Only ${ACCESS_TOKEN_TYPE} can be issued.`);
    const subject = await activeToken(env, params.get("subject_token")!);
    if (subject.applicationId !== client.app.id) throw new OAuthError("invalid_grant", "The subject token was not issued to this client.");
    if (subject.userId === NO_USER_ID) throw new OAuthError("invalid_grant", "The subject token acts for no user.");

    const target = targetResource(resource, params.get("audience"), issuer) ?? subject.resource;
    if (!resourceCovers(subject.resource, target)) throw new OAuthError("invalid_target", "The requested resource is wider than the subject token's.");
    const requested = parseRequestedScopes(params.get("scope"));
    if (!requested.every(isScope) || !requested.every((s) => subject.scopes.includes(s))) {
      throw new OAuthError("invalid_scope", "The requested scope is wider than the subject token's.");
    }
    const scopes = requested.length > 0 ? requested : subject.scopes;

    const act = await actorOf(env, params, subject);
    const user = await findUserById(getDb(env.DB), subject.userId);
    if (!user) throw new OAuthError("invalid_grant");
    // issueAccessOnly refuses a user who is not active (DESIGN, Blocked users).
    const { token, family } = await issueAccessOnly(env, {
      app: client.app,
      user,
      userId: user.id,
      scopes,
      grantType: "token_exchange",
      ip,
      resource: target,
      notAfter: subject.accessExpiresAt,
      dpopJkt,
      act,
      audit: { subject_family: subject.id },
    });
    return exchanged(tokenResponse(family, { access: token }, family.accessCreatedAt, { createdAt: true }));
  },
};

/** RFC 8693 §2.2.1: the response names the type of the token issued. */
function exchanged(body: TokenResponse): TokenResponse {
  return { ...body, issued_token_type: ACCESS_TOKEN_TYPE };
}

/** An active access token of this service, with its family; anything else is invalid_grant (§2.2.2). */
async function activeToken(env: Bindings, token: string): Promise<FamilyView> {
  const parsed = parseAccessToken(token);
  if (!parsed) throw new OAuthError("invalid_grant", "The token is not an access token of this server.");
  const check = await validateAccessToken(env, token, parsed);
  if (!check.ok) throw new OAuthError("invalid_grant", `The token is ${check.reason}.`);
  return check.family;
}

/** `resource` (already checked) or `audience` naming one of this service's resources (§2.1); they must agree. */
function targetResource(resource: string | null, audience: string | undefined, issuer: string): string | null {
  if (audience === undefined) return resource;
  const path = resourcePathOf(audience, issuer);
  if (path === null) throw new OAuthError("invalid_target", "The audience is not a resource of this server.");
  if (resource !== null && resource !== path) throw new OAuthError("invalid_target", "resource and audience name different resources.");
  return path;
}

/**
 * §4.1: the actor, from the actor_token (an active access token of this service): its user, or its
 * client for an application's own token; a subject token that was itself delegated keeps its chain
 * underneath. Without an actor_token the subject's own actor, if any, carries over.
 */
async function actorOf(env: Bindings, params: Map<string, string>, subject: FamilyView): Promise<ActorClaim | null> {
  const actorToken = params.get("actor_token");
  if (actorToken === undefined) {
    if (params.has("actor_token_type")) throw new OAuthError("invalid_request", "actor_token_type without actor_token.");
    return subject.act ?? null;
  }
  if (params.get("actor_token_type") !== ACCESS_TOKEN_TYPE) throw new OAuthError("invalid_request", `actor_token_type must be ${ACCESS_TOKEN_TYPE}.`);
  const actor = await activeToken(env, actorToken);
  const claim: ActorClaim = {
    sub: actor.userId === NO_USER_ID ? actor.applicationUid! : String(actor.userId),
    ...(actor.applicationUid ? { client_id: actor.applicationUid } : {}),
  };
  const below = actor.act ?? subject.act;
  if (below) claim.act = below;
  return claim;
}
