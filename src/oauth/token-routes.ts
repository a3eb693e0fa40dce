import { Hono, type Context } from "hono";
import { getDb } from "../db/client";
import { findGrantHolder, grantEnded } from "../db/grant-holder";
import type { AppEnv } from "../env";
import { gate } from "../http/gate";
import { frontDoor, type Door } from "../credentials/front-door";
import { expiryForced, oauthAccessToken, USER_SNAPSHOT_TTL_MS } from "../credentials/oauth-access-token";
import { AuthError } from "../credentials/errors";
import type { ApplicationPrincipal, Principal } from "../credentials/principal";
import { familyStub, revokeFamilies } from "../credentials/oauth-family";
import { outlastValidationCache, rememberedFor } from "../credentials/validation-cache";
import { OAuthError, missingParam, renderOAuthError } from "./errors";
import { grantFor } from "./grants";
import { clientForGrant, type ClientMode } from "./grants/client";
import { issuerOf } from "./issuer";
import { authenticateClient, authenticateClientRemembered, clientCredentials, countingSecretFailures, readParams, requireParams } from "./request";
import { NO_USER_ID, familyOfToken, hashToken, parseAccessToken } from "../credentials/oauth-token-format";
import { clientAddress } from "../http/client-address";
import { formatScopes } from "../domain/scopes";
import { DEFAULT_RESOURCE, resourcePathOf, resourceUrl } from "../domain/resources";
import { requireProofFor, tokenRequestProof } from "./dpop";

/** POST /oauth/token, GET /oauth/token/info, POST /oauth/revoke, POST /oauth/introspect. */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

routes.post("/token", async (c) => {
  const params = await readParams(c);
  // RFC 9449: a DPoP proof is checked and used up before anything else; its key binds the tokens.
  const dpopJkt = await tokenRequestProof(c);
  const type = params.get("grant_type");
  if (!type) throw missingParam("grant_type");
  const grant = grantFor(type);
  if (!grant) throw new OAuthError("unsupported_grant_type");
  requireParams(params, grant.required);
  const creds = clientCredentials(c, params);
  // Every grant gets its client through here: identified or authenticated, then its grant types
  // checked, and a client that requires DPoP refused a bearer token.
  const client = async (mode: ClientMode) => {
    const found = await clientForGrant(c.env, creds, type, mode);
    requireProofFor(found.app, dpopJkt);
    return found;
  };
  const issuer = issuerOf(c);
  const resource = requestedResource(params.get("resource"), issuer);
  const body = await countingSecretFailures(c, creds, () =>
    grant.handle({ env: c.env, params, creds, ip: clientAddress(c.req.raw, c.env), issuer, resource, dpopJkt, client }),
  );
  // A token without expiry is the deprecated thing itself (served below 15.0): the answer says so.
  if (body.expires_in === undefined) gate(c).markDeprecated("oauth-tokens-without-expiry");
  return c.json(body, 200, noStore);
});

/** RFC 8707 §2: `resource` names one of this service's resources (src/domain/resources.ts), else invalid_target. */
function requestedResource(value: string | undefined, issuer: string): string | null {
  if (value === undefined) return null;
  const path = resourcePathOf(value, issuer);
  if (path === null) throw new OAuthError("invalid_target", "The requested resource is not a resource of this server.");
  return path;
}

/**
 * Token info's door (Doorkeeper's GET /oauth/token/info): an OAuth access token in the RFC 6750
 * §2.1 header or the `access_token` query parameter, of a user or of an application
 * (client_credentials), with a DPoP proof when it is bound (RFC 9449 §7), through the front door as
 * every API route: the validation cache's bound, the failed_bearer throttle, one renderer.
 */
const TOKEN_INFO_DOOR = {
  sources: ["bearer", "access-token-query"],
  accepts: ["oauth", "application"],
  failures: { bucket: "failed_bearer" },
  describesToken: true,
} as const satisfies Door;

routes.use("/token/info", frontDoor(TOKEN_INFO_DOOR));
routes.get("/token/info", (c) => {
  const caller = c.get("caller");
  const token = caller.kind === "user" ? caller.principal : caller.kind === "application" ? caller.application : null;
  if (!token || token.issuedAt === undefined) throw new OAuthError("invalid_token");
  const applicationUid = caller.kind === "user" ? (caller.principal.applicationUid ?? null) : token.kind === "application" ? token.applicationUid : null;
  const expiresIn = token.expiresAt === null ? null : Math.max(0, Math.floor((token.expiresAt - Date.now()) / 1000));
  const body: Record<string, unknown> = {
    // Doorkeeper's null for a token without resource owner (client_credentials).
    resource_owner_id: caller.kind === "user" ? caller.principal.user.id : null,
    scope: token.scopes,
    expires_in: expiresIn,
    application: { uid: applicationUid },
    created_at: Math.floor(token.issuedAt / 1000),
  };
  const g = gate(c);
  if (expiresIn === null) g.markDeprecated("oauth-tokens-without-expiry");
  if (!g.isRemoved("oauth-token-info-aliases")) {
    body.scopes = token.scopes;
    body.expires_in_seconds = expiresIn;
    g.markDeprecated("oauth-token-info-aliases");
  }
  return c.json(body, 200, noStore);
});

