import { and, eq, getTableColumns, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { sameWithoutCase } from "./namespace-paths";
import { groups, members, projects } from "./schema/projects";

export type ProjectRow = typeof projects.$inferSelect;
export type GroupRow = typeof groups.$inferSelect;

/**
 * A project by numeric id or by its (already URL-decoded) path_with_namespace, as GitLab's :id.
 * Paths are unique without regard to case (docs/security.md "Namespaces"), so a path names at
 * most one project; the lookup goes through that unique index on lower(path_with_namespace).
 */
export async function findProject(db: Db, idOrPath: string): Promise<ProjectRow | null> {
  const cond = /^\d+$/.test(idOrPath) ? eq(projects.id, Number(idOrPath)) : sameWithoutCase(projects.pathWithNamespace, idOrPath);
  const [row] = await db.select().from(projects).where(cond).limit(1);
  return row ?? null;
}

/** A group by numeric id or by its full path, through the unique index on lower(full_path). */
export async function findGroup(db: Db, idOrPath: string): Promise<GroupRow | null> {
  const cond = /^\d+$/.test(idOrPath) ? eq(groups.id, Number(idOrPath)) : sameWithoutCase(groups.fullPath, idOrPath);
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
  if (groupIds.length) conds.push(and(eq(members.sourceType, "group"), inIdList(members.sourceId, groupIds)));
  const [row] = await db
    .select({ level: sql<number | null>`max(${members.accessLevel})` })
    .from(members)
    .where(and(eq(members.userId, userId), or(...conds)));
  return row?.level ?? 0;
}

/**
 * Projects (a subquery of ids) with the user's effective access level on each, as projectAccessLevel
 * decides it, in one statement whatever the number of projects: the level column takes the highest
 * of direct and inherited memberships (each project's group ancestry walked upwards once).
 */
export async function projectsWithAccessLevels(db: Db, ids: SQL, userId: number | null): Promise<{ project: ProjectRow; level: number }[]> {
  if (userId === null) return (await db.select().from(projects).where(inArray(projects.id, ids))).map((project) => ({ project, level: 0 }));
  const ancestry = sql`(WITH RECURSIVE up(project_id, group_id) AS (
      SELECT pp.id, pp.namespace_id FROM projects pp WHERE pp.namespace_kind = 'group' AND pp.id IN ${ids}
      UNION SELECT up.project_id, groups.parent_id FROM up JOIN groups ON groups.id = up.group_id WHERE groups.parent_id IS NOT NULL
    ) SELECT project_id, group_id FROM up)`;
  // Qualified by hand: drizzle renders a single-table select's columns unqualified, which inside
  // the subqueries would bind to members' columns instead.
  const level = sql<number>`CASE WHEN projects.namespace_kind = 'user' AND projects.namespace_id = ${userId} THEN 50
    ELSE coalesce((SELECT max(m.access_level) FROM members m WHERE m.user_id = ${userId} AND (
      (m.source_type = 'project' AND m.source_id = projects.id)
      OR (m.source_type = 'group' AND m.source_id IN (SELECT a.group_id FROM ${ancestry} AS a WHERE a.project_id = projects.id))
    )), 0) END`;
  const q = db
    .select({ ...getTableColumns(projects), level })
    .from(projects)
    .where(inArray(projects.id, ids));
  const rows = await q;
  return rows.map(({ level, ...project }) => ({ project, level: Number(level) }));
}

export async function groupAccessLevel(db: Db, groupId: number, userId: number): Promise<number> {
  const ids = await groupAncestry(db, groupId);
  const [row] = await db
    .select({ level: sql<number | null>`max(${members.accessLevel})` })
    .from(members)
    .where(and(eq(members.userId, userId), eq(members.sourceType, "group"), inIdList(members.sourceId, ids)));
  return row?.level ?? 0;
}

/** The projects whose full path is one of `lowerPaths` (lowercase), through the unique index on lower(path_with_namespace). */
export async function projectsByLowerPaths(db: Db, lowerPaths: string[]): Promise<ProjectRow[]> {
  return db.select().from(projects).where(inArray(sql`lower(${projects.pathWithNamespace})`, lowerPaths));
}
