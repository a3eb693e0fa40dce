import { getDb } from "../db/client";
import { findPersonalAccessToken, isPatExpired, PAT_PREFIX, touchPersonalAccessToken } from "../db/personal-access-tokens";
import type { Bindings } from "../env";
import { AuthError } from "./errors";
import type { CredentialKind, Defer } from "./kind";
import type { Principal } from "./principal";

/** GitLab records a PAT's last use at most every 10 minutes, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

async function resolvePersonalAccessToken(env: Bindings, token: string, defer?: Defer): Promise<Principal> {
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

/** Personal access tokens (`glpat-`, GitLab's prefix). */
export const personalAccessToken: CredentialKind = {
  name: "personal_access_token",
  prefix: PAT_PREFIX,
  resolve: resolvePersonalAccessToken,
};
