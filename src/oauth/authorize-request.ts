import type { ApplicationRow } from "../db/applications";
import { isValidS256Challenge } from "../domain/pkce";
import { matchesRegistered, registeredUris } from "../domain/redirect-uri";
import { isScope, OFFLINE_ACCESS, parseRequestedScopes, parseScopes } from "../domain/scopes";
import { DEFAULT_RESOURCE, resourcePathOf } from "../domain/resources";
import { DESCRIPTIONS, type OAuthErrorCode } from "./errors";
import { grantTypesOf } from "./grants/client";
import { readOidcParams, type OidcParams, type Query } from "./oidc/authorize-params";

/**
 * The pure validator of an authorization request (GET /oauth/authorize and the consent POST,
 * which re-validates everything it echoes). The order is the security model (DESIGN, convention
 * 5): until client and redirect_uri are known good, errors are shown, never redirected.
 */
export interface AuthorizeRequest {
  app: ApplicationRow;
  redirectUri: string;
  responseType: "code" | "token";
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  /** OpenID Connect: nonce, prompt, max_age (src/oauth/oidc/authorize-params.ts). */
  oidc: OidcParams;
  /** RFC 8707: the resource the grant is for (a path of src/domain/resources.ts; "" by default). */
  resource: string;
  /** The `resource` parameter as sent (echoed by the consent form), or null. */
  resourceIndicator: string | null;
  /** RFC 9449 §10: the thumbprint of the key the code is bound to (`dpop_jkt`), or null. */
  dpopJkt: string | null;
  /**
   * OpenID Connect Core §11: the request asked for `offline_access`. It grants nothing more here
   * (refresh tokens are always issued), but such a grant outlives the sign-out of the session that
   * approved it (docs/oidc.md, "Signing out").
   */
  offlineAccess: boolean;
}

export type AuthorizeCheck =
  | { kind: "show_error"; error: "invalid_client" | "invalid_redirect_uri" | "invalid_request"; description: string }
  | { kind: "redirect_error"; redirectUri: string; fragment: boolean; error: OAuthErrorCode; description: string; state: string | null }
  | { kind: "ok"; request: AuthorizeRequest };

export type { Query };

/**
 * The longest `state` accepted (docs/oauth.md). Doorkeeper has no limit; without one a client (or
 * an attacker crafting links) makes every redirect carry an arbitrarily large Location header.
 * 2 KB holds any CSRF nonce plus a return path.
 */
export const MAX_STATE_LENGTH = 2048;

const duplicate = (name: string) => `The request includes the parameter ${name} more than once.`;

