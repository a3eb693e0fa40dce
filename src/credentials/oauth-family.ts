import type { AuditActor } from "../db/audit";
import { batchesOf } from "../db/batches";
import { getDb } from "../db/client";
import { activeFamilyIdsAfter, markFamiliesRevoked, type FamilyRevocationAudit } from "../db/oauth-grants";
import type { TokenFamily } from "../durable/token-family";
import type { Bindings } from "../env";
import { outlastValidationCache } from "./validation-cache";

/**
 * An OAuth grant's tokens form a family whose state lives in one Durable Object (DESIGN, Refresh
 * tokens 1), addressed by the id every token of the family carries; D1 keeps a directory row per
 * family (for listing a user's or an application's grants). Revocation acts on the object first,
 * because that is what every validation consults, then on the directory (src/db/oauth-grants.ts).
 */

export function familyStub(env: Bindings, fid: string): DurableObjectStub<TokenFamily> {
  const ns = env.TOKEN_FAMILY as unknown as DurableObjectNamespace<TokenFamily>;
  return ns.get(ns.idFromName(fid));
}

/**
 * Who revokes and why, as each family's audit row records it: `token_revoked` with a reason
 * (user_blocked, application_deleted, user_revoked_application, client_revoked, ...), or the
 * replay that revoked it (`code_reuse`, `refresh_reuse`, authored by the family's user).
 */
export interface RevokedBy {
  actor: AuditActor | null;
  reason: string;
  action?: FamilyRevocationAudit["action"];
  /** The client address when there is no actor (a client's /oauth/revoke). */
  ip?: string | null;
}

/**
 * The one revocation of grant families (DESIGN, "Changes that finish"): a user's block, an
 * application's deletion, a user revoking an application, a client's /oauth/revoke and replay
 * detection all end here. In slices of at most BATCH_SIZE families: the objects first (that is
 * what takes effect; revokeAll is idempotent), then the directory rows and one audit row per family
 * in one D1 batch (markFamiliesRevoked: only rows not revoked yet, so a retry after a crash writes
 * what is missing and nothing twice). Answers once no isolate can still remember one of their
 * tokens as valid (validation-cache.ts): each slice's wait starts when its objects answered.
 * Returns how many directory rows this call revoked.
 */
export async function revokeFamilies(env: Bindings, familyIds: readonly string[], by: RevokedBy): Promise<number> {
  if (familyIds.length === 0) return 0;
  const db = getDb(env.DB);
  const audit: FamilyRevocationAudit = {
    action: by.action ?? "token_revoked",
    reason: by.reason,
    authorId: by.actor?.id ?? null,
    impersonatorId: by.actor?.impersonatorId ?? null,
    ip: by.actor ? by.actor.ip : (by.ip ?? null),
  };
  const waits: Promise<void>[] = [];
  let revoked = 0;
  for (const slice of batchesOf([...new Set(familyIds)])) {
    const now = Date.now();
    waits.push(outlastValidationCache(env, await Promise.all(slice.map((id) => familyStub(env, id).revokeAll(now)))));
    revoked += await markFamiliesRevoked(db, slice, audit, now);
  }
  await Promise.all(waits);
  return revoked;
}

/**
 * For the integrity check: directory rows marked active whose Durable Object says the family is
 * revoked (a revocation whose D1 half never happened). One page of the walk: at most `limit` rows
 * after `afterId` (""), their objects asked in slices; `next` is null once the directory is done.
 * `revokeFamilies` repairs a finding (it writes only what is missing).
 */
export async function activeGrantsWhoseFamilyIsRevoked(env: Bindings, page: { afterId?: string; limit?: number } = {}): Promise<{ ids: string[]; next: string | null }> {
  const limit = page.limit ?? 500;
  const ids = await activeFamilyIdsAfter(getDb(env.DB), page.afterId ?? "", limit);
  const found: string[] = [];
  for (const slice of batchesOf(ids)) {
    const revoked = await Promise.all(slice.map((id) => familyStub(env, id).isRevoked()));
    slice.forEach((id, i) => revoked[i] === true && found.push(id));
  }
  return { ids: found, next: ids.length === limit ? ids[ids.length - 1] : null };
}
