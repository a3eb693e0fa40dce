import { Hono } from "hono";
import { ALL_SCOPES } from "../domain/scopes";
import type { AppEnv } from "../env";
import { gate } from "../versioning/gate";
import { issuerOf } from "./issuer";
import { GRANTS } from "./grants";

/** RFC 8414 authorization server metadata at /.well-known/oauth-authorization-server. */
const wellKnown = new Hono<AppEnv>();

wellKnown.get("/oauth-authorization-server", (c) => {
  const issuer = issuerOf(c);
  const implicit = !gate(c).isRemoved("oauth-implicit-grant");
  c.header("Cache-Control", "public, max-age=300");
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: implicit ? ["code", "token"] : ["code"],
    response_modes_supported: implicit ? ["query", "fragment"] : ["query"],
    grant_types_supported: [...Object.keys(GRANTS), ...(implicit ? ["implicit"] : [])],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
  });
});

export default wellKnown;
