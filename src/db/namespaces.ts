import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { claimNamespacePath } from "./namespace-paths";
import { users } from "./schema/accounts";
import { groups, members, projects } from "./schema/projects";
import type { GroupRow, ProjectRow } from "./projects";
import { cappedCount } from "./listing";
import { listPage, type ListPage } from "./page";

/** Creation and listing of groups, projects and members (lookups and access levels: ./projects.ts). */

/**
 * Creates a group owned by ownerId. A top-level group's path is a namespace path shared with
 * usernames; every full path is unique without regard to case and never a project's
 * (claimNamespacePath; docs/security.md "Namespaces"): NamespacePathError otherwise.
 */
export async function createGroup(
  db: Db,
  input: { name: string; path: string; parent: GroupRow | null; visibility: string; description: string; ownerId: number },
): Promise<GroupRow> {
  const now = Date.now();
  const fullPath = input.parent ? `${input.parent.fullPath}/${input.path}` : input.path;
  const group = await claimNamespacePath({ field: "path", value: input.path, topLevel: !input.parent }, async () => {
    const [row] = await db
      .insert(groups)
      .values({
        name: input.name,
        path: input.path,
        fullPath,
        parentId: input.parent?.id ?? null,
        visibility: input.visibility,
        description: input.description,
        createdAt: now,
      })
      .returning();
    return row;
  });
  await db.insert(members).values({ sourceType: "group", sourceId: group.id, userId: input.ownerId, accessLevel: 50, createdAt: now });
  return group;
}

/** What a new project row holds (the namespaces service adds the repository and the audit row). */
export interface ProjectInsert {
  name: string;
  path: string;
  /** Where it lives; the caller has checked that the actor may create projects there. */
  namespace: { kind: "group" | "user"; id: number; fullPath: string };
  visibility: string;
  description: string;
  defaultBranch?: string;
  creatorId: number;
}

export async function createProject(db: Db, input: ProjectInsert): Promise<ProjectRow> {
  const now = Date.now();
  // Unique without regard to case within its namespace, and never a subgroup's full path.
  const [project] = await claimNamespacePath({ field: "path", value: input.path, topLevel: false }, () => db
    .insert(projects)
    .values({
      name: input.name,
      path: input.path,
      pathWithNamespace: `${input.namespace.fullPath}/${input.path}`,
      namespaceKind: input.namespace.kind,
      namespaceId: input.namespace.id,
      visibility: input.visibility,
      description: input.description,
      defaultBranch: input.defaultBranch ?? "main",
      creatorId: input.creatorId,
      createdAt: now,
      lastActivityAt: now,
    })
    .returning());
  return project;
}

/**
 * SQL subquery: the ids of the root groups and of all their descendants. roots is one group id or
 * a SELECT of group ids. The one place the group tree is walked (SQLite recursive CTE).
 */
export function groupsAndDescendants(roots: number | SQL): SQL {
  const seed = typeof roots === "number" ? sql`SELECT ${roots}` : roots;
  return sql`(WITH RECURSIVE tree(id) AS (${seed} UNION SELECT groups.id FROM groups JOIN tree ON groups.parent_id = tree.id) SELECT id FROM tree)`;
}

/** SQL subquery: ids of the projects in a group and its subgroups. */
export function groupTreeProjectIds(groupId: number): SQL {
  return sql`(SELECT ${projects.id} FROM ${projects} WHERE ${projects.namespaceKind} = 'group' AND ${projects.namespaceId} IN ${groupsAndDescendants(groupId)})`;
}

export interface MemberView {
  userId: number;
  username: string;
  name: string;
  state: string;
  accessLevel: number;
  expiresAt: string | null;
  createdAt: number;
}

const memberColumns = {
  userId: users.id,
  username: users.username,
  name: users.name,
  state: users.state,
  accessLevel: members.accessLevel,
  expiresAt: members.expiresAt,
  createdAt: members.createdAt,
};

export async function listMembers(
  db: Db,
  sourceType: "group" | "project",
  sourceId: number,
  page: { limit: number; offset: number },
): Promise<ListPage<MemberView>> {
  const where = and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId));
  return listPage<MemberView>(
    db,
    db.select(memberColumns).from(members).innerJoin(users, eq(users.id, members.userId)).where(where).orderBy(asc(members.id)).limit(page.limit + 1).offset(page.offset),
    db.select({ n: cappedCount(sql`${members}`, where) }).from(sql`(SELECT 1)`),
    page.limit,
  );
}

export async function findMember(db: Db, sourceType: "group" | "project", sourceId: number, userId: number): Promise<MemberView | null> {
  const [row] = await db
    .select(memberColumns)
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId), eq(members.userId, userId)))
    .limit(1);
  return row ?? null;
}

/** Adds a member; false when the user already is one (unique index). */
export async function addMember(
  db: Db,
  sourceType: "group" | "project",
  sourceId: number,
  userId: number,
  accessLevel: number,
  expiresAt: string | null,
): Promise<boolean> {
  const res = await db
    .insert(members)
    .values({ sourceType, sourceId, userId, accessLevel, expiresAt, createdAt: Date.now() })
    .onConflictDoNothing()
    .returning({ id: members.id });
  return res.length > 0;
}

export async function updateMember(
  db: Db,
  sourceType: "group" | "project",
  sourceId: number,
  userId: number,
  patch: { accessLevel?: number; expiresAt?: string | null },
): Promise<boolean> {
  const res = await db
    .update(members)
    .set(patch)
    .where(and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId), eq(members.userId, userId)))
    .returning({ id: members.id });
  return res.length > 0;
}

export async function removeMember(db: Db, sourceType: "group" | "project", sourceId: number, userId: number): Promise<boolean> {
  const res = await db
    .delete(members)
    .where(and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId), eq(members.userId, userId)))
    .returning({ id: members.id });
  return res.length > 0;
}

/** Number of owners of a source (the last owner of a group may not leave). */
export async function ownerCount(db: Db, sourceType: "group" | "project", sourceId: number): Promise<number> {
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)` })
    .from(members)
    .where(and(eq(members.sourceType, sourceType), eq(members.sourceId, sourceId), eq(members.accessLevel, 50)));
  return n;
}