export function checkAuthorizeRequest(
  q: Query,
  app: ApplicationRow | null,
  opts: {
    allowInsecureRedirects: boolean;
    implicitRemoved: boolean;
    /** Names sent more than once (RFC 6749 §3.1: parameters MUST NOT be included more than once). */
    repeated?: readonly string[];
    /** The issuer identifier: resource indicators are checked against it (src/domain/resources.ts). */
    issuer: string;
    /**
     * The parameters came from POST /oauth/par (RFC 9126), or from the consent form that such a
     * request showed; a client that requires pushed requests is refused anything else (§6).
     */
    pushed?: boolean;
  },
): AuthorizeCheck {
  const repeated = opts.repeated ?? [];
  // Which client or which redirect URI was meant is unknowable: shown, never redirected.
  for (const name of ["client_id", "redirect_uri"]) {
    if (repeated.includes(name)) return { kind: "show_error", error: "invalid_request", description: duplicate(name) };
  }
  if (!q("client_id") || !app) return { kind: "show_error", error: "invalid_client", description: DESCRIPTIONS.invalid_client };
  const redirectUri = q("redirect_uri");
  if (!redirectUri || !matchesRegistered(redirectUri, registeredUris(app.redirectUri), opts.allowInsecureRedirects)) {
    return {
      kind: "show_error",
      error: "invalid_redirect_uri",
      description: "The requested redirect uri is malformed or doesn't match client redirect URI.",
    };
  }
  const rawState = q("state") ?? null;
  // A repeated or oversized state is not echoed back.
  const state = repeated.includes("state") || (rawState !== null && rawState.length > MAX_STATE_LENGTH) ? null : rawState;
  const rawType = q("response_type");
  // Errors of an implicit request travel in the fragment (RFC 6749 §4.2.2.1) while it is served.
  const fragment = rawType === "token" && !opts.implicitRemoved;
  const fail = (error: OAuthErrorCode, description: string = DESCRIPTIONS[error]): AuthorizeCheck => ({
    kind: "redirect_error",
    redirectUri,
    fragment,
    error,
    description,
    state,
  });
  if (app.requirePushedAuthorizationRequests && !opts.pushed) return fail("invalid_request", "This client must push its authorization requests to the pushed authorization request endpoint.");
  // RFC 8707 §2 allows several resources; a token here is bound to exactly one (docs/agents.md).
  if (repeated.includes("resource")) return fail("invalid_target", "Only one resource may be requested.");
  if (repeated.length > 0) return fail("invalid_request", duplicate(repeated[0]));
  if (rawState !== null && rawState.length > MAX_STATE_LENGTH) return fail("invalid_request", `The state parameter is longer than ${MAX_STATE_LENGTH} characters.`);
  if (!rawType) return fail("invalid_request", "Missing required parameter: response_type.");
  if (rawType !== "code" && !(rawType === "token" && !opts.implicitRemoved)) return fail("unsupported_response_type");
  const responseType = rawType as "code" | "token";
  // RFC 6749 §4.1.2.1, §4.2.2.1: a client that does not hold the grant type (grants/client.ts).
  if (!grantTypesOf(app).includes(responseType === "code" ? "authorization_code" : "implicit")) return fail("unauthorized_client");
  // RFC 9101 and RFC 9126: `request` and a pushed request's URN were resolved into the parameters
  // before this check (src/oauth/authorize-params-source.ts); one left here is nested in a request
  // object, and a request_uri pointing elsewhere is never fetched: refused, never ignored.
  if (q("request") !== undefined) return fail("request_not_supported");
  if (q("request_uri") !== undefined) return fail("request_uri_not_supported");

  const registered = parseScopes(app.scopes);
  const requested = parseRequestedScopes(q("scope"));
  // Absent scope: the application's registered scopes (GitLab's default for the code flows).
  const scopes = requested.length > 0 ? requested : registered;
  if (scopes.length === 0 || !scopes.every((s) => isScope(s) && registered.includes(s))) return fail("invalid_scope");

  let codeChallenge: string | null = null;
  if (responseType === "code") {
    const challenge = q("code_challenge");
    const method = q("code_challenge_method");
    if (challenge) {
      // S256 only (DESIGN, PKCE); RFC 7636 §4.3 defaults to plain, so the method must be named.
      if (method !== "S256") return fail("invalid_request", "Code challenge method must be S256.");
      if (!isValidS256Challenge(challenge)) return fail("invalid_request", "Code challenge is malformed.");
      codeChallenge = challenge;
    } else if (method) {
      return fail("invalid_request", "Missing required parameter: code_challenge.");
    } else if (!app.confidential) {
      // Public clients cannot keep a secret, so PKCE is what binds the code to them.
      return fail("invalid_request", "Missing required parameter: code_challenge.");
    }
  }
  const resourceIndicator = q("resource") ?? null;
  const resource = resourceIndicator === null ? DEFAULT_RESOURCE : resourcePathOf(resourceIndicator, opts.issuer);
  if (resource === null) return fail("invalid_target", "The requested resource is not a resource of this server.");
  const oidc = readOidcParams(q);
  if (!oidc.ok) return fail("invalid_request", oidc.description);
  // RFC 9449 §10: a SHA-256 JWK thumbprint, base64url without padding (43 characters).
  const dpopJkt = q("dpop_jkt") ?? null;
  if (dpopJkt !== null && !/^[A-Za-z0-9_-]{43}$/.test(dpopJkt)) return fail("invalid_request", "dpop_jkt is not a JWK SHA-256 thumbprint.");
  // RFC 9449 §5.2: a client that requires DPoP gets no token it could not bind (the implicit grant's).
  if (responseType === "token" && app.dpopBoundAccessTokens) return fail("unauthorized_client", "This client requires DPoP-bound access tokens: use the authorization code flow.");
  return { kind: "ok", request: { app, redirectUri, responseType, scopes, state, codeChallenge, oidc: oidc.value, resource, resourceIndicator, dpopJkt, offlineAccess: parseScopes(q("scope")).includes(OFFLINE_ACCESS) } };
}

/** The redirect back to the client, with iss on every response (RFC 9207 §2). */
export function clientRedirect(redirectUri: string, params: Record<string, string | null | undefined>, fragment: boolean): string {
  const url = new URL(redirectUri);
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== null && e[1] !== undefined);
  if (fragment) {
    url.hash = new URLSearchParams(entries).toString();
  } else {
    for (const [k, v] of entries) url.searchParams.set(k, v);
  }
  return url.toString();
}
