/**
 * This service's protected resources (RFC 8707 resource indicators, RFC 9728 protected resource
 * metadata; docs/agents.md, "Resources"). A resource is named by its path under the issuer: ""
 * is the whole service (every API: REST, GraphQL, userinfo, registry API, git, Plugin RPC) and the
 * default of every grant; "/api/v4" and "/api/graphql" are the REST and GraphQL APIs alone.
 * Tokens are bound to exactly one of them (their audience); a token bound to a narrower resource
 * is accepted only under its path. Any other resource, on this host or another, is not allowed
 * (invalid_target).
 */
export const RESOURCE_PATHS: readonly string[] = ["", "/api/v4", "/api/graphql"];

/** The whole service: the resource of a grant that names none, and of grants made before resources. */
export const DEFAULT_RESOURCE = "";

/**
 * The resource path a `resource` parameter names, or null when it is not one of this service's
 * resources. RFC 8707 §2: an absolute URI without fragment; a trailing slash is ignored (clients
 * derive the root resource from a URL, `https://host/`). No query is allowed either.
 */
export function resourcePathOf(resource: string, issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.hash || resource.includes("#") || url.search || url.username || url.password) return null;
  const normal = url.href.replace(/\/$/, "");
  if (!normal.startsWith(issuer)) return null;
  const path = normal.slice(issuer.length);
  return RESOURCE_PATHS.includes(path) ? path : null;
}

/** The narrowest of this service's resources a request path lies in (its 401 names that one's metadata). */
export function resourceFor(pathname: string): string {
  return RESOURCE_PATHS.filter((r) => resourceCovers(r, pathname)).reduce((a, b) => (b.length > a.length ? b : a), DEFAULT_RESOURCE);
}

/** A resource indicator as sent on the wire: the issuer followed by the path. */
export function resourceUrl(issuer: string, path: string): string {
  return `${issuer}${path}`;
}

/** `requested` lies within `granted`: a refresh or exchange may narrow to it, never widen. */
export function resourceCovers(granted: string, requested: string): boolean {
  return granted === "" || requested === granted || requested.startsWith(`${granted}/`);
}

/** A token bound to `resource` may be used for a request to `pathname` (the audience check). */
export function audienceAdmits(resource: string, pathname: string): boolean {
  return resourceCovers(resource, pathname);
}
