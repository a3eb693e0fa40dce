import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import { groups, members, projects } from "./schema/projects";

export type ProjectRow = typeof projects.$inferSelect;
export type GroupRow = typeof groups.$inferSelect;

/** A project by numeric id or by its (already URL-decoded) path_with_namespace, as GitLab's :id. */
export async function findProject(db: Db, idOrPath: string): Promise<ProjectRow | null> {
  const cond = /^\d+$/.test(idOrPath) ? eq(projects.id, Number(idOrPath)) : sql`lower(${projects.pathWithNamespace}) = ${idOrPath.toLowerCase()}`;
  const [row] = await db.select().from(projects).where(cond).limit(1);
  return row ?? null;
}

export async function findGroup(db: Db, idOrPath: string): Promise<GroupRow | null> {
  const cond = /^\d+$/.test(idOrPath) ? eq(groups.id, Number(idOrPath)) : sql`lower(${groups.fullPath}) = ${idOrPath.toLowerCase()}`;
  const [row] = await db.select().from(groups).where(cond).limit(1);
  return row ?? null;
}

/** The ids of a group and all its ancestors (memberships are inherited downwards). */
export async function groupAncestry(db: Db, groupId: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(sql`
    WITH RECURSIVE anc(id, parent_id) AS (
      SELECT id, parent_id FROM groups WHERE id = ${groupId}
      UNION ALL SELECT g.id, g.parent_id FROM groups g JOIN anc ON g.id = anc.parent_id
    ) SELECT id FROM anc`);
  return rows.map((r) => r.id);
}

/** The user's effective access level on a project: the highest of direct and inherited memberships. */
export async function projectAccessLevel(db: Db, project: ProjectRow, userId: number): Promise<number> {
  const groupIds = project.namespaceKind === "group" ? await groupAncestry(db, project.namespaceId) : [];
  if (project.namespaceKind === "user" && project.namespaceId === userId) return 50;
  const conds = [and(eq(members.sourceType, "project"), eq(members.sourceId, project.id))];
  if (groupIds.length) conds.push(and(eq(members.sourceType, "group"), inArray(members.sourceId, groupIds)));
  const [row] = await db
    .select({ level: sql<number | null>`max(${members.accessLevel})` })
    .from(members)
    .where(and(eq(members.userId, userId), or(...conds)));
  return row?.level ?? 0;
}

export async function groupAccessLevel(db: Db, groupId: number, userId: number): Promise<number> {
  const ids = await groupAncestry(db, groupId);
  const [row] = await db
    .select({ level: sql<number | null>`max(${members.accessLevel})` })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.sourceType, "group"), inArray(members.sourceId, ids)));
  return row?.level ?? 0;
}
