import { Hono, type Context } from "hono";
import { ALL_SCOPES } from "../domain/scopes";
import type { AppEnv } from "../env";
import { issuerOf } from "./issuer";

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the REST API: which authorization server
 * issues tokens for it and how they are sent. Served for the origin (the path DESIGN fixes, the one
 * /api/v4 401s point to) and, by §3.1's path rule, for the resource identifier `<issuer>/api/v4`.
 */
const routes = new Hono<AppEnv>();

export function protectedResourceMetadataUrl(c: Context): string {
  return `${issuerOf(c)}/.well-known/oauth-protected-resource`;
}

function metadata(c: Context<AppEnv>, resource: string) {
  const issuer = issuerOf(c);
  return {
    resource,
    authorization_servers: [issuer],
    // The API's scopes; the identity scopes are for the userinfo endpoint, not this resource.
    scopes_supported: ALL_SCOPES.filter((s) => !["openid", "profile", "email"].includes(s)),
    bearer_methods_supported: ["header", "query"],
    resource_name: "GitLab REST API",
  };
}

routes.get("/oauth-protected-resource", (c) => {
  c.header("Cache-Control", "public, max-age=300");
  c.header("Access-Control-Allow-Origin", "*");
  return c.json(metadata(c, issuerOf(c)));
});

routes.get("/oauth-protected-resource/api/v4", (c) => {
  c.header("Cache-Control", "public, max-age=300");
  c.header("Access-Control-Allow-Origin", "*");
  return c.json(metadata(c, `${issuerOf(c)}/api/v4`));
});

export default routes;
