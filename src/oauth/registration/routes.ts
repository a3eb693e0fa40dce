import { Hono } from "hono";
import { newApplicationTtl } from "../../config";
import { getConfig } from "../../config";
import { createApplication } from "../../db/applications";
import { getDb } from "../../db/client";
import { formatScopes } from "../../domain/scopes";
import type { AppEnv } from "../../env";
import { OAuthError, renderOAuthError } from "../errors";
import { attemptKeys, attemptRefused, countAttempt } from "../throttle";
import { checkRegistration } from "./metadata";
import { clientAddress } from "../../http/client-address";

/**
 * POST /oauth/register (RFC 7591 §3; GitLab serves it for MCP clients). Open, JSON, throttled per
 * client address; the client is public and must use PKCE, or proves itself with its key (private_key_jwt). No RFC 7592 management endpoint: the
 * registration cannot be read or changed by the client afterwards (docs/oidc.md says why).
 */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.post("/register", async (c) => {
  const ip = clientAddress(c.req.raw, c.env);
  const keys = attemptKeys(ip);
  const refused = await attemptRefused(c.env, "dynamic_registration", keys);
  if (refused) {
    c.header("Retry-After", String(refused.retryAfterSeconds));
    return c.json({ error: "slow_down", error_description: "Too many registrations from this address. Try again later." }, 429, { "Cache-Control": "no-store" });
  }
  if (!(c.req.header("content-type") ?? "").includes("application/json")) throw new OAuthError("invalid_client_metadata", "Send the client metadata as JSON.");
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new OAuthError("invalid_client_metadata", "The request body is not valid JSON.");
  }
  const config = getConfig(c.env);
  const reg = checkRegistration(body, config.allowInsecureRedirects, config.allowLoopbackClientMetadata);
  // A client with a key proves itself with it (private_key_jwt): confidential, yet no secret is issued.
  const keyed = reg.tokenEndpointAuthMethod === "private_key_jwt";
  const db = getDb(c.env.DB);
  // The client and its audit row in one batch. A client whose answer never reached anyone (the
  // request killed after the batch) receives no grant and is swept (src/services/dynamic-clients.ts).
  const { row } = await createApplication(
    db,
    {
      name: reg.name,
      redirectUri: reg.redirectUris.join("\n"),
      scopes: reg.scopes,
      confidential: keyed,
      trusted: false,
      ownerId: null,
      dynamic: true,
      dpopBoundAccessTokens: reg.dpopBoundAccessTokens,
      requirePushedAuthorizationRequests: reg.requirePushedAuthorizationRequests,
      jwks: reg.jwks,
      jwksUri: reg.jwksUri,
      tokenEndpointAuthMethod: reg.tokenEndpointAuthMethod,
      postLogoutRedirectUris: reg.postLogoutRedirectUris,
      backchannelLogoutUri: reg.backchannelLogoutUri,
      backchannelLogoutSessionRequired: reg.backchannelLogoutSessionRequired,
      accessTokenTtlSeconds: newApplicationTtl(c.env),
    },
    { action: "dynamic_application_registered", details: { name: reg.name }, ip },
  );
  await countAttempt(c.env, "dynamic_registration", keys);
  return c.json(
    {
      client_id: row.uid,
      client_id_issued_at: Math.floor(row.createdAt / 1000),
      client_name: row.name,
      redirect_uris: reg.redirectUris,
      token_endpoint_auth_method: keyed ? "private_key_jwt" : "none",
      ...(reg.jwks ? { jwks: JSON.parse(reg.jwks) } : {}),
      ...(reg.jwksUri ? { jwks_uri: reg.jwksUri } : {}),
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: formatScopes(reg.scopes),
      ...(reg.applicationType ? { application_type: reg.applicationType } : {}),
      dpop_bound_access_tokens: reg.dpopBoundAccessTokens,
      require_pushed_authorization_requests: reg.requirePushedAuthorizationRequests,
      ...(reg.postLogoutRedirectUris ? { post_logout_redirect_uris: reg.postLogoutRedirectUris.split("\n") } : {}),
      ...(reg.backchannelLogoutUri
        ? { backchannel_logout_uri: reg.backchannelLogoutUri, backchannel_logout_session_required: reg.backchannelLogoutSessionRequired }
        : {}),
    },
    201,
    { "Cache-Control": "no-store" },
  );
});

export default routes;
