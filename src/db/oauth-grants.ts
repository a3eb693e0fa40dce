import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "./client";
import { auditEvents } from "./schema/accounts";
import { applications } from "./schema/applications";
import { oauthTokenFamilies } from "./schema/oauth";

export type TokenFamilyRow = typeof oauthTokenFamilies.$inferSelect;

/** The user's live grants, each with its application's id, Application ID and name. */
export async function activeGrantsOfUser(
  db: Db,
  userId: number,
): Promise<{ family: TokenFamilyRow; app: { id: number; uid: string; name: string } }[]> {
  return db
    .select({ family: oauthTokenFamilies, app: { id: applications.id, uid: applications.uid, name: applications.name } })
    .from(oauthTokenFamilies)
    .innerJoin(applications, eq(applications.id, oauthTokenFamilies.applicationId))
    .where(and(eq(oauthTokenFamilies.userId, userId), eq(oauthTokenFamilies.status, "active")));
}

/**
 * The directory row of a new token family (D1 keeps one per grant for listing a user's or an
 * application's grants; the family's state lives in its Durable Object, DESIGN Refresh tokens 1).
 */
export async function insertFamilyRow(db: Db, row: typeof oauthTokenFamilies.$inferInsert): Promise<void> {
  await db.insert(oauthTokenFamilies).values(row);
}

/**
 * The directory row of a family whose issue may be retried (a device code's redeeming poll, retried
 * after a crash), with its `token_issued` audit row, in one batch: the audit row is written only by
 * the batch that inserted the family row (SQLite's changes() of the insert before it), so a retry
 * of the same issue writes neither twice.
 */
export async function insertFamilyRowOnce(
  db: Db,
  row: typeof oauthTokenFamilies.$inferInsert,
  audit: { authorId: number; details: Record<string, unknown>; ip: string | null; createdAt: number },
): Promise<void> {
  await db.batch([
    db.insert(oauthTokenFamilies).values(row).onConflictDoNothing(),
    // Every column of audit_events in its order (drizzle's insert-select).
    db.insert(auditEvents).select(
      sql`SELECT NULL, 'token_issued', ${audit.authorId}, NULL, 'oauth_token_family', ${row.id}, ${JSON.stringify(audit.details)}, ${audit.ip}, ${audit.createdAt} WHERE changes() = 1`,
    ),
  ]);
}

/** Sets the families' directory status; a revoked row stays revoked. */
export async function markFamilies(db: Db, ids: string[], status: "active" | "revoked", at: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(oauthTokenFamilies)
    .set(status === "revoked" ? { status, revokedAt: at } : { status })
    .where(and(inArray(oauthTokenFamilies.id, ids), ne(oauthTokenFamilies.status, "revoked")));
}

/** Families not yet revoked (pending codes included: revoking them kills the code too). */
export async function liveFamilies(db: Db, where: { userId?: number; applicationId?: number }): Promise<TokenFamilyRow[]> {
  const conds = [ne(oauthTokenFamilies.status, "revoked")];
  if (where.userId !== undefined) conds.push(eq(oauthTokenFamilies.userId, where.userId));
  if (where.applicationId !== undefined) conds.push(eq(oauthTokenFamilies.applicationId, where.applicationId));
  return db.select().from(oauthTokenFamilies).where(and(...conds));
}

/** Removes the row of a family whose code expired unexchanged (its object's alarm). */
export async function deletePendingFamilyRow(db: Db, id: string): Promise<void> {
  await db.delete(oauthTokenFamilies).where(and(eq(oauthTokenFamilies.id, id), eq(oauthTokenFamilies.status, "pending")));
}