/** RFC 7009. Either token of a pair revokes the family; unknown tokens get 200 {} (§2.2). */
routes.post("/revoke", async (c) => {
  const params = await readParams(c);
  const creds = clientCredentials(c, params);
  const client = await countingSecretFailures(c, creds, () => authenticateClient(c.env, creds));
  requireParams(params, ["token"]);
  const token = params.get("token")!;
  const fid = familyOfToken(token);
  if (!fid) return c.json({}, 200, noStore);
  const now = Date.now();
  const { result: outcome, sinceVouched } = await familyStub(c.env, fid).revokeToken({ tokenHash: await hashToken(token), applicationId: client.app.id, now });
  // DESIGN, Validation cache: the answer waits until no isolate can still remember the token as valid.
  const settled = outlastValidationCache(c.env, [sinceVouched]);
  if (outcome === "foreign") throw new OAuthError("unauthorized_client", "You are not authorized to revoke this token");
  if (outcome === "revoked") await revokeFamilies(c.env, [fid], { actor: null, reason: "client_revoked", ip: clientAddress(c.req.raw, c.env) });
  await settled;
  return c.json({}, 200, noStore);
});

/**
 * RFC 7662. The client authenticates; it learns about its own tokens and about tokens without an
 * application (Doorkeeper's rule); anything else is reported inactive, as are unknown tokens.
 */
routes.post("/introspect", async (c) => {
  const params = await readParams(c);
  const creds = clientCredentials(c, params);
  const client = await countingSecretFailures(c, creds, () => authenticateClientRemembered(c.env, creds));
  // Introspection tells who a token acts for: only clients that prove their identity may ask.
  if (!client.authenticated) throw new OAuthError("invalid_client");
  requireParams(params, ["token"]);
  const token = params.get("token")!;
  const answer = parseAccessToken(token) ? await introspectAccessToken(c, token, client.app.id) : await introspectRefreshToken(c, token, client.app.id);
  return c.json(answer ?? { active: false }, 200, noStore);
});

type IntrospectionAnswer = Record<string, unknown>;

/**
 * An access token is checked the way every request's token is (the front door's OAuth kind): from
 * the validation cache, else by one call to its family, which vouches for it, marks it used and
 * hands back its user snapshot. So a resource server's repeated introspection within L costs no
 * hop, and every change that takes access away (revocation, block, refresh, replay) waits L out
 * after that vouching before it answers, as it does for API requests (DESIGN, "Validation cache").
 * A token the front door refuses (unknown, expired, revoked, its grant ended, its user blocked) is
 * inactive.
 */
async function introspectAccessToken(c: Context<AppEnv>, token: string, clientAppId: number): Promise<IntrospectionAnswer | null> {
  let p: Principal | ApplicationPrincipal;
  try {
    p = await oauthAccessToken.resolve(c.env, token);
  } catch (err) {
    if (err instanceof AuthError) return null;
    throw err;
  }
  if ((p.applicationId !== null && p.applicationId !== clientAppId) || p.issuedAt === undefined) return null;
  const issuer = issuerOf(c);
  const head = { active: true, scope: formatScopes(p.scopes), client_id: p.applicationUid ?? null };
  const tail = {
    iss: issuer,
    // RFC 8707 / RFC 7662 §2.2: the resource the access token is bound to.
    aud: resourceUrl(issuer, p.resource ?? DEFAULT_RESOURCE),
    ...(p.expiresAt !== null ? { exp: Math.floor(p.expiresAt / 1000) } : {}),
    // RFC 8693 §4.1, §2.2.1: who acts for the subject of a delegated token.
    ...(p.kind !== "application" && p.act ? { act: p.act } : {}),
    // RFC 9449 §6.2: the key a DPoP-bound access token is bound to.
    ...(p.dpopJkt ? { cnf: { jkt: p.dpopJkt } } : {}),
  };
  const token_type = p.dpopJkt ? "DPoP" : "Bearer";
  const iat = Math.floor(p.issuedAt / 1000);
  // client_credentials: the subject is the client itself (RFC 9068 §2.2), there is no username.
  if (p.kind === "application") return { ...head, token_type, iat, ...tail, sub: p.applicationUid };
  // The members in the order clients have always seen them.
  return { ...head, username: p.user.username, token_type, iat, sub: String(p.user.id), ...tail };
}

/**
 * A refresh token is described by its family (no side effects: a refresh token is never vouched
 * for, since no request carries it) with the family's user snapshot when young, else the row from
 * D1, remembered under the validation cache's bound: it only names the user (username, sub).
 */
async function introspectRefreshToken(c: Context<AppEnv>, token: string, clientAppId: number): Promise<IntrospectionAnswer | null> {
  const fid = familyOfToken(token);
  if (!fid) return null;
  const d = await familyStub(c.env, fid).describe({
    tokenHash: await hashToken(token),
    now: Date.now(),
    fillExpiry: expiryForced(c.env),
  });
  if (!d || !d.active || (d.applicationId !== null && d.applicationId !== clientAppId)) return null;
  const issuer = issuerOf(c);
  const head = { active: true, scope: formatScopes(d.scopes), client_id: d.applicationUid };
  const tail = { iss: issuer, aud: resourceUrl(issuer, d.resource), ...(d.act ? { act: d.act } : {}) };
  const iat = Math.floor(d.accessCreatedAt / 1000);
  if (d.userId === NO_USER_ID) return { ...head, token_type: "refresh_token", iat, ...tail, sub: d.applicationUid };
  // A grant a pending change ends (src/db/grant-holder.ts) is inactive, though not revoked yet.
  const snapshot = d.user && Date.now() - d.user.at < USER_SNAPSHOT_TTL_MS ? d.user : null;
  const holder =
    snapshot ??
    (await rememberedFor(c.env, `introspected-holder:${d.userId}:${d.applicationId}`, null, async () => {
      const found = await findGrantHolder(getDb(c.env.DB), d.userId, d.applicationId);
      return found ? { row: found.user, grantsEndedBefore: found.grantsEndedBefore } : null;
    }));
  if (!holder || grantEnded(d.createdAt, holder.grantsEndedBefore)) return null;
  return { ...head, username: holder.row.username, token_type: "refresh_token", iat, sub: String(d.userId), ...tail };
}

export default routes;
