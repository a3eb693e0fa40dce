import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { markFamilies, type TokenFamilyRow } from "../db/oauth-grants";
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
 * Revokes the families in their Durable Objects first (that is what takes effect), then in D1, and
 * answers once no isolate can still remember one of their tokens as valid (validation-cache.ts).
 */
export async function revokeFamilies(env: Bindings, families: TokenFamilyRow[], actor: AuditActor | null, reason: string): Promise<number> {
  if (families.length === 0) return 0;
  const now = Date.now();
  const settled = outlastValidationCache(env, await Promise.all(families.map((f) => familyStub(env, f.id).revokeAll(now))));
  const db = getDb(env.DB);
  await markFamilies(db, families.map((f) => f.id), "revoked", now);
  await Promise.all(
    families.map((f) =>
      recordAudit(db, {
        action: "token_revoked",
        actor,
        entityType: "oauth_token_family",
        entityId: f.id,
        details: { reason, application_id: f.applicationId, user_id: f.userId },
      }),
    ),
  );
  await settled;
  return families.length;
}
