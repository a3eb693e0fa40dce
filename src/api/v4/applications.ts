import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { listInstanceApplicationsPage, type ApplicationRow } from "../../db/applications";
import { getDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { createApplication, deleteApplication, findInstanceApplication, renewApplicationSecret } from "../../services/applications";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";
import { ApiError, invalidParam, notFound } from "./errors";
import { boolParam, idParam } from "./params";
import { validateParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { parseScopeList, parseScopes } from "../../domain/scopes";
import { authMethodOf } from "../../domain/client-key-set";

/**
 * GitLab's applications API (administrators; instance-wide applications, i.e. those not owned by
 * a user). The secret is in the answers of create and renew-secret only; storage keeps its hash.
 */
const applications = new Hono<AppEnv>();
applications.use("/applications", requireAuth(WRITE_API), requireAdmin);
applications.use("/applications/*", requireAuth(WRITE_API), requireAdmin);

export function applicationEntity(app: ApplicationRow) {
  return {
    id: app.id,
    application_id: app.uid,
    application_name: app.name,
    callback_url: app.redirectUri,
    confidential: app.confidential,
    // Not in GitLab's entity: RFC 9449 §5.2, the client gets only DPoP-bound tokens (docs/oauth.md).
    dpop_bound_access_tokens: app.dpopBoundAccessTokens,
    // Not in GitLab's entity: RFC 9126 §6, authorization requests only through /oauth/par.
    require_pushed_authorization_requests: app.requirePushedAuthorizationRequests,
    // Not in GitLab's entity: the application's access-token lifetime (docs/rest-api.md).
    access_token_expires_in: app.accessTokenTtlSeconds,
    // Not in GitLab's entity, so only for an application that set them: key-based client
    // authentication (RFC 7591 §2 names; docs/oauth.md).
    ...(app.tokenEndpointAuthMethod || app.jwks || app.jwksUri
      ? { token_endpoint_auth_method: authMethodOf(app), jwks: app.jwks ? JSON.parse(app.jwks) : null, jwks_uri: app.jwksUri }
      : {}),
    // Not in GitLab's entity, so only for an application that set them: OpenID Connect
    // RP-Initiated and Back-Channel Logout (their registration names; docs/oidc.md, "Signing out").
    ...(app.postLogoutRedirectUris || app.backchannelLogoutUri
      ? {
          post_logout_redirect_uris: app.postLogoutRedirectUris ? app.postLogoutRedirectUris.split("\n") : [],
          backchannel_logout_uri: app.backchannelLogoutUri,
          backchannel_logout_session_required: app.backchannelLogoutSessionRequired,
        }
      : {}),
  };
}

const NewApplication = z.object({
  name: z.string().max(255),
  redirect_uri: z.string().max(8192),
  scopes: z.union([z.string().max(2048), z.array(z.string().max(64)).max(32)]),
  confidential: boolParam.optional(),
  /** Not in GitLab's API (an admin-area checkbox there); accepted here so scripts can set it. */
  trusted: boolParam.optional(),
  expire_access_tokens: boolParam.optional(),
  /** Not in GitLab's API: RFC 9449 §5.2's client metadata name; default false. */
  dpop_bound_access_tokens: boolParam.optional(),
  /** Not in GitLab's API: RFC 9126 §6's client metadata name; default false. */
  require_pushed_authorization_requests: boolParam.optional(),
  /** Access-token lifetime in seconds (not in GitLab's API; Doorkeeper's name). Default: ACCESS_TOKEN_TTL_SECONDS. */
  access_token_expires_in: z.union([z.string().max(16), z.number()]).optional(),
  /** Not in GitLab's API: the client's public keys (a JWK Set) or their URL, and how it authenticates (RFC 7591 §2). */
  jwks: z.union([z.string().max(16384), z.record(z.string(), z.unknown())]).optional(),
  jwks_uri: z.string().max(2048).optional(),
  token_endpoint_auth_method: z.string().max(64).optional(),
  /** Not in GitLab's API: OpenID Connect logout (RP-Initiated Logout §3.1, Back-Channel Logout §2.2); a list or one URI per line. */
  post_logout_redirect_uris: z.union([z.string().max(8192), z.array(z.string().max(2048)).max(32)]).optional(),
  backchannel_logout_uri: z.string().max(2048).optional(),
  backchannel_logout_session_required: boolParam.optional(),
});

applications.post("/applications", validateParams(NewApplication), async (c) => {
  const input = c.req.valid("json");
  const created = await createApplication(c.env, requestActor(c), {
    name: input.name,
    redirectUri: input.redirect_uri,
    scopes: Array.isArray(input.scopes) ? parseScopeList(input.scopes) : parseScopes(input.scopes),
    accessTokenExpiresIn: input.access_token_expires_in,
    confidential: input.confidential ?? true,
    trusted: input.trusted ?? false,
    expireAccessTokens: input.expire_access_tokens ?? true,
    dpopBoundAccessTokens: input.dpop_bound_access_tokens ?? false,
    requirePushedAuthorizationRequests: input.require_pushed_authorization_requests ?? false,
    jwks: input.jwks,
    jwksUri: input.jwks_uri,
    tokenEndpointAuthMethod: input.token_endpoint_auth_method,
    postLogoutRedirectUris: input.post_logout_redirect_uris,
    backchannelLogoutUri: input.backchannel_logout_uri,
    backchannelLogoutSessionRequired: input.backchannel_logout_session_required ?? false,
    ownerId: null,
  });
  if (!created.ok) throw new ApiError(400, { message: created.errors });
  return c.json({ ...applicationEntity(created.row), secret: created.secret }, 201);
});

applications.get("/applications", async (c) => {
  const req = parsePage(c);
  const page = await listInstanceApplicationsPage(getDb(c.env.DB), { offset: req.offset, limit: req.perPage });
  setPaginationHeaders(c, req, page.total, page.hasNext);
  return c.json(page.rows.map(applicationEntity));
});

async function instanceApplication(c: Context<AppEnv>): Promise<ApplicationRow> {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  // Applications users registered on /profile/applications are theirs, not the admin API's (GitLab).
  const app = await findInstanceApplication(c.env, id.data);
  if (!app) throw notFound("Application Not Found");
  return app;
}

applications.delete("/applications/:id", async (c) => {
  await deleteApplication(c.env, requestActor(c), await instanceApplication(c));
  return c.body(null, 204);
});

applications.post("/applications/:id/renew-secret", async (c) => {
  const renewed = await renewApplicationSecret(c.env, requestActor(c), await instanceApplication(c));
  if (!renewed) throw notFound("Application Not Found");
  return c.json({ ...applicationEntity(renewed.row), secret: renewed.secret }, 201);
});

export default applications;
