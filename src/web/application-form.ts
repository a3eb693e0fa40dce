import type { Context } from "hono";
import { parseScopeList } from "../domain/scopes";
import type { ApplicationFields } from "../services/applications";
import type { AppFormValues } from "./pages/application-views";

/**
 * The application form's fields as posted (the user's page and the admin area's); unchecked boxes
 * are absent. `trusted` is read only where the form offers it (the admin area).
 */
export async function readApplicationForm(c: Context<any>, opts: { trusted?: boolean } = {}): Promise<AppFormValues> {
  const body = await c.req.parseBody({ all: true });
  const one = (v: unknown) => (typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : "");
  const scopes = ([] as unknown[]).concat(body.scopes ?? []).filter((s): s is string => typeof s === "string");
  return {
    name: one(body.name),
    redirectUri: one(body.redirect_uri),
    scopes,
    confidential: body.confidential !== undefined,
    expireAccessTokens: body.expire_access_tokens !== undefined,
    dpopBoundAccessTokens: body.dpop_bound_access_tokens !== undefined,
    requirePushedAuthorizationRequests: body.require_pushed_authorization_requests !== undefined,
    accessTokenExpiresIn: one(body.access_token_expires_in),
    jwks: one(body.jwks),
    jwksUri: one(body.jwks_uri),
    tokenEndpointAuthMethod: one(body.token_endpoint_auth_method),
    postLogoutRedirectUris: one(body.post_logout_redirect_uris),
    backchannelLogoutUri: one(body.backchannel_logout_uri),
    backchannelLogoutSessionRequired: body.backchannel_logout_session_required !== undefined,
    ...(opts.trusted ? { trusted: body.trusted !== undefined } : {}),
  };
}

/** The form's values as the applications service takes them (checkbox scopes are one scope each). */
export function applicationFieldsOf(v: AppFormValues): ApplicationFields {
  return {
    name: v.name,
    redirectUri: v.redirectUri,
    scopes: parseScopeList(v.scopes),
    accessTokenExpiresIn: v.accessTokenExpiresIn,
    confidential: v.confidential,
    expireAccessTokens: v.expireAccessTokens,
    dpopBoundAccessTokens: v.dpopBoundAccessTokens,
    requirePushedAuthorizationRequests: v.requirePushedAuthorizationRequests,
    jwks: v.jwks,
    jwksUri: v.jwksUri,
    tokenEndpointAuthMethod: v.tokenEndpointAuthMethod,
    postLogoutRedirectUris: v.postLogoutRedirectUris,
    backchannelLogoutUri: v.backchannelLogoutUri,
    backchannelLogoutSessionRequired: v.backchannelLogoutSessionRequired,
    ...(v.trusted === undefined ? {} : { trusted: v.trusted }),
  };
}
