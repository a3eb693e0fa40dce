import { Hono, type Context } from "hono";
import { RESOURCE_PATHS, resourceFor, resourceUrl } from "../domain/resources";
import { ALL_SCOPES, FORBIDDEN_SCOPES } from "../domain/scopes";
import type { AppEnv } from "../env";
import { issuerFor, issuerOf } from "./issuer";

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for each of this service's resources
 * (src/domain/resources.ts): the whole service at `/.well-known/oauth-protected-resource`, and by
 * §3.1's path rule `<issuer>/api/v4` and `<issuer>/api/graphql` at the path-suffixed URLs. Each
 * names this server as the authorization server that issues tokens for it.
 */
const routes = new Hono<AppEnv>();

const NAMES: Record<string, string> = { "": "GitLab", "/api/v4": "GitLab REST API", "/api/graphql": "GitLab GraphQL API" };
const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The metadata URL of the narrowest resource the request's path lies in: what its 401 names (§5.1). */
export function protectedResourceMetadataUrl(c: Context): string {
  return metadataUrlFor(issuerOf(c), c.req.url);
}

const metadataUrlFor = (issuer: string, url: string) => `${issuer}${WELL_KNOWN}${resourceFor(new URL(url).pathname)}`;

type BearerRefusal = { error?: "invalid_token" | "insufficient_scope"; description?: string; scope?: string };

/**
 * The WWW-Authenticate value of a Bearer refusal (RFC 6750 §3): the error, for insufficient_scope
 * the scopes that would do (§3.1, so a client can step up), and always resource_metadata (RFC 9728
 * §5.1), so a client that meets the refusal finds where to get a token for this resource.
 */
export function bearerChallenge(c: Context, refusal: BearerRefusal = {}): string {
  return bearerChallengeFor(c.env, c.req.url, refusal);
}

/** bearerChallenge for code that holds the bindings and the request's URL (the Plugin RPC handlers). */
export function bearerChallengeFor(env: Context["env"], url: string, refusal: BearerRefusal = {}): string {
  const parts = ['Bearer realm="GitLab"'];
  if (refusal.error) parts.push(`error="${refusal.error}"`);
  if (refusal.description) parts.push(`error_description="${refusal.description.replace(/["\\]/g, "")}"`);
  if (refusal.scope) parts.push(`scope="${refusal.scope}"`);
  parts.push(`resource_metadata="${metadataUrlFor(issuerFor(env, url), url)}"`);
  return parts.join(", ");
}

function metadata(c: Context<AppEnv>, path: string) {
  const issuer = issuerOf(c);
  return {
    resource: resourceUrl(issuer, path),
    authorization_servers: [issuer],
    // The scopes a client asks for to use the APIs (MCP clients request exactly these when the
    // 401 names none). Left out: the identity scopes (the authorization server's userinfo), and
    // sudo, which self-registered clients can never hold (registration/metadata.ts) and an
    // administrator's own application asks for by name.
    scopes_supported: ALL_SCOPES.filter((s) => !["openid", "profile", "email", ...FORBIDDEN_SCOPES].includes(s)),
    bearer_methods_supported: ["header", "query"],
    resource_name: NAMES[path],
  };
}

for (const path of RESOURCE_PATHS) {
  routes.get(`/oauth-protected-resource${path}`, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(metadata(c, path));
  });
}

export default routes;
