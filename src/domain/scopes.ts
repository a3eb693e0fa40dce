/** The scope catalogue (GitLab's names and descriptions). */
export const SCOPES = {
  api: "Grants complete read/write access to the API, including all groups and projects, the container registry, and the package registry.",
  read_api: "Grants read access to the API, including all groups and projects, the container registry, and the package registry.",
  read_user: "Grants read-only access to the authenticated user's profile through the /user API endpoint.",
  read_repository: "Grants read-only access to repositories on private projects using Git-over-HTTP or the Repository Files API.",
  write_repository: "Grants read-write access to repositories on private projects using Git-over-HTTP (not using the API).",
  read_registry: "Grants read-only access to container registry images on private projects.",
  write_registry: "Grants write access to container registry images on private projects.",
  sudo: "Grants permission to perform API actions as any user in the system, when authenticated as an admin user.",
  openid: "Grants permission to authenticate with the service using OpenID Connect.",
  profile: "Grants read-only access to the user's profile data using OpenID Connect.",
  email: "Grants read-only access to the user's primary email address using OpenID Connect.",
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(s: string): s is Scope {
  return Object.hasOwn(SCOPES, s);
}

/*
 * The one scope parser and formatter (docs/security.md "Scopes"). Two grammars, as GitLab has them:
 *
 * - An OAuth scope string (RFC 6749 §3.3: scope-tokens separated by spaces): the `scope` parameter of
 *   authorize, token, device authorization and dynamic registration, the applications API's `scopes`
 *   string, and every scope string this service stores. Doorkeeper splits it on any run of ASCII white
 *   space, so tab and line breaks separate too. A `+` is a space only because form decoding made it
 *   one; a literal `+` or `,` (JSON, or `%2B`/`%2C` in a form) is part of a scope-token, so the token
 *   names no scope and the whole string is refused.
 * - A scope list (Grape's `Array[String]` with `CommaSeparatedToArray`): the `scopes` of the personal
 *   access token and deploy token APIs and every page's checkboxes: an array, each element a comma
 *   list, each part trimmed. White space inside a part is not a separator there.
 *
 * Every entry point parses with one of these, checks the parts with `checkScopes`, and stores exactly
 * the list it checked (formatted by `formatScopes`), so what is checked is what is stored.
 */

const OAUTH_SEPARATOR = /[\t\n\v\f\r ]+/;

/** Parses an OAuth scope string (RFC 6749 §3.3), or a stored one; duplicates dropped, order kept. */
export function parseScopes(value: string | null | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(OAUTH_SEPARATOR).filter(Boolean))];
}

/**
 * OpenID Connect Core §11's `offline_access`: "issue a refresh token". Refresh tokens are always
 * issued here (GitLab issues them with every code and device grant), so the scope is accepted in
 * every request and asks for nothing more: it is dropped before the scopes are checked, and is
 * never granted or echoed; a code grant that asked for it outlives its session's sign-out
 * (src/oauth/authorize-request.ts offlineAccess; docs/oidc.md, "Signing out").
 */
export const OFFLINE_ACCESS = "offline_access";

/** The scopes a client requests (authorize, device, token, registration): parseScopes less offline_access. */
export function parseRequestedScopes(value: string | null | undefined): string[] {
  return parseScopes(value).filter((s) => s !== OFFLINE_ACCESS);
}

/** Parses a REST/page scope list: an array (or one string), each element a comma list. */
export function parseScopeList(value: string | readonly string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  const elements = typeof value === "string" ? [value] : value;
  return [...new Set(elements.flatMap((e) => e.split(",")).map((p) => p.trim()).filter(Boolean))];
}

/** The stored and wire form: one space between scope-tokens (RFC 6749 §3.3). */
export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(" ");
}

export type ScopeCheck<S extends string> = { ok: true; scopes: S[] } | { ok: false; reason: "blank" | "unknown"; unknown: string[] };

/**
 * All or nothing: every part must be one of `allowed`, else the whole list is refused (never a partial
 * list stored). `allowed` defaults to the catalogue.
 */
export function checkScopes<S extends string = Scope>(parts: readonly string[], allowed: readonly S[] = ALL_SCOPES as unknown as S[]): ScopeCheck<S> {
  if (parts.length === 0) return { ok: false, reason: "blank", unknown: [] };
  const unknown = parts.filter((p) => !(allowed as readonly string[]).includes(p));
  if (unknown.length > 0) return { ok: false, reason: "unknown", unknown };
  return { ok: true, scopes: [...parts] as S[] };
}

/** True when the token holds at least one of the scopes a route accepts. */
export function hasAnyScope(held: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => held.includes(s));
}

/**
 * Scopes a self-registered client (RFC 7591, or a Client ID Metadata Document) may never hold:
 * acting as other users (`sudo`) and administrator mode (`admin_mode`, GitLab's; not in our
 * catalogue, named so that a later catalogue entry stays out of reach of anonymous registrations).
 * The protected resource metadata leaves them out of `scopes_supported` for the same reason.
 */
export const FORBIDDEN_SCOPES = ["sudo", "admin_mode"];
