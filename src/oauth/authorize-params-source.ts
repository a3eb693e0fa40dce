import type { Context } from "hono";
import type { AppEnv } from "../env";
import { clientAddress } from "../http/client-address";
import { findAuthorizeClient } from "./client-metadata/resolve";
import { DESCRIPTIONS, OAuthError } from "./errors";
import { issuerOf } from "./issuer";
import { isPushedRequestUri, takePushedParams } from "./par";
import { openRequestObject } from "./request-object";

/**
 * Where an authorization request's parameters come from: the query itself, a pushed request
 * named by its URN (RFC 9126 §4, taken once), or a signed request object (RFC 9101 §6.3: its
 * parameters alone). A request whose source cannot be trusted is shown an error, never
 * redirected: its redirect_uri is not known to be the client's.
 */
export type ParamsSource =
  | { ok: true; params: URLSearchParams; pushed: boolean }
  | { ok: false; error: "invalid_request_uri" | "invalid_request_object" | "invalid_client"; description: string };

export async function authorizationParams(c: Context<AppEnv>, query: URLSearchParams): Promise<ParamsSource> {
  const requestUri = query.get("request_uri");
  const clientId = query.get("client_id") ?? undefined;
  if (requestUri !== null && isPushedRequestUri(requestUri)) {
    const pushed = await takePushedParams(c, requestUri, clientId);
    return pushed ? { ok: true, params: pushed, pushed: true } : { ok: false, error: "invalid_request_uri", description: DESCRIPTIONS.invalid_request_uri };
  }
  const request = query.get("request");
  if (request === null || requestUri !== null) return { ok: true, params: query, pushed: false };
  try {
    const app = clientId ? await findAuthorizeClient(c.env, clientId, clientAddress(c.req.raw, c.env)) : null;
    if (!app) return { ok: false, error: "invalid_client", description: DESCRIPTIONS.invalid_client };
    return { ok: true, params: await openRequestObject(c.env, request, app, issuerOf(c)), pushed: false };
  } catch (e) {
    if (e instanceof OAuthError) return { ok: false, error: e.error === "invalid_client" ? "invalid_client" : "invalid_request_object", description: e.description };
    throw e;
  }
}
