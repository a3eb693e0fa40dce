import { isScope, parseRequestedScopes, parseScopes } from "../../domain/scopes";
import { OAuthError } from "../errors";
import { issueApplicationToken, tokenResponse } from "../issue";
import type { Grant } from "./types";

/**
 * grant_type=client_credentials (RFC 6749 §4.4; Doorkeeper serves it for GitLab; MCP's OAuth
 * client credentials extension): a confidential application asks for a token for itself. The
 * client must authenticate (secret or private_key_jwt) and hold the grant (confidential
 * applications of the API and the pages do, src/oauth/grants/client.ts); the token acts for no
 * user, carries only scopes the application was allowed (default: all of them except the
 * OpenID Connect ones, which describe a person), is bound to the requested resource (RFC 8707;
 * default the whole service) and never comes with a refresh token (§4.4.3). Audited as
 * token_issued with no author.
 */
const PERSON_SCOPES = ["openid", "profile", "email"];

export const clientCredentialsGrant: Grant = {
  required: [],
  reads: ["scope", "resource", "client_id", "client_secret", "client_assertion_type", "client_assertion"],
  async handle({ env, params, ip, resource, dpopJkt, client: clientOf }) {
    const client = await clientOf("authenticate");
    if (!client.authenticated) throw new OAuthError("invalid_client");
    const allowed = parseScopes(client.app.scopes);
    const requested = parseRequestedScopes(params.get("scope"));
    if (!requested.every(isScope) || requested.some((s) => !allowed.includes(s) || PERSON_SCOPES.includes(s))) {
      throw new OAuthError("invalid_scope", "client_credentials tokens carry only scopes the application was allowed, and no OpenID Connect scope.");
    }
    const scopes = requested.length > 0 ? requested : allowed.filter((s) => !PERSON_SCOPES.includes(s));
    if (scopes.length === 0) throw new OAuthError("invalid_scope");
    const { token, family } = await issueApplicationToken(env, { app: client.app, scopes, ip, resource, dpopJkt });
    return tokenResponse(family, { access: token }, family.accessCreatedAt, { createdAt: true });
  },
};
