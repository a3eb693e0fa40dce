import { revokePersonalAccessToken as revokeEverywhere } from "../credentials/personal-access-token";
import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { createPersonalAccessToken as insertToken, type PersonalAccessTokenRow } from "../db/personal-access-tokens";
import { validatePatInput, type PatErrors } from "../domain/pat-input";
import type { Bindings } from "../env";

/**
 * Personal access tokens as use cases, shared by the REST API (/api/v4/users/:id/personal_access_tokens,
 * /api/v4/personal_access_tokens) and /profile/personal_access_tokens. Who may act on whose token
 * is the caller's check (administrators: anyone's; users: their own).
 */

function audit(env: Bindings, actor: AuditActor, action: "personal_access_token_created" | "personal_access_token_revoked", pat: PersonalAccessTokenRow) {
  return recordAudit(getDb(env.DB), {
    action,
    actor,
    entityType: "personal_access_token",
    entityId: pat.id,
    details: { name: pat.name, user_id: pat.userId, scopes: pat.scopes },
  });
}

/** Creates a token for `userId`; the plaintext is in this answer only, storage keeps its hash. */
export async function createPersonalAccessToken(
  env: Bindings,
  actor: AuditActor,
  input: { userId: number; name: string; /** Parsed by the entry point (src/domain/scopes.ts). */ scopes: readonly string[]; expiresAt?: string },
): Promise<{ ok: true; token: string; row: PersonalAccessTokenRow } | { ok: false; errors: PatErrors }> {
  const checked = validatePatInput({ name: input.name, scopes: input.scopes, expiresAt: input.expiresAt });
  if (!checked.ok) return checked;
  const { token, row } = await insertToken(getDb(env.DB), { userId: input.userId, ...checked.value });
  await audit(env, actor, "personal_access_token_created", row);
  return { ok: true, token, row };
}

/**
 * Revokes the token everywhere (D1, then its object) and audits it. False when it was already
 * revoked or is gone (nothing is written then).
 */
export async function revokePersonalAccessToken(env: Bindings, actor: AuditActor, pat: PersonalAccessTokenRow): Promise<boolean> {
  if (pat.revoked) return false;
  if (!(await revokeEverywhere(env, pat.id, pat.userId))) return false;
  await audit(env, actor, "personal_access_token_revoked", pat);
  return true;
}
