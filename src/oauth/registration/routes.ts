import { Hono } from "hono";
import { getConfig } from "../../config";
import type { AppEnv } from "../../env";
import { createDynamicApplication } from "../../services/applications";
import { issuerOf } from "../issuer";
import { clientInformation } from "./client-information";
import configuration from "./configuration-routes";
import { renderOAuthError } from "../errors";
import { attemptKeys, attemptRefused, countAttempt } from "../throttle";
import { checkRegistration, readMetadataBody } from "./metadata";
import { clientAddress } from "../../http/client-address";

/**
 * POST /oauth/register (RFC 7591 §3; GitLab serves it for MCP clients). Open, JSON, throttled per
 * client address; the client is public and must use PKCE, or proves itself with its key
 * (private_key_jwt). The answer carries a registration access token with which the client reads,
 * updates and deletes its registration (RFC 7592, ./configuration-routes.ts).
 */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);
routes.route("/", configuration);

routes.post("/register", async (c) => {
  const ip = clientAddress(c.req.raw, c.env);
  const keys = attemptKeys(ip);
  const refused = await attemptRefused(c.env, "dynamic_registration", keys);
  if (refused) {
    c.header("Retry-After", String(refused.retryAfterSeconds));
    return c.json({ error: "slow_down", error_description: "Too many registrations from this address. Try again later." }, 429, { "Cache-Control": "no-store" });
  }
  const body = await readMetadataBody(c.req.raw);
  const config = getConfig(c.env);
  const reg = checkRegistration(body, config.allowInsecureRedirects, config.allowLoopbackClientMetadata);
  const { row, registrationToken } = await createDynamicApplication(c.env, ip, reg);
  await countAttempt(c.env, "dynamic_registration", keys);
  return c.json(clientInformation(row, issuerOf(c), registrationToken), 201, { "Cache-Control": "no-store" });
});

export default routes;
