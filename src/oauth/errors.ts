import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../credentials/errors";
import { isDpopError, dpopRefusalHeaders } from "../credentials/dpop-proof";
import { AppError, codeOfStatus, ERROR_STATUS, type ErrorCode } from "../domain/errors";
import { ThrottledError, rateLimitHeaders } from "../throttle";
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
  // RFC 6749 §4.1.2.1
  | "temporarily_unavailable"
  // RFC 8707 §2
  | "invalid_target"
  // RFC 9449 §5, §8
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  // RFC 9101 §7
  | "invalid_request_object"
  | "invalid_request_uri";

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
  temporarily_unavailable: "The authorization server is currently unable to handle the request.",
  invalid_target: "The requested resource is invalid, missing, unknown, or malformed.",
  invalid_dpop_proof: "The DPoP proof is invalid.",
  use_dpop_nonce: "A DPoP nonce is required: retry with the DPoP-Nonce value sent.",
  invalid_request_object: "The request parameter contains an invalid Request Object.",
  invalid_request_uri: "The request_uri is unknown, expired or was already used.",
};

/** The OAuth family's wire error: an RFC 6749 §5.2 code (and the extensions' codes) with its description. */
export class OAuthError extends AppError {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string = DESCRIPTIONS[error],
    /** invalid_client answered to an HTTP Basic attempt names that scheme (RFC 6749 §5.2). */
    status?: ContentfulStatusCode,
  ) {
    const s = status ?? (error === "invalid_client" || error === "invalid_token" ? 401 : error === "unauthorized_client" || error === "insufficient_scope" ? 403 : 400);
    super(codeOfStatus(s), description, { reason: error });
    this.status = s;
    this.name = "OAuthError";
  }
}

/** How an error of the family without an OAuth code of its own reads in OAuth's shape. */
const OAUTH_CODE: Record<ErrorCode, OAuthErrorCode> = {
  invalid: "invalid_request",
  unauthenticated: "invalid_token",
  forbidden: "access_denied",
  not_found: "invalid_request",
  conflict: "invalid_request",
  too_large: "invalid_request",
  unsupported: "invalid_request",
  unprocessable: "invalid_request",
  rate_limited: "slow_down",
  internal: "server_error",
  bad_gateway: "temporarily_unavailable",
  unavailable: "temporarily_unavailable",
};

/** Any error of the family as the OAuth error it is on this family's wire. */
function asOAuthError(err: AppError): OAuthError {
  if (err instanceof OAuthError) return err;
  // RFC 6750 §3.1: a refused bearer token is invalid_token, too few scopes insufficient_scope.
  if (err instanceof AuthError) return new OAuthError("invalid_token");
  if (err instanceof ScopeError) return new OAuthError("insufficient_scope");
  const code = OAUTH_CODE[err.code];
  return new OAuthError(code, err.message || DESCRIPTIONS[code], ERROR_STATUS[err.code]);
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
  if (err instanceof AppError && err.code !== "internal") {
    const o = asOAuthError(err);
    if (isDpopError(err)) {
      // RFC 9449 §7.1, §9: userinfo and token info refuse a DPoP request with the DPoP challenge.
      for (const [k, v] of Object.entries(dpopRefusalHeaders(err))) c.header(k, v);
      return c.json({ error: err.dpop.error, error_description: err.dpop.description }, 401);
    }
    if (o.error === "invalid_client") c.header("WWW-Authenticate", 'Basic realm="GitLab"');
    // The userinfo endpoint's refusals (the only insufficient_scope here is its openid).
    if (o.error === "insufficient_scope") c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope: "openid" }));
    if (o.error === "invalid_token") c.header("WWW-Authenticate", bearerChallenge(c, { error: "invalid_token", description: o.description }));
    return c.json({ error: o.error, error_description: o.description }, o.status);
  }
  logUnexpectedError("oauth", err, c);
  return c.json({ error: "server_error", error_description: DESCRIPTIONS.server_error }, 500);
}
