import { and, eq, inArray, ne } from "drizzle-orm";
import { recordAudit } from "../db/audit";
import type { Db } from "../db/client";
import { oauthTokenFamilies } from "../db/schema/oauth";
import type { TokenFamily } from "../durable/token-family";
import type { Bindings } from "../env";
import { OAuthError } from "./errors";

export type FamilyRow = typeof oauthTokenFamilies.$inferSelect;

/** The family's Durable Object, addressed by the id every token of the family carries. */
export function familyStub(env: Bindings, fid: string): DurableObjectStub<TokenFamily> {
  const ns = env.TOKEN_FAMILY as unknown as DurableObjectNamespace<TokenFamily>;
  return ns.get(ns.idFromName(fid));
}

export async function insertFamilyRow(db: Db, row: typeof oauthTokenFamilies.$inferInsert): Promise<void> {
  await db.insert(oauthTokenFamilies).values(row);
}

export async function markFamilies(db: Db, ids: string[], status: "active" | "revoked", at: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(oauthTokenFamilies)
    .set(status === "revoked" ? { status, revokedAt: at } : { status })
    .where(and(inArray(oauthTokenFamilies.id, ids), ne(oauthTokenFamilies.status, "revoked")));
}

/** Families not yet revoked (pending codes included: revoking them kills the code too). */
export async function liveFamilies(db: Db, where: { userId?: number; applicationId?: number }): Promise<FamilyRow[]> {
  const conds = [ne(oauthTokenFamilies.status, "revoked")];
  if (where.userId !== undefined) conds.push(eq(oauthTokenFamilies.userId, where.userId));
  if (where.applicationId !== undefined) conds.push(eq(oauthTokenFamilies.applicationId, where.applicationId));
  return db.select().from(oauthTokenFamilies).where(and(...conds));
}

/**
 * A refused code exchange or refresh (the family's answer): invalid_client or invalid_grant. A
 * replay (code or superseded refresh token) has already revoked the family in its Durable Object;
 * D1 and the audit log follow.
 */
export async function refuseGrant(
  db: Db,
  result: { error: "invalid_grant" | "invalid_client"; reuse?: boolean },
  reuse: { action: "code_reuse" | "refresh_reuse"; fid: string; userId: number; applicationId: number | null; ip: string | null; now: number },
): Promise<never> {
  if (result.error === "invalid_client") throw new OAuthError("invalid_client");
  if (result.reuse) {
    await markFamilies(db, [reuse.fid], "revoked", reuse.now);
    await recordAudit(db, {
      action: reuse.action,
      authorId: reuse.userId,
      entityType: "oauth_token_family",
      entityId: reuse.fid,
      details: { application_id: reuse.applicationId, revoked: true },
      ip: reuse.ip,
    });
  }
  throw new OAuthError("invalid_grant");
}
