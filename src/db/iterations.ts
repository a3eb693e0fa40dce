import { and, asc, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
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

/** Iterations of the groups, whose date-derived state is one of the conditions given. */
export async function listIterations(db: Db, groupIds: number[], where: SQL[], page: { limit: number; offset: number }) {
  const cond = and(inArray(iterations.groupId, groupIds.length ? groupIds : [0]), ...where);
  const [rows, [{ n }]] = await db.batch([
    db.select().from(iterations).where(cond).orderBy(asc(iterations.startDate), asc(iterations.id)).limit(page.limit).offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(iterations).where(cond),
  ]);
  return { rows, total: n };
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
