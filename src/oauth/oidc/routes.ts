import { Hono, type Context } from "hono";
import { AuthError } from "../../credentials/errors";
import type { AppEnv } from "../../env";
import { oauthAccessToken } from "../../credentials/oauth-access-token";
import { OAuthError, renderOAuthError } from "../errors";
import { issuerOf } from "../issuer";
import { readParams } from "../request";
import { groupClaims, groupMemberships, userClaims } from "./claims";
import { JWKS_MAX_AGE_SECONDS, publishedKeys } from "./keys";

/** /oauth/discovery/keys (GitLab's JWKS path) and /oauth/userinfo (OIDC Core §5.3). */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.get("/discovery/keys", async (c) => {
  c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({ keys: await publishedKeys(c.env) });
});

/** RFC 6750 §2.1 header, or §2.2 form body on POST; a token in the query string is not accepted here. */
async function bearer(c: Context<AppEnv>): Promise<string | null> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (m) return m[1];
  if (c.req.method === "POST" && (c.req.header("content-type") ?? "").includes("application/x-www-form-urlencoded")) {
    return (await readParams(c)).get("access_token") ?? null;
  }
  return null;
}

/** OIDC Core §5.3: an OAuth access token holding `openid`; claims by scope (docs/oidc.md, Claims). */
async function userinfo(c: Context<AppEnv>): Promise<Response> {
  const token = await bearer(c);
  if (!token) throw new OAuthError("invalid_token");
  let principal;
  try {
    principal = await oauthAccessToken.resolve(c.env, token);
  } catch (e) {
    if (e instanceof AuthError) throw new OAuthError("invalid_token");
    throw e;
  }
  if (principal.kind !== "oauth" || !principal.scopes.includes("openid")) throw new OAuthError("insufficient_scope");
  const groups = await groupMemberships(c.env, principal.user.id);
  c.header("Cache-Control", "no-store");
  return c.json({ ...(await userClaims(issuerOf(c), principal.user, principal.scopes)), ...groupClaims(groups) });
}

routes.get("/userinfo", userinfo);
routes.post("/userinfo", userinfo);

export default routes;
