import { Hono, type Context } from "hono";
import { getConfig } from "../config";
import { sha256Hex } from "../crypto/hash";
import { randomBytes, toBase64Url } from "../crypto/random";
import { getDb } from "../db/client";
import { savePushedRequest, takePushedRequest } from "../db/pushed-requests";
import type { AppEnv } from "../env";
import { gate } from "../http/gate";
import { checkAuthorizeRequest } from "./authorize-request";
import { tokenRequestProof } from "./dpop";
import { OAuthError, renderOAuthError } from "./errors";
import { issuerOf } from "./issuer";
import { authenticateClient, clientCredentials, countingSecretFailures, readParams } from "./request";
import { openRequestObject } from "./request-object";

/**
 * Pushed authorization requests (RFC 9126): POST /oauth/par takes an authorization request's
 * parameters from an authenticated client (as the token endpoint authenticates it, and with the
 * same throttle on wrong secrets), validates them as /oauth/authorize would, stores them and
 * answers a request_uri URN that /oauth/authorize takes once, within PUSHED_REQUEST_TTL_SECONDS.
 * A signed request object (RFC 9101, `request`) may be pushed instead of plain parameters, and a
 * DPoP proof binds the code to its key as dpop_jkt does (RFC 9449 §10.1).
 */
export const PUSHED_REQUEST_TTL_SECONDS = 60;
export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:([A-Za-z0-9_-]{43})$/;

/** Parameters of the PAR request that authenticate the client, not the authorization request. */
const CLIENT_AUTH_PARAMS = ["client_secret", "client_assertion", "client_assertion_type"];

const routes = new Hono<AppEnv>();
routes.onError(renderOAuthError);

routes.post("/par", async (c) => {
  const params = await readParams(c);
  const dpopJkt = await tokenRequestProof(c);
  const creds = clientCredentials(c, params);
  const client = await countingSecretFailures(c, creds, () => authenticateClient(c.env, creds));
  // §2.1: a pushed request never points at another request.
  if (params.has("request_uri")) throw new OAuthError("invalid_request", "request_uri cannot be pushed.");
  const issuer = issuerOf(c);
  const request = params.get("request");
  const pushed = request
    ? await openRequestObject(c.env, request, client.app, issuer)
    : new URLSearchParams([...params].filter(([name]) => !CLIENT_AUTH_PARAMS.includes(name)));
  pushed.set("client_id", client.app.uid);
  if (dpopJkt) {
    const named = pushed.get("dpop_jkt");
    if (named && named !== dpopJkt) throw new OAuthError("invalid_dpop_proof", "dpop_jkt differs from the DPoP proof's key.");
    pushed.set("dpop_jkt", dpopJkt);
  }
  // §2.1: the request is validated now, and its errors answered here as JSON.
  const check = checkAuthorizeRequest((n) => pushed.get(n) ?? undefined, client.app, {
    allowInsecureRedirects: getConfig(c.env).allowInsecureRedirects,
    implicitRemoved: gate(c).isRemoved("oauth-implicit-grant"),
    issuer,
    pushed: true,
  });
  if (check.kind !== "ok") throw new OAuthError(check.error, check.description);
  const id = toBase64Url(randomBytes(32));
  const now = Date.now();
  await savePushedRequest(getDb(c.env.DB), { idHash: await sha256Hex(id), applicationId: client.app.id, query: pushed.toString(), expiresAt: now + PUSHED_REQUEST_TTL_SECONDS * 1000 }, now);
  return c.json({ request_uri: `${REQUEST_URI_PREFIX}${id}`, expires_in: PUSHED_REQUEST_TTL_SECONDS }, 201, { "Cache-Control": "no-store" });
});

export default routes;

/** True for a request_uri this server issued the form of (it may still be unknown or used). */
export function isPushedRequestUri(value: string): boolean {
  return REQUEST_URI.test(value);
}

/**
 * /oauth/authorize's side (§4): the pushed parameters of `requestUri`, taken once, when the
 * request's client_id is the client that pushed them; null when unknown, expired, used or another
 * client's.
 */
export async function takePushedParams(c: Context<AppEnv>, requestUri: string, clientId: string | undefined): Promise<URLSearchParams | null> {
  const id = REQUEST_URI.exec(requestUri)?.[1];
  if (!id || !clientId) return null;
  const row = await takePushedRequest(getDb(c.env.DB), await sha256Hex(id));
  if (!row) return null;
  const params = new URLSearchParams(row.query);
  return params.get("client_id") === clientId ? params : null;
}
