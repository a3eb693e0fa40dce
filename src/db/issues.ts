import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { isUniqueViolation } from "./errors";
import type { Db } from "./client";
import { issues } from "./schema/graphql";
import { pageAndCount as pageOf, type Page, type Window } from "./page";


/** Issues (this area's table; merge requests are the REST area's src/db/merge-requests.ts). */
export type IssueRow = typeof issues.$inferSelect;

export async function findIssue(db: Db, id: number): Promise<IssueRow | null> {
  const [row] = await db.select().from(issues).where(eq(issues.id, id)).limit(1);
  return row ?? null;
}

export async function findIssueByIid(db: Db, projectId: number, iid: number): Promise<IssueRow | null> {
  const [row] = await db.select().from(issues).where(and(eq(issues.projectId, projectId), eq(issues.iid, iid))).limit(1);
  return row ?? null;
}

export function listIssues(db: Db, projectId: number, state: string | undefined, w: Window): Promise<Page<IssueRow>> {
  const conds: SQL[] = [eq(issues.projectId, projectId)];
  if (state && state !== "all") conds.push(eq(issues.state, state));
  const where = and(...conds);
  return pageOf(
    db,
    db.select().from(issues).where(where).orderBy(desc(issues.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(issues).where(where),
  );
}

/**
 * Creates an issue with the project's next iid. The iid is computed inside the INSERT, and the
 * unique (project, iid) index turns a concurrent duplicate into a retry rather than a clash.
 */
export async function createIssue(db: Db, input: { projectId: number; title: string; description: string; authorId: number }): Promise<IssueRow> {
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    try {
      const [row] = await db
        .insert(issues)
        .values({
          projectId: input.projectId,
          iid: sql`(SELECT coalesce(max(iid), 0) + 1 FROM issues WHERE project_id = ${input.projectId})`,
          title: input.title,
          description: input.description,
          authorId: input.authorId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return row;
    } catch (err) {
      if (attempt >= 5 || !isUniqueViolation(err)) throw err;
    }
  }
}
