import { getDb } from "../db/client";
import { findPersonalAccessToken, isPatExpired, PAT_PREFIX, touchPersonalAccessToken } from "../db/personal-access-tokens";
import type { Bindings } from "../env";
import { resolveOAuthAccessToken } from "../oauth/access-token-resolver";
import { AuthError, ScopeError } from "./errors";
import type { Principal } from "./principal";
import { hasAnyScope } from "../domain/scopes";

/** GitLab records a PAT's last use at most every 10 minutes, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

/**
 * Turns a raw token into the principal it acts for, or throws AuthError. Used by every API family
 * (REST, GraphQL, Plugin RPC, git); each renders the failure in its own shape.
 */
export async function resolveToken(
  env: Bindings,
  token: string | null,
  defer?: (p: Promise<unknown>) => void,
): Promise<Principal> {
  if (!token) throw new AuthError("missing");
  if (token.startsWith(PAT_PREFIX)) return resolvePersonalAccessToken(env, token, defer);
  return resolveOAuthAccessToken(env, token);
}

async function resolvePersonalAccessToken(
  env: Bindings,
  token: string,
  defer?: (p: Promise<unknown>) => void,
): Promise<Principal> {
  const db = getDb(env.DB);
  const found = await findPersonalAccessToken(db, token);
  if (!found) throw new AuthError("invalid");
  const { pat, user } = found;
  const now = Date.now();
  if (pat.revoked) throw new AuthError("revoked");
  if (isPatExpired(pat.expiresAt, now)) throw new AuthError("expired");
  if (user.state !== "active") throw new AuthError("blocked");
  if (defer && (pat.lastUsedAt === null || now - pat.lastUsedAt > LAST_USED_RESOLUTION_MS)) {
    defer(touchPersonalAccessToken(db, pat.id, now));
  }
  return {
    kind: "personal_access_token",
    user,
    scopes: pat.scopes.split(" ").filter(Boolean),
    tokenId: String(pat.id),
    applicationId: null,
    expiresAt: Date.parse(`${pat.expiresAt}T23:59:59.999Z`),
  };
}

export function requireScopes(principal: Principal, accepted: readonly string[]): void {
  if (!hasAnyScope(principal.scopes, accepted)) throw new ScopeError(accepted);
}
