import { expiryForced } from "../credentials/oauth-access-token";
import { familyStub, revokeFamilies } from "../credentials/oauth-family";
import { familyOfToken, hashToken, parseAccessToken, parseRefreshToken, ACCESS_PREFIX, REFRESH_PREFIX } from "../credentials/oauth-token-format";
import { deleteSessionOfUser, findSession } from "../credentials/session";
import { sha256Hex } from "../crypto/hash";
import { findApplicationByRegistrationTokenHash, findApplicationBySecretHash, REGISTRATION_ACCESS_TOKEN_PREFIX, SECRET_PREFIX, type ApplicationRow } from "../db/applications";
import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { findDeployTokenBySecret, type DeployTokenRow } from "../db/deploy-tokens";
import { findPersonalAccessTokenByHash, PAT_PREFIX, type PersonalAccessTokenRow } from "../db/personal-access-tokens";
import { findRegistrationScope, findRunnerByToken, REGISTRATION_TOKEN_PREFIX, RUNNER_TOKEN_PREFIX, type RunnerRow } from "../db/runners";
import type { SessionRow } from "../db/sessions";
import type { UserRow } from "../db/users";
import { DEPLOY_TOKEN_PREFIX } from "../domain/deploy-token-input";
import type { FamilyView } from "../durable/token-family-state";
import type { Bindings } from "../env";
import { renewApplicationSecret, revokeRegistrationToken } from "./applications";
import { revokeDeployToken } from "./deploy-tokens";
import { revokePersonalAccessToken } from "./personal-access-tokens";
import { removeRunner } from "./runners";

/**
 * GitLab's Token information API (`POST`/`DELETE /api/v4/admin/token`) as use cases: find what a
 * token of any kind this service issues is, by its value alone, and end it by GitLab's rule for
 * the kind (docs/credentials.md, "Finding and revoking any token"). The kind is told by the
 * token's prefix (the table below), so one value costs one look-up; every store is asked by the
 * SHA-256 it keeps, never by the value. Each revocation is the kind's own function, which writes
 * its audit row (the administrator as actor); this module only adds the session's.
 */

/** The name GitLab's cookie would have; here, the session cookie of src/web/session.ts. */
export const SESSION_COOKIE_NAME = "_edge_auth_session";

export type FoundToken =
  | { kind: "personal_access_token"; pat: PersonalAccessTokenRow }
  | { kind: "oauth_access_token" | "oauth_refresh_token"; familyId: string; family: FamilyView & { active: boolean } }
  | { kind: "deploy_token"; deployToken: DeployTokenRow }
  | { kind: "oauth_application_secret" | "registration_access_token"; application: ApplicationRow }
  | { kind: "runner_authentication_token"; runner: RunnerRow }
  | { kind: "session_cookie"; session: SessionRow; user: UserRow };

/** A token of a kind this API does not handle (runner registration tokens, GitLab's choice too). */
export type Identified = FoundToken | { kind: "unsupported"; name: string } | null;

/** What DELETE did, GitLab's revoke-or-reset rule per kind. */
export type Revocation = "revoked" | "reset";

/** Kinds without a prefix are tried last: a session cookie's value is 64 hex digits, sent bare or as `name=value`. */
function sessionValue(token: string): string | null {
  const value = token.startsWith(`${SESSION_COOKIE_NAME}=`) ? token.slice(SESSION_COOKIE_NAME.length + 1) : token;
  return /^[0-9a-f]{64}$/.test(value) ? value : null;
}

async function oauthToken(env: Bindings, token: string): Promise<FoundToken | null> {
  const fid = familyOfToken(token);
  if (!fid) return null;
  const family = await familyStub(env, fid).describe({ tokenHash: await hashToken(token), now: Date.now(), fillExpiry: expiryForced(env) });
  if (!family) return null;
  return { kind: family.tokenType === "access_token" ? "oauth_access_token" : "oauth_refresh_token", familyId: fid, family };
}

/** The token's kind and its record; null when no token of a known kind has this value. */
export async function identifyToken(env: Bindings, token: string): Promise<Identified> {
  const db = getDb(env.DB);
  if (token.length > 1024) return null;
  if (token.startsWith(PAT_PREFIX)) {
    const found = await findPersonalAccessTokenByHash(db, await sha256Hex(token));
    return found ? { kind: "personal_access_token", pat: found.pat } : null;
  }
  if (token.startsWith(ACCESS_PREFIX) || token.startsWith(REFRESH_PREFIX)) {
    return parseAccessToken(token) || parseRefreshToken(token) ? oauthToken(env, token) : null;
  }
  if (token.startsWith(DEPLOY_TOKEN_PREFIX)) {
    const deployToken = await findDeployTokenBySecret(db, token);
    return deployToken ? { kind: "deploy_token", deployToken } : null;
  }
  if (token.startsWith(SECRET_PREFIX)) {
    const application = await findApplicationBySecretHash(db, await sha256Hex(token));
    return application ? { kind: "oauth_application_secret", application } : null;
  }
  if (token.startsWith(REGISTRATION_ACCESS_TOKEN_PREFIX)) {
    const application = await findApplicationByRegistrationTokenHash(db, await sha256Hex(token));
    return application ? { kind: "registration_access_token", application } : null;
  }
  if (token.startsWith(RUNNER_TOKEN_PREFIX)) {
    const runner = await findRunnerByToken(db, token);
    return runner ? { kind: "runner_authentication_token", runner } : null;
  }
  if (token.startsWith(REGISTRATION_TOKEN_PREFIX)) {
    return (await findRegistrationScope(db, token)) ? { kind: "unsupported", name: "runner_registration_token" } : null;
  }
  const cookie = sessionValue(token);
  if (cookie) {
    const found = await findSession(env, cookie);
    return found ? { kind: "session_cookie", session: found.row, user: found.user } : null;
  }
  return null;
}

/**
 * Ends the token by GitLab's rule for its kind: revoked (personal access and deploy tokens, OAuth
 * grants, registration access tokens, sessions; a runner is unregistered, as GitLab's revocation
 * of its authentication token does) or reset (an application's secret: a new one replaces it and
 * is shown to nobody, GitLab's rule). An OAuth access or refresh token ends its whole grant, as
 * RFC 7009 §2.1 allows, so no token of the leaked grant survives.
 */
export async function revokeFoundToken(env: Bindings, actor: AuditActor, found: FoundToken): Promise<Revocation> {
  switch (found.kind) {
    case "personal_access_token":
      await revokePersonalAccessToken(env, actor, found.pat);
      return "revoked";
    case "oauth_access_token":
    case "oauth_refresh_token":
      await revokeFamilies(env, [found.familyId], { actor, reason: "admin_token_revoked" });
      return "revoked";
    case "deploy_token":
      await revokeDeployToken(env, actor, found.deployToken);
      return "revoked";
    case "oauth_application_secret":
      await renewApplicationSecret(env, actor, found.application);
      return "reset";
    case "registration_access_token":
      await revokeRegistrationToken(env, actor, found.application);
      return "revoked";
    case "runner_authentication_token":
      await removeRunner(env, { actor }, found.runner);
      return "revoked";
    case "session_cookie":
      if (await deleteSessionOfUser(env, found.user.id, found.session.idHash)) {
        await recordAudit(getDb(env.DB), { action: "session_revoked", actor, entityType: "user", entityId: found.user.id, details: { by: "admin_token_api" } });
      }
      return "revoked";
  }
}
