import { getDb } from "../db/client";
import { markPersonalAccessTokenRevoked, PAT_PREFIX, touchPersonalAccessToken } from "../db/personal-access-tokens";
import type { PersonalAccessTokenState } from "../durable/personal-access-token";
import type { Bindings } from "../env";
import { AuthError } from "./errors";
import type { CredentialKind, Defer } from "./kind";
import { USER_SNAPSHOT_TTL_MS } from "./oauth-access-token";
import type { Principal } from "./principal";
import { bearerTokenHash } from "./token-hash";
import { outlastValidationCache, recall, remember, type SinceVouched } from "./validation-cache";

/** GitLab records a PAT's last use at most every 10 minutes, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

/**
 * Every PAT this service has issued is `glpat-` and 64 hex digits; GitLab's are 20 characters.
 * Anything else is refused before any storage is touched (no object is made for junk).
 */
const PAT_SHAPE = /^glpat-[A-Za-z0-9_-]{20,128}$/;

/** The token's object, addressed by its hash (docs/credentials.md, Personal access tokens). */
function patStub(env: Bindings, tokenHash: string): DurableObjectStub<PersonalAccessTokenState> {
  const ns = env.PERSONAL_ACCESS_TOKEN as unknown as DurableObjectNamespace<PersonalAccessTokenState>;
  return ns.get(ns.idFromName(`pat:${tokenHash}`));
}

/** One call to the token's object answers validity and the user (one storage hop). */
async function resolvePersonalAccessToken(env: Bindings, token: string, defer?: Defer): Promise<Principal> {
  if (!PAT_SHAPE.test(token)) throw new AuthError("invalid");
  // Taken before the object is asked, so a remembered answer ends no later than L after it vouched.
  const now = Date.now();
  const known = recall<Principal>(env, token, now);
  if (known) return { ...known };
  const tokenHash = await bearerTokenHash(token);
  const check = await patStub(env, tokenHash).validate({ tokenHash, now, userTtlMs: USER_SNAPSHOT_TTL_MS, touchEveryMs: LAST_USED_RESOLUTION_MS });
  if (!check.ok) throw new AuthError(check.reason);
  if (check.touch && defer) defer(touchPersonalAccessToken(getDb(env.DB), check.id, now));
  const principal: Principal = {
    kind: "personal_access_token",
    user: check.user,
    scopes: check.scopes,
    tokenId: String(check.id),
    applicationId: null,
    expiresAt: Date.parse(`${check.expiresAt}T23:59:59.999Z`),
  };
  remember(env, token, principal, now, principal.expiresAt);
  return { ...principal };
}

/**
 * Revokes a PAT (of that user, when given): D1 first (the directory and the source an object
 * loads from), then the token's object; once this returns the token is refused everywhere (it
 * waits out the validation cache's bound since the object last vouched for it).
 * False when there is no such token.
 */
export async function revokePersonalAccessToken(env: Bindings, id: number, userId?: number): Promise<boolean> {
  const hash = await markPersonalAccessTokenRevoked(getDb(env.DB), id, userId);
  if (hash === null) return false;
  await outlastValidationCache(env, [await patStub(env, hash).revoke()]);
  return true;
}

/** These PATs drop their copy of the user (a slice of a change's effects, src/services/changes/credential-steps.ts). */
export async function dropUserFromPersonalAccessTokenHashes(env: Bindings, hashes: readonly string[]): Promise<SinceVouched[]> {
  return Promise.all(hashes.map((h) => patStub(env, h).dropUser()));
}

/** Personal access tokens (`glpat-`, GitLab's prefix). */
export const personalAccessToken: CredentialKind = {
  name: "personal_access_token",
  prefix: PAT_PREFIX,
  resolve: resolvePersonalAccessToken,
};
