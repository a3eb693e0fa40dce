import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { selectInBatches } from "./batches";
import type { Db } from "./client";
import { pageAndCount, type Page } from "./page";
import { users } from "./schema/accounts";
import { mergeRequests, statusCheckResponses, statusChecks } from "./schema/merge-requests";

export type MergeRequestRow = typeof mergeRequests.$inferSelect;
export type StatusCheckRow = typeof statusChecks.$inferSelect;

export async function createMergeRequest(
  db: Db,
  input: { projectId: number; title: string; description: string; sourceBranch: string; targetBranch: string; authorId: number; assigneeId: number | null; labels: string; sha: string },
): Promise<MergeRequestRow> {
  const now = Date.now();
  // iid = the project's next number, computed in the insert itself so concurrent creations cannot share one (unique index).
  const [row] = await db
    .insert(mergeRequests)
    .values({
      ...input,
      iid: sql`(SELECT coalesce(max(iid), 0) + 1 FROM merge_requests WHERE project_id = ${input.projectId})`,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row;
}

export async function findMergeRequest(db: Db, projectId: number, iid: number): Promise<MergeRequestRow | null> {
  const [row] = await db.select().from(mergeRequests).where(and(eq(mergeRequests.projectId, projectId), eq(mergeRequests.iid, iid))).limit(1);
  return row ?? null;
}

const ORDER = { created_at: mergeRequests.createdAt, updated_at: mergeRequests.updatedAt, title: mergeRequests.title } as const;

/** A merge request listing's filters, as plain values (REST and GraphQL parse their own parameters). */
export interface MergeRequestFilter {
  /** A state, or "all" / absent for every state. */
  state?: string;
  /** Case-insensitive part of the title. */
  search?: string;
  sourceBranch?: string;
  targetBranch?: string;
}

function filterConditions(f: MergeRequestFilter): SQL[] {
  const where: SQL[] = [];
  if (f.state && f.state !== "all") where.push(eq(mergeRequests.state, f.state));
  if (f.search) where.push(sql`lower(${mergeRequests.title}) LIKE ${`%${f.search.toLowerCase()}%`}`);
  if (f.sourceBranch) where.push(eq(mergeRequests.sourceBranch, f.sourceBranch));
  if (f.targetBranch) where.push(eq(mergeRequests.targetBranch, f.targetBranch));
  return where;
}

/** A page of a project's merge requests and their number, in one round trip (pageAndCount). */
export async function listMergeRequests(
  db: Db,
  projectId: number,
  o: { filter: MergeRequestFilter; orderBy: keyof typeof ORDER; sort: "asc" | "desc"; limit: number; offset: number },
): Promise<Page<MergeRequestRow>> {
  const cond = and(eq(mergeRequests.projectId, projectId), ...filterConditions(o.filter));
  const dir = o.sort === "asc" ? asc : desc;
  return pageAndCount<MergeRequestRow>(
    db,
    db.select().from(mergeRequests).where(cond).orderBy(dir(ORDER[o.orderBy]), dir(mergeRequests.id)).limit(o.limit).offset(o.offset),
    db.select({ n: sql<number>`count(*)` }).from(mergeRequests).where(cond),
  );
}

export async function updateMergeRequest(db: Db, id: number, patch: Partial<MergeRequestRow>): Promise<MergeRequestRow> {
  const [row] = await db.update(mergeRequests).set({ ...patch, updatedAt: Date.now() }).where(eq(mergeRequests.id, id)).returning();
  return row;
}

/** Merges only an opened merge request (a conditional update: two merges cannot both succeed). */
export async function mergeMergeRequest(db: Db, id: number, userId: number, mergeCommitSha: string): Promise<MergeRequestRow | null> {
  const now = Date.now();
  const [row] = await db
    .update(mergeRequests)
    .set({ state: "merged", mergeUserId: userId, mergedAt: now, mergeCommitSha, updatedAt: now })
    .where(and(eq(mergeRequests.id, id), eq(mergeRequests.state, "opened")))
    .returning();
  return row ?? null;
}

export async function usersById(db: Db, ids: (number | null)[]) {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (!wanted.length) return new Map<number, { id: number; username: string; name: string; state: string }>();
  const rows = await selectInBatches(wanted, (slice) =>
    db.select({ id: users.id, username: users.username, name: users.name, state: users.state }).from(users).where(inArray(users.id, slice)),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

// External status checks

export async function createStatusCheck(db: Db, projectId: number, name: string, externalUrl: string): Promise<StatusCheckRow> {
  const [row] = await db.insert(statusChecks).values({ projectId, name, externalUrl, createdAt: Date.now() }).returning();
  return row;
}

export async function listStatusChecks(db: Db, projectId: number): Promise<StatusCheckRow[]> {
  return db.select().from(statusChecks).where(eq(statusChecks.projectId, projectId)).orderBy(asc(statusChecks.id));
}

export async function findStatusCheck(db: Db, projectId: number, id: number): Promise<StatusCheckRow | null> {
  const [row] = await db.select().from(statusChecks).where(and(eq(statusChecks.projectId, projectId), eq(statusChecks.id, id))).limit(1);
  return row ?? null;
}

export async function updateStatusCheck(db: Db, id: number, patch: { name?: string; externalUrl?: string }): Promise<StatusCheckRow> {
  const [row] = await db.update(statusChecks).set(patch).where(eq(statusChecks.id, id)).returning();
  return row;
}

export async function deleteStatusCheck(db: Db, id: number): Promise<void> {
  await db.batch([db.delete(statusCheckResponses).where(eq(statusCheckResponses.statusCheckId, id)), db.delete(statusChecks).where(eq(statusChecks.id, id))]);
}

export async function recordStatusCheckResponse(db: Db, mergeRequestId: number, statusCheckId: number, sha: string, status: string) {
  const [row] = await db.insert(statusCheckResponses).values({ mergeRequestId, statusCheckId, sha, status, createdAt: Date.now() }).returning();
  return row;
}

/** The latest outcome per check for the merge request's sha. */
export async function latestResponses(db: Db, mergeRequestId: number, sha: string): Promise<Map<number, string>> {
  const rows = await db
    .select({ checkId: statusCheckResponses.statusCheckId, status: statusCheckResponses.status })
    .from(statusCheckResponses)
    .where(and(eq(statusCheckResponses.mergeRequestId, mergeRequestId), eq(statusCheckResponses.sha, sha)))
    .orderBy(asc(statusCheckResponses.id));
  return new Map(rows.map((r) => [r.checkId, r.status]));
}
