import { Hono } from "hono";
import { getDb } from "../../db/client";
import { displayUserCode, newUserCode } from "../../domain/user-code";
import { isScope, parseRequestedScopes, parseScopes } from "../../domain/scopes";
import { toBase64Url, randomBytes } from "../../crypto/random";
import type { AppEnv } from "../../env";
import { OAuthError, missingParam, renderOAuthError } from "../errors";
import { DEVICE_CODE_GRANT_TYPE, clientForGrant } from "../grants/client";
import { issuerOf } from "../issuer";
import { clientCredentials, countingSecretFailures, readParams } from "../request";
import { insertDeviceGrant } from "../../db/device-grants";
import { DEVICE_CODE_TTL_SECONDS, POLL_INTERVAL_SECONDS } from "../../domain/device-code";

/** POST /oauth/authorize_device: the device authorization request (RFC 8628 §3.1, §3.2; GitLab's path). */
const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.post("/authorize_device", async (c) => {
  const params = await readParams(c);
  const creds = clientCredentials(c, params);
  // The client is named by client_id or by HTTP Basic alone, as at the token endpoint (RFC 6749 §2.3.1).
  if (!creds.clientId) throw missingParam("client_id");
  const client = await countingSecretFailures(c, creds, () => clientForGrant(c.env, creds, DEVICE_CODE_GRANT_TYPE, "authenticate"));
  const registered = parseScopes(client.app.scopes);
  const requested = parseRequestedScopes(params.get("scope"));
  const scopes = requested.length > 0 ? requested : registered;
  if (scopes.length === 0 || !scopes.every((s) => isScope(s) && registered.includes(s))) throw new OAuthError("invalid_scope");
  const deviceCode = toBase64Url(randomBytes(32));
  const userCode = newUserCode();
  const now = Date.now();
  await insertDeviceGrant(c.env.DB, {
    deviceCode,
    userCode,
    applicationId: client.app.id,
    scopes,
    intervalSeconds: POLL_INTERVAL_SECONDS,
    expiresAt: now + DEVICE_CODE_TTL_SECONDS * 1000,
    now,
  });
  const verificationUri = `${issuerOf(c)}/oauth/device`;
  const shown = displayUserCode(userCode);
  return c.json(
    {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    },
    200,
    { "Cache-Control": "no-store" },
  );
});

export default routes;
