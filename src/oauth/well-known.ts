import { Hono, type Context } from "hono";
import { ALL_SCOPES, OFFLINE_ACCESS } from "../domain/scopes";
import { CLIENT_SIGNING_ALGS, TOKEN_ENDPOINT_AUTH_METHODS } from "../domain/client-key-set";
import type { AppEnv } from "../env";
import { gate } from "../http/gate";
import { issuerOf } from "./issuer";
import { GRANTS } from "./grants";
import { JWT_BEARER_GRANT_TYPE } from "./grants/client";
import { getConfig } from "../config";
import { CLAIMS_SUPPORTED } from "./oidc/claims";
import { DPOP_SIGNING_ALGS } from "../credentials/dpop-proof";
import { REQUEST_OBJECT_SIGNING_ALGS } from "./request-object";

/**
 * RFC 8414 authorization server metadata at /.well-known/oauth-authorization-server and OpenID
 * Connect Discovery 1.0 at /.well-known/openid-configuration: one document served at both paths,
 * so the two always agree (RFC 8414 §2 registers the OIDC members too).
 */
const wellKnown = new Hono<AppEnv>();

function metadata(c: Context<AppEnv>) {
  const issuer = issuerOf(c);
  const implicit = !gate(c).isRemoved("oauth-implicit-grant");
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/oauth/discovery/keys`,
    device_authorization_endpoint: `${issuer}/oauth/authorize_device`,
    registration_endpoint: `${issuer}/oauth/register`,
    // OpenID Connect RP-Initiated Logout 1.0 §2.1 and Back-Channel Logout 1.0 §2.1 (docs/oidc.md,
    // "Signing out"); front-channel logout is not built, so it is not advertised.
    end_session_endpoint: `${issuer}/oauth/logout`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // offline_access is accepted and changes nothing (refresh tokens are always issued; domain/scopes.ts).
    scopes_supported: [...ALL_SCOPES, OFFLINE_ACCESS],
    response_types_supported: implicit ? ["code", "token"] : ["code"],
    response_modes_supported: implicit ? ["query", "fragment"] : ["query"],
    // jwt-bearer only once an administrator trusts an identity provider (TRUSTED_ID_JAG_ISSUERS).
    grant_types_supported: [
      ...Object.keys(GRANTS).filter((g) => g !== JWT_BEARER_GRANT_TYPE || getConfig(c.env).trustedIdJagIssuers.length > 0),
      ...(implicit ? ["implicit"] : []),
    ],
    // One client-authentication mechanism (src/oauth/request.ts) at every endpoint that authenticates clients.
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    introspection_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS.filter((m) => m !== "none"),
    introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    code_challenge_methods_supported: ["S256"],
    // RFC 9449 §5.1: DPoP proofs at the token endpoint and every resource door (docs/oauth.md).
    dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGS],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    claims_supported: CLAIMS_SUPPORTED,
    prompt_values_supported: ["none", "login", "consent"],
    claims_parameter_supported: false,
    // RFC 9101: signed request objects at authorize and PAR; a request_uri only as PAR's URN
    // (never fetched, so OIDC's request_uri_parameter_supported stays false).
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_SIGNING_ALGS],
    request_uri_parameter_supported: false,
    // RFC 9126 §5: pushed authorization requests; required per application, not for all.
    pushed_authorization_request_endpoint: `${issuer}/oauth/par`,
    require_pushed_authorization_requests: false,
    // draft-ietf-oauth-client-id-metadata-document: an https client_id names its metadata document (docs/agents.md).
    client_id_metadata_document_supported: true,
    // RFC 8414 §2 / OIDC Discovery §3: where a developer reads how to use this server.
    service_documentation: `${issuer}/help`,
  };
}

for (const path of ["/oauth-authorization-server", "/openid-configuration"]) {
  wellKnown.get(path, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(metadata(c));
  });
}

export default wellKnown;
