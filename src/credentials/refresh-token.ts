import { AuthError } from "./errors";
import type { CredentialKind } from "./kind";
import { REFRESH_PREFIX } from "./oauth-token-format";

/**
 * OAuth refresh tokens (`glort-`). They are spent only at /oauth/token (grant_type=refresh_token,
 * src/oauth/grants/refresh-token.ts, which rotates them in the family's Durable Object) and named
 * at /oauth/revoke and /oauth/introspect; as a bearer credential on an API they are refused, as
 * an unknown token is (RFC 6749 §1.5: a refresh token is never sent to a resource server).
 */
export const refreshToken: CredentialKind = {
  name: "refresh_token",
  prefix: REFRESH_PREFIX,
  resolve: async () => {
    throw new AuthError("invalid");
  },
};
