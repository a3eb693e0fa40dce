import { validateApplicationInput, type ApplicationKeys } from "../../domain/application-input";
import type { LogoutSettings } from "../../domain/logout-settings";
import { cleanDisplayName } from "../../domain/display-name";
import { FORBIDDEN_SCOPES, parseRequestedScopes } from "../../domain/scopes";
import { isLoopback } from "../../domain/redirect-uri";
import { OAuthError } from "../errors";

/**
 * Client metadata of a dynamic registration (RFC 7591 §2), checked as GitLab does for MCP clients:
 * public clients (token_endpoint_auth_method none) or, as the MCP client-credentials extension
 * recommends, clients that prove themselves with a key (private_key_jwt with jwks or jwks_uri; no
 * secret is ever issued); the code grant with refresh, redirect URIs by the registration rules
 * (else invalid_redirect_uri), never sudo (else invalid_client_metadata).
 */
export const UNVERIFIED_PREFIX = "[Unverified Dynamic Application] ";
export const MAX_NAME_LENGTH = 200;
/** Without `scope`, a client gets read access to the API and the person's identity (docs/oidc.md). */
export const DEFAULT_SCOPES = ["read_api", "read_user", "openid", "profile", "email"];
const GRANT_TYPES = ["authorization_code", "refresh_token"];

export interface Registration extends ApplicationKeys, LogoutSettings {
  /** OpenID Connect Registration §2, when the client sent it. */
  applicationType: ApplicationType | null;
  name: string;
  redirectUris: string[];
  scopes: string[];
  clientName: string;
  /** RFC 9449 §5.2 dpop_bound_access_tokens: only DPoP-bound tokens for this client. */
  dpopBoundAccessTokens: boolean;
  /** RFC 9126 §6 require_pushed_authorization_requests. */
  requirePushedAuthorizationRequests: boolean;
}

export type ApplicationType = "web" | "native";

/**
 * OpenID Connect Dynamic Client Registration §2 `application_type` and each type's redirect URIs
 * (docs/oidc.md): a `native` client redirects to a loopback http URI (RFC 8252 §7.3), a private-use
 * scheme (§7.1) or https (§7.2 claimed URLs), never to http on another host; a `web` client to
 * https (http only where insecure redirects are allowed), never to a loopback host or a private-use
 * scheme. Without the member no type rule applies (GitLab's registration has none, and MCP
 * clients register loopback URIs without naming a type).
 */
function checkApplicationType(value: unknown, uris: readonly string[], allowInsecureRedirects: boolean): ApplicationType | null {
  if (value === undefined || value === null) return null;
  if (value !== "web" && value !== "native") throw bad("application_type must be web or native.");
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      continue; // the registration rules refuse it below, with their message
    }
    const loopback = isLoopback(url);
    const web = url.protocol === "https:" || (url.protocol === "http:" && !loopback && allowInsecureRedirects);
    const ok = value === "native" ? loopback || url.protocol === "https:" || !["http:", "https:"].includes(url.protocol) : web;
    if (!ok) throw new OAuthError("invalid_redirect_uri", `The redirect URI ${uri} is not allowed for a ${value} application.`);
  }
  return value;
}

const bad = (description: string) => new OAuthError("invalid_client_metadata", description);

function stringList(value: unknown, field: string): string[] | null {
  if (value === undefined || value === null) return null;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length > 20 || !list.every((v) => typeof v === "string")) throw bad(`${field} must be a string or an array of strings.`);
  return list as string[];
}

