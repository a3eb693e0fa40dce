import { Hono, type Context } from "hono";
import type { AppEnv } from "../../env";
import { frontDoor, type Door } from "../../credentials/front-door";
import { OAuthError, renderOAuthError } from "../errors";
import { issuerOf } from "../issuer";
import { groupClaims, groupMemberships, userClaims } from "./claims";
import { JWKS_MAX_AGE_SECONDS, publishedKeys } from "../../credentials/signing-keys";
import { rememberedFor } from "../../credentials/validation-cache";

/** /oauth/discovery/keys (GitLab's JWKS path) and /oauth/userinfo (OIDC Core §5.3). */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.get("/discovery/keys", async (c) => {
  c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({ keys: await publishedKeys(c.env, "oidc") });
});

/**
 * Userinfo's door: an OAuth access token in the RFC 6750 §2.1 header or the §2.2 form body (never
 * the query string); a failed token counts in failed_bearer like every token sent as a token, and
 * renderOAuthError answers it as RFC 6750 §3.1 invalid_token.
 */
const USERINFO_DOOR = {
  sources: ["bearer", "form"],
  accepts: ["oauth"],
  failures: { bucket: "failed_bearer" },
} as const satisfies Door;

/** OIDC Core §5.3: an OAuth access token holding `openid`; claims by scope (docs/oidc.md, Claims). */
async function userinfo(c: Context<AppEnv>): Promise<Response> {
  const principal = c.get("principal");
  if (!principal.scopes.includes("openid")) throw new OAuthError("insufficient_scope");
  // The same bound as the token's validation (DESIGN, Validation cache): a client polling userinfo
  // reads the memberships at most once per L per isolate.
  const groups = await rememberedFor(c.env, `userinfo-groups:${principal.tokenId}:${principal.user.id}`, principal.expiresAt, () =>
    groupMemberships(c.env, principal.user.id),
  );
  c.header("Cache-Control", "no-store");
  return c.json({ ...(await userClaims(issuerOf(c), principal.user, principal.scopes)), ...groupClaims(groups) });
}

routes.use("/userinfo", frontDoor(USERINFO_DOOR));
routes.get("/userinfo", userinfo);
routes.post("/userinfo", userinfo);

export default routes;
