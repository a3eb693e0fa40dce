import { and, asc, sql } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { pageAndCount, type Page } from "./page";
import { groupAncestry } from "./projects";
import { groups } from "./schema/projects";
import { iterations } from "./schema/iterations";

export type IterationRow = typeof iterations.$inferSelect;

export async function createIteration(
  db: Db,
  input: { groupId: number; title: string | null; description: string; startDate: string; dueDate: string },
): Promise<IterationRow> {
  const now = Date.now();
  const [row] = await db
    .insert(iterations)
    .values({ ...input, iid: sql`(SELECT coalesce(max(iid), 0) + 1 FROM iterations WHERE group_id = ${input.groupId})`, createdAt: now, updatedAt: now })
    .returning();
  return row;
}

/** An iterations listing's filters: the date-derived states wanted (on `today`) and a title search. */
export interface IterationFilter {
  states: readonly string[];
  /** YYYY-MM-DD, UTC. */
  today: string;
  search?: string;
}

/**
 * Iterations of the groups whose state is one of those wanted, a page and the number of them in one
 * round trip (pageAndCount). The state is computed from the dates in SQL, so filtering and
 * counting stay in the database.
 */
export async function listIterations(db: Db, groupIds: number[], f: IterationFilter, page: { limit: number; offset: number }): Promise<Page<IterationRow>> {
  const state = sql`CASE WHEN ${f.today} < ${iterations.startDate} THEN 'upcoming' WHEN ${f.today} > ${iterations.dueDate} THEN 'closed' ELSE 'current' END`;
  const cond = and(
    inIdList(iterations.groupId, groupIds),
    sql`${state} IN ${f.states}`,
    f.search ? sql`lower(${iterations.title}) LIKE ${`%${f.search.toLowerCase()}%`}` : undefined,
  );
  return pageAndCount<IterationRow>(
    db,
    db.select().from(iterations).where(cond).orderBy(asc(iterations.startDate), asc(iterations.id)).limit(page.limit).offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(iterations).where(cond),
  );
}

/** The full paths of a group and its ancestors (the groups whose iterations a listing shows), by id. */
export async function ancestorPaths(db: Db, groupId: number): Promise<Map<number, string>> {
  const ids = await groupAncestry(db, groupId);
  const rows = await db.select({ id: groups.id, fullPath: groups.fullPath }).from(groups).where(inIdList(groups.id, ids));
  return new Map(rows.map((r) => [r.id, r.fullPath]));
}

/** Iterations overlapping [start, due] in the group (GitLab refuses overlapping iterations). */
export async function overlapping(db: Db, groupId: number, startDate: string, dueDate: string): Promise<boolean> {
  const [row] = await db
    .select({ id: iterations.id })
    .from(iterations)
    .where(sql`${iterations.groupId} = ${groupId} AND ${iterations.startDate} <= ${dueDate} AND ${iterations.dueDate} >= ${startDate}`)
    .limit(1);
  return !!row;
}

/** One iteration of a group by id (its page, /groups/<path>/-/iterations/<id>), or null. */
export async function findIteration(db: Db, groupId: number, id: number): Promise<IterationRow | null> {
  const [row] = await db.select().from(iterations).where(and(sql`${iterations.groupId} = ${groupId}`, sql`${iterations.id} = ${id}`)).limit(1);
  return row ?? null;
}
