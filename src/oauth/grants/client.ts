import type { ApplicationRow } from "../../db/applications";
import type { Bindings } from "../../env";
import { OAuthError } from "../errors";
import { authenticateClient, authenticateClientRemembered, identifyClient, type AuthenticatedClient, type ClientCredentials } from "../request";

/**
 * The grant types a client may use (DESIGN, Agents: "every grant checks that the client registered
 * its grant type"; docs/oauth.md, Grant types per client). Applications created through the API
 * or the pages hold every grant GitLab serves, as GitLab's applications do (GitLab has no per-
 * application setting); a dynamic registration (RFC 7591) holds what it may register: the code
 * grant and its refresh tokens.
 */
export const DEVICE_CODE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** RFC 7523 §2.1 (an ID-JAG, MCP Enterprise-Managed Authorization). */
export const JWT_BEARER_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const APPLICATION_GRANT_TYPES: readonly string[] = [
  "authorization_code",
  "refresh_token",
  "password",
  DEVICE_CODE_GRANT_TYPE,
  "implicit",
  TOKEN_EXCHANGE_GRANT_TYPE,
  JWT_BEARER_GRANT_TYPE,
];
/** client_credentials (RFC 6749 §4.4) is for confidential clients only: a public one cannot prove who asks. */
export const CONFIDENTIAL_GRANT_TYPES: readonly string[] = [...APPLICATION_GRANT_TYPES, "client_credentials"];
export const REGISTERED_GRANT_TYPES: readonly string[] = ["authorization_code", "refresh_token"];

export function grantTypesOf(app: Pick<ApplicationRow, "dynamic" | "confidential">): readonly string[] {
  if (app.dynamic) return REGISTERED_GRANT_TYPES;
  return app.confidential ? CONFIDENTIAL_GRANT_TYPES : APPLICATION_GRANT_TYPES;
}

/** RFC 6749 §5.2: the authenticated client is not authorized to use this grant type. */
export function requireGrantType(app: Pick<ApplicationRow, "dynamic" | "confidential">, grantType: string): void {
  if (!grantTypesOf(app).includes(grantType)) throw new OAuthError("unauthorized_client", "The client is not authorized to use this grant type.", 400);
}

/**
 * How a grant needs its client: authenticated (confidential clients with their secret) or only
 * named. "remembered" is "identify" whose secret, once verified against D1, is remembered under
 * the validation cache's bound (authenticateClientRemembered): for the refresh grant, whose
 * family is the authority over the grant (deleting the application revokes it, and renewing the
 * secret or deleting the application answers only once no isolate remembers the old secret).
 */
export type ClientMode = "authenticate" | "identify" | "remembered";

/**
 * The client of a request for one grant type: identified or authenticated (src/oauth/request.ts),
 * then checked against its grant types. The token endpoint's dispatch hands this to every grant,
 * and the device authorization endpoint (RFC 8628 §3.1) calls it for the device grant.
 */
export async function clientForGrant(env: Bindings, creds: ClientCredentials, grantType: string, mode: ClientMode): Promise<AuthenticatedClient> {
  const client =
    mode === "authenticate"
      ? await authenticateClient(env, creds)
      : mode === "remembered" && creds.clientSecret
        ? await authenticateClientRemembered(env, creds)
        : await identifyClient(env, creds);
  requireGrantType(client.app, grantType);
  return client;
}
