import { and, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "../db/client";
import { oauthTokenFamilies } from "../db/schema/oauth";
import type { TokenFamily } from "../durable/token-family";
import type { Bindings } from "../env";

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

export async function findFamilyRow(db: Db, id: string): Promise<FamilyRow | null> {
  const [row] = await db.select().from(oauthTokenFamilies).where(eq(oauthTokenFamilies.id, id)).limit(1);
  return row ?? null;
}

/** Families not yet revoked (pending codes included: revoking them kills the code too). */
export async function liveFamilies(db: Db, where: { userId?: number; applicationId?: number }): Promise<FamilyRow[]> {
  const conds = [ne(oauthTokenFamilies.status, "revoked")];
  if (where.userId !== undefined) conds.push(eq(oauthTokenFamilies.userId, where.userId));
  if (where.applicationId !== undefined) conds.push(eq(oauthTokenFamilies.applicationId, where.applicationId));
  return db.select().from(oauthTokenFamilies).where(and(...conds));
}
