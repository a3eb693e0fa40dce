import { passwordExpired } from "../../services/accounts/password-expiry";
import { LOGIN_FAILURES, verifyPasswordLogin } from "../../services/accounts/password-login";
import { reasonOf } from "../../domain/errors";
import { isScope, parseRequestedScopes, parseScopes } from "../../domain/scopes";
import { OAuthError } from "../errors";
import { issueAccessOnly, tokenResponse } from "../issue";
import type { Grant } from "./types";

/**
 * grant_type=password (spec): username and password, optionally HTTP Basic client credentials;
 * default scope api; refused (invalid_grant) for two-factor users and locked or blocked users; the
 * lockout (10 failures, 10 minutes) is verifyPasswordLogin's. The response carries neither
 * refresh_token nor created_at (spec, Token response).
 */
export const DEFAULT_PASSWORD_SCOPES = ["api"];

export const passwordGrant: Grant = {
  required: ["username", "password"],
  reads: ["username", "password", "scope", "client_id", "client_secret", "resource"],
  async handle({ env, params, creds, ip, resource, client: clientOf }) {
    // Without a client the grant is GitLab's password grant for the user alone.
    const client = creds.clientId ? await clientOf("authenticate") : null;
    const requested = parseRequestedScopes(params.get("scope"));
    const scopes = requested.length > 0 ? requested : DEFAULT_PASSWORD_SCOPES;
    if (!scopes.every(isScope)) throw new OAuthError("invalid_scope");
    if (client) {
      const allowed = parseScopes(client.app.scopes);
      if (!scopes.every((s) => allowed.includes(s))) throw new OAuthError("invalid_scope");
    }
    let user;
    try {
      user = await verifyPasswordLogin(env, params.get("username")!, params.get("password")!, ip);
    } catch (e) {
      // RFC 6749 §5.2: a refused resource owner password is invalid_grant.
      if (reasonOf(e, LOGIN_FAILURES)) throw new OAuthError("invalid_grant");
      throw e;
    }
    // Two-factor users use personal access tokens instead (spec, Authentication 3).
    if (user.otpRequired) throw new OAuthError("invalid_grant");
    // A password an administrator set is only good for choosing one's own on the web (GitLab's
    // password_expired?): it gives no token until then.
    if (passwordExpired(user)) throw new OAuthError("invalid_grant", "Your password expired. Sign in on the web to choose a new one.");
    const { token, family } = await issueAccessOnly(env, { app: client?.app ?? null, userId: user.id, scopes, grantType: "password", ip, user, resource });
    return tokenResponse(family, { access: token }, family.accessCreatedAt, { createdAt: false });
  },
};
