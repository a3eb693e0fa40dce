import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { renderOAuthError } from "../errors";
import { JWKS_MAX_AGE_SECONDS, publishedKeys } from "./keys";

/** /oauth/discovery/keys (GitLab's JWKS path). */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.get("/discovery/keys", async (c) => {
  c.header("Cache-Control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({ keys: await publishedKeys(c.env) });
});

export default routes;
