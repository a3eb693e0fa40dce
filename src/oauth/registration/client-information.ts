import type { ApplicationRow } from "../../db/applications";
import { authMethodOf } from "../../domain/client-key-set";
import { parseScopes, formatScopes } from "../../domain/scopes";

/** RFC 7592 §3: where a client reads, updates and deletes its registration. */
export const registrationClientUri = (issuer: string, clientId: string) => `${issuer}/oauth/register/${encodeURIComponent(clientId)}`;

/**
 * The client information response (RFC 7591 §3.2.1, RFC 7592 §3): what is registered, read from
 * the stored row, so registration, read and update answer the same document. The registration
 * access token is in it only when one was just issued (registration and update); storage keeps its hash.
 */
export function clientInformation(row: ApplicationRow, issuer: string, registrationAccessToken: string | null) {
  return {
    client_id: row.uid,
    client_id_issued_at: Math.floor(row.createdAt / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUri.split("\n"),
    token_endpoint_auth_method: authMethodOf(row),
    ...(row.jwks ? { jwks: JSON.parse(row.jwks) } : {}),
    ...(row.jwksUri ? { jwks_uri: row.jwksUri } : {}),
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    scope: formatScopes(parseScopes(row.scopes)),
    ...(row.applicationType ? { application_type: row.applicationType } : {}),
    dpop_bound_access_tokens: row.dpopBoundAccessTokens,
    require_pushed_authorization_requests: row.requirePushedAuthorizationRequests,
    ...(row.postLogoutRedirectUris ? { post_logout_redirect_uris: row.postLogoutRedirectUris.split("\n") } : {}),
    ...(row.backchannelLogoutUri
      ? { backchannel_logout_uri: row.backchannelLogoutUri, backchannel_logout_session_required: row.backchannelLogoutSessionRequired }
      : {}),
    ...(registrationAccessToken ? { registration_access_token: registrationAccessToken } : {}),
    registration_client_uri: registrationClientUri(issuer, row.uid),
  };
}
