import { and, asc, eq, gt, lte, ne, sql } from "drizzle-orm";
import type { Db } from "./client";
import { batchesOf } from "./batches";
import { notEndedByPendingChange } from "./grant-holder";
import { inIdList } from "./listing";
import { auditEvents } from "./schema/accounts";
import { applications } from "./schema/applications";
import { oauthTokenFamilies } from "./schema/oauth";

export type TokenFamilyRow = typeof oauthTokenFamilies.$inferSelect;

/** The user's live grants (none a pending change ends), each with its application's id, Application ID and name. */
export async function activeGrantsOfUser(
  db: Db,
  userId: number,
): Promise<{ family: TokenFamilyRow; app: { id: number; uid: string; name: string } }[]> {
  return db
    .select({ family: oauthTokenFamilies, app: { id: applications.id, uid: applications.uid, name: applications.name } })
    .from(oauthTokenFamilies)
    .innerJoin(applications, eq(applications.id, oauthTokenFamilies.applicationId))
    .where(and(eq(oauthTokenFamilies.userId, userId), eq(oauthTokenFamilies.status, "active"), notEndedByPendingChange()));
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
  audit: { authorId: number | null; details: Record<string, unknown>; ip: string | null; createdAt: number },
): Promise<void> {
  await db.batch([
    db.insert(oauthTokenFamilies).values(row).onConflictDoNothing(),
    // Every column of audit_events in its order (drizzle's insert-select).
    db.insert(auditEvents).select(
      sql`SELECT NULL, 'token_issued', ${audit.authorId}, NULL, 'oauth_token_family', ${row.id}, ${JSON.stringify(audit.details)}, ${audit.ip}, ${audit.createdAt} WHERE changes() = 1`,
    ),
  ]);
}

/**
 * The inserts of many families' directory rows, not yet run: statements of at most 10 rows (at
 * most 10 bound values each, one per column: within D1's 100 bound parameters whichever columns
 * are set), for one D1 batch.
 */
export function familyRowStatements(db: Db, rows: readonly (typeof oauthTokenFamilies.$inferInsert)[]) {
  return [...batchesOf(rows, 10)].map((slice) => db.insert(oauthTokenFamilies).values(slice));
}

/** Directory rows of many families at once (an import, or seeding at scale), in one D1 batch. */
export async function insertFamilyRows(db: Db, rows: (typeof oauthTokenFamilies.$inferInsert)[]): Promise<void> {
  const statements = familyRowStatements(db, rows);
  if (statements.length) await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
}

/** Marks a family exchanged (its code became tokens); a revoked row stays revoked. */
export async function markFamilyActive(db: Db, id: string): Promise<void> {
  await db
    .update(oauthTokenFamilies)
    .set({ status: "active" })
    .where(and(eq(oauthTokenFamilies.id, id), ne(oauthTokenFamilies.status, "revoked")));
}

/** Who and why, as the audit row of each revoked family records it (src/credentials/oauth-family.ts). */
export interface FamilyRevocationAudit {
  action: "token_revoked" | "code_reuse" | "refresh_reuse";
  reason: string;
  authorId: number | null;
  impersonatorId: number | null;
  ip: string | null;
}

/**
 * Marks the families revoked in the directory and writes one audit row for each that was not
 * revoked yet, in one D1 batch: a retry after a crash neither skips nor doubles a row. The ids are
 * one bound parameter (inIdList), so a slice of any size is one statement each. Answers how many
 * rows this call revoked.
 */
export async function markFamiliesRevoked(db: Db, ids: readonly string[], audit: FamilyRevocationAudit, at: number): Promise<number> {
  if (ids.length === 0) return 0;
  const live = and(inIdList(oauthTokenFamilies.id, ids), ne(oauthTokenFamilies.status, "revoked"));
  const [, revoked] = await db.batch([
    // Every column of audit_events in the table's order (drizzle lists them all); NULL id: the next rowid.
    db.insert(auditEvents).select(
      sql`SELECT NULL, ${audit.action}, ${audit.authorId}, ${audit.impersonatorId}, 'oauth_token_family', ${oauthTokenFamilies.id},
        json_object('reason', ${audit.reason}, 'application_id', ${oauthTokenFamilies.applicationId}, 'user_id', ${oauthTokenFamilies.userId}),
        ${audit.ip}, ${at} FROM ${oauthTokenFamilies} WHERE ${live}`,
    ),
    db.update(oauthTokenFamilies).set({ status: "revoked", revokedAt: at }).where(live).returning({ id: oauthTokenFamilies.id }),
  ]);
  return revoked.length;
}

/** Families not yet revoked (pending codes included: revoking them kills the code too). */
export async function liveFamilies(db: Db, where: { userId?: number; applicationId?: number }): Promise<TokenFamilyRow[]> {
  const conds = [ne(oauthTokenFamilies.status, "revoked")];
  if (where.userId !== undefined) conds.push(eq(oauthTokenFamilies.userId, where.userId));
  if (where.applicationId !== undefined) conds.push(eq(oauthTokenFamilies.applicationId, where.applicationId));
  return db.select().from(oauthTokenFamilies).where(and(...conds));
}

/** A page of `liveFamilies`' ids: in id order after `afterId` (""), at most `limit` (a slice of a change's effects, src/services/changes/slices.ts). */
export async function liveFamilyIdsAfter(
  db: Db,
  where: { userId?: number; applicationId?: number; ownerId?: number; madeUpTo?: number },
  afterId: string,
  limit: number,
): Promise<string[]> {
  const conds = [ne(oauthTokenFamilies.status, "revoked"), gt(oauthTokenFamilies.id, afterId)];
  if (where.userId !== undefined) conds.push(eq(oauthTokenFamilies.userId, where.userId));
  if (where.applicationId !== undefined) conds.push(eq(oauthTokenFamilies.applicationId, where.applicationId));
  // Only grants made up to a change's intent (a user still active may sign in again at once).
  if (where.madeUpTo !== undefined) conds.push(lte(oauthTokenFamilies.createdAt, where.madeUpTo));
  // Grants of the applications a user owns (their deletion, src/services/changes/user-deletion.ts).
  if (where.ownerId !== undefined) conds.push(sql`EXISTS (SELECT 1 FROM ${applications} WHERE ${applications.id} = ${oauthTokenFamilies.applicationId} AND ${applications.ownerId} = ${where.ownerId})`);
  const rows = await db.select({ id: oauthTokenFamilies.id }).from(oauthTokenFamilies).where(and(...conds)).orderBy(asc(oauthTokenFamilies.id)).limit(limit);
  return rows.map((r) => r.id);
}

/** Ids of directory rows marked active, in id order after `afterId`, at most `limit` (a page of the integrity check's walk). */
export async function activeFamilyIdsAfter(db: Db, afterId: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: oauthTokenFamilies.id })
    .from(oauthTokenFamilies)
    .where(and(eq(oauthTokenFamilies.status, "active"), gt(oauthTokenFamilies.id, afterId)))
    .orderBy(asc(oauthTokenFamilies.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Removes the row of a family whose code expired unexchanged (its object's alarm). */
export async function deletePendingFamilyRow(db: Db, id: string): Promise<void> {
  await db.delete(oauthTokenFamilies).where(and(eq(oauthTokenFamilies.id, id), eq(oauthTokenFamilies.status, "pending")));
}