export function checkRegistration(body: unknown, allowInsecureRedirects: boolean, allowLoopbackKeys = false): Registration {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw bad("The request body must be a JSON object.");
  const m = body as Record<string, unknown>;
  const uris = stringList(m.redirect_uris, "redirect_uris");
  if (!uris || uris.length === 0) throw new OAuthError("invalid_redirect_uri", "At least one redirect URI is required.");
  // One URI per entry: a line break would smuggle a second one past the per-entry check.
  if (uris.some((u) => /\s/.test(u))) throw new OAuthError("invalid_redirect_uri", "A redirect URI cannot contain white space.");
  if (m.client_name !== undefined && typeof m.client_name !== "string") throw bad("client_name must be a string.");
  // A client that sends back the name it was given (RFC 7592 §2.2: an update repeats every field) keeps it, not the prefix twice.
  const sentName = cleanDisplayName((m.client_name as string | undefined) ?? "");
  const clientName = (sentName.startsWith(UNVERIFIED_PREFIX.trim()) ? cleanDisplayName(sentName.slice(UNVERIFIED_PREFIX.trim().length)) : sentName) || "Dynamic Application";
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== "none" && m.token_endpoint_auth_method !== "private_key_jwt") {
    throw bad("token_endpoint_auth_method must be none or private_key_jwt: no client secret is issued at registration.");
  }
  const keyed = m.token_endpoint_auth_method === "private_key_jwt";
  const grants = stringList(m.grant_types, "grant_types");
  if (grants && !grants.every((g) => GRANT_TYPES.includes(g))) throw bad("grant_types may hold authorization_code and refresh_token only.");
  const responses = stringList(m.response_types, "response_types");
  if (responses && !responses.every((r) => r === "code")) throw bad("response_types may hold code only.");
  if (m.scope !== undefined && typeof m.scope !== "string") throw bad("scope must be a space-separated string.");
  // Parsed once, by the one parser; the same list is checked here, validated below and stored.
  const parsed = parseRequestedScopes(m.scope as string | undefined);
  const requested = parsed.length > 0 ? parsed : DEFAULT_SCOPES;
  const forbidden = requested.filter((s) => FORBIDDEN_SCOPES.includes(s));
  if (forbidden.length > 0) throw bad(`The ${forbidden.join(", ")} scope cannot be registered dynamically.`);

  if (m.dpop_bound_access_tokens !== undefined && typeof m.dpop_bound_access_tokens !== "boolean") throw bad("dpop_bound_access_tokens must be a boolean.");
  const dpopBoundAccessTokens = m.dpop_bound_access_tokens === true;
  if (m.require_pushed_authorization_requests !== undefined && typeof m.require_pushed_authorization_requests !== "boolean") throw bad("require_pushed_authorization_requests must be a boolean.");
  const requirePushedAuthorizationRequests = m.require_pushed_authorization_requests === true;
  const applicationType = checkApplicationType(m.application_type, uris, allowInsecureRedirects);
  const name = (UNVERIFIED_PREFIX + clientName).slice(0, MAX_NAME_LENGTH);
  if (m.jwks_uri !== undefined && typeof m.jwks_uri !== "string") throw bad("jwks_uri must be a string.");
  // OpenID Connect RP-Initiated Logout §3.1 and Back-Channel Logout §2.2 (docs/oidc.md, "Signing out").
  const postLogoutRedirectUris = stringList(m.post_logout_redirect_uris, "post_logout_redirect_uris") ?? [];
  if (m.backchannel_logout_uri !== undefined && typeof m.backchannel_logout_uri !== "string") throw bad("backchannel_logout_uri must be a string.");
  if (m.backchannel_logout_session_required !== undefined && typeof m.backchannel_logout_session_required !== "boolean") {
    throw bad("backchannel_logout_session_required must be a boolean.");
  }
  const checked = validateApplicationInput(
    {
      name,
      redirectUri: uris.join("\n"),
      scopes: requested,
      jwks: m.jwks,
      jwksUri: m.jwks_uri as string | undefined,
      tokenEndpointAuthMethod: keyed ? "private_key_jwt" : null,
      confidential: keyed,
      postLogoutRedirectUris,
      backchannelLogoutUri: m.backchannel_logout_uri as string | undefined,
      backchannelLogoutSessionRequired: m.backchannel_logout_session_required === true,
    },
    allowInsecureRedirects,
    { allowLoopbackKeys },
  );
  if (!checked.ok) {
    if (checked.errors.redirect_uri) throw new OAuthError("invalid_redirect_uri", `redirect_uris ${checked.errors.redirect_uri[0]}`);
    if (checked.errors.scopes) throw bad(`scope ${checked.errors.scopes[0]}`);
    throw bad(Object.entries(checked.errors).map(([k, v]) => `${k} ${v![0]}`)[0]);
  }
  return {
    applicationType,
    name: checked.value.name,
    redirectUris: checked.value.redirectUri.split("\n"),
    scopes: checked.value.scopes,
    clientName,
    dpopBoundAccessTokens,
    requirePushedAuthorizationRequests,
    jwks: checked.value.jwks,
    jwksUri: checked.value.jwksUri,
    tokenEndpointAuthMethod: checked.value.tokenEndpointAuthMethod,
    postLogoutRedirectUris: checked.value.postLogoutRedirectUris,
    backchannelLogoutUri: checked.value.backchannelLogoutUri,
    backchannelLogoutSessionRequired: checked.value.backchannelLogoutSessionRequired,
  };
}

/** The client metadata of a registration or an update (RFC 7591 §3.1, RFC 7592 §2.2): a JSON body. */
export async function readMetadataBody(req: Request): Promise<unknown> {
  if (!(req.headers.get("content-type") ?? "").includes("application/json")) throw bad("Send the client metadata as JSON.");
  try {
    return await req.json();
  } catch {
    throw bad("The request body is not valid JSON.");
  }
}
