import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { MalformedPathError } from "../http/path-decoding";
import { logUnexpectedError } from "../observability/error-log";
import { bearerChallenge } from "./protected-resource";

/**
 * OAuth errors (RFC 6749 §5.2) with Doorkeeper's descriptions, as GitLab sends them. Domain code
 * throws OAuthError; renderOAuthError is the one place they become responses (DESIGN, convention 2).
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type"
  | "invalid_token"
  | "server_error"
  // OpenID Connect Core §3.1.2.6 and RFC 6750 §3.1
  | "login_required"
  | "consent_required"
  | "insufficient_scope"
  | "request_not_supported"
  | "request_uri_not_supported"
  // RFC 8628 §3.5
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  // RFC 7591 §3.2.2
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  // RFC 8707 §2
  | "invalid_target";

export const DESCRIPTIONS: Record<OAuthErrorCode, string> = {
  invalid_request: "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client: "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unauthorized_client: "The client is not authorized to perform this request using this method.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  access_denied: "The resource owner or authorization server denied the request.",
  unsupported_response_type: "The authorization server does not support this response type.",
  invalid_token: "The access token is invalid",
  server_error: "The authorization server encountered an unexpected condition which prevented it from fulfilling the request.",
  login_required: "The authorization server requires end-user authentication.",
  consent_required: "The authorization server requires end-user consent.",
  insufficient_scope: "The request requires higher privileges than provided by the access token.",
  request_not_supported: "The authorization server does not support the use of the request parameter.",
  request_uri_not_supported: "The authorization server does not support the use of the request_uri parameter.",
  authorization_pending: "The authorization request is still pending as the end user hasn't yet completed the user-interaction steps.",
  slow_down: "The client is polling too quickly and should back off at a reasonable rate.",
  expired_token: "The device code has expired, and the device authorization session has concluded.",
  invalid_redirect_uri: "The value of one or more redirection URIs is invalid.",
  invalid_client_metadata: "The value of one of the client metadata fields is invalid.",
  invalid_target: "The requested resource is invalid, missing, unknown, or malformed.",
};

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string = DESCRIPTIONS[code],
    /** invalid_client answered to an HTTP Basic attempt names that scheme (RFC 6749 §5.2). */
    readonly status: ContentfulStatusCode = code === "invalid_client" || code === "invalid_token" ? 401 : code === "unauthorized_client" || code === "insufficient_scope" ? 403 : 400,
  ) {
    super(`${code}: ${description}`);
    this.name = "OAuthError";
  }
}

export const missingParam = (name: string) => new OAuthError("invalid_request", `Missing required parameter: ${name}.`);

/** The token, revoke, introspect and token-info endpoints' error renderer. */
export function renderOAuthError(err: Error, c: Context): Response {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  if (err instanceof ThrottledError) {
    // Too many failed authentications from this address (docs/security.md, Throttle).
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json({ error: "too_many_requests", error_description: "Too many failed authentication attempts from this address. Retry later." }, 429);
  }
  if (err instanceof MalformedPathError) return c.json({ error: "invalid_request", error_description: "The request path holds a malformed percent-encoding." }, 400);
  if (err instanceof OAuthError) {
    if (err.code === "invalid_client") c.header("WWW-Authenticate", 'Basic realm="GitLab"');
    // The userinfo endpoint's refusals (the only insufficient_scope here is its openid).
    if (err.code === "insufficient_scope") c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope: "openid" }));
    if (err.code === "invalid_token") c.header("WWW-Authenticate", bearerChallenge(c, { error: "invalid_token", description: err.description }));
    return c.json({ error: err.code, error_description: err.description }, err.status);
  }
  logUnexpectedError("oauth", err, c);
  return c.json({ error: "server_error", error_description: DESCRIPTIONS.server_error }, 500);
}
