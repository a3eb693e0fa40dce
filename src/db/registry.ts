import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { cappedCount, inIdList, totalOrNull } from "./listing";
import { groupTreeProjectIds } from "./namespaces";
import { likeContaining } from "./like";
import type { Db } from "./client";
import { registryBlobLinks, registryManifestRefs, registryManifests, registryRepositories, registryTags } from "./schema/registry";

export type RegistryRepositoryRow = typeof registryRepositories.$inferSelect;
export type RegistryTagRow = typeof registryTags.$inferSelect;

export async function createRepository(db: Db, projectId: number, projectPath: string, name: string): Promise<RegistryRepositoryRow> {
  const [row] = await db
    .insert(registryRepositories)
    .values({ projectId, name, path: name ? `${projectPath}/${name}` : projectPath, createdAt: Date.now(), updatedAt: Date.now() })
    .returning();
  return row;
}

export async function addTag(db: Db, repositoryId: number, t: { name: string; digest: string; revision: string; totalSize: number }): Promise<RegistryTagRow> {
  const [row] = await db.insert(registryTags).values({ repositoryId, ...t, createdAt: Date.now() }).returning();
  return row;
}

export async function findRepository(db: Db, id: number): Promise<RegistryRepositoryRow | null> {
  const [row] = await db.select().from(registryRepositories).where(eq(registryRepositories.id, id)).limit(1);
  return row ?? null;
}

/** Whose repositories a listing shows: one project's, or those of every project in a group's tree. */
export type RepositoryScope = { projectId: number } | { groupId: number };

/** GitLab's ContainerRepositorySort (REST lists by id, which is CREATED_ASC). */
export type RepositorySort = "CREATED_ASC" | "CREATED_DESC" | "UPDATED_ASC" | "UPDATED_DESC" | "NAME_ASC" | "NAME_DESC";
const REPOSITORY_ORDER = { CREATED: registryRepositories.id, UPDATED: registryRepositories.updatedAt, NAME: registryRepositories.name } as const;

/**
 * A page of the repositories of a project or a group tree (the tree as a subquery: never one bound
 * parameter per project), optionally filtered by a part of the name and sorted, one row beyond it to
 * tell whether a next page exists, and the total up to COUNT_CAP. Each row carries its tags_count.
 */
export async function listRepositories(db: Db, scope: RepositoryScope, page: { limit: number; offset: number }, o: { name?: string | null; sort?: RepositorySort } = {}) {
  const conds: SQL[] = ["projectId" in scope ? eq(registryRepositories.projectId, scope.projectId) : inArray(registryRepositories.projectId, groupTreeProjectIds(scope.groupId))];
  if (o.name) conds.push(sql`lower(${registryRepositories.name}) LIKE ${likeContaining(o.name)} ESCAPE '\\'`);
  const cond = and(...conds);
  const [col, dir] = (o.sort ?? "CREATED_ASC").split("_") as [keyof typeof REPOSITORY_ORDER, "ASC" | "DESC"];
  const order = dir === "ASC" ? asc : desc;
  const [rows, [{ n }]] = await db.batch([
    db.select().from(registryRepositories).where(cond).orderBy(order(REPOSITORY_ORDER[col]), order(registryRepositories.id)).limit(page.limit + 1).offset(page.offset),
    db.select({ n: cappedCount(sql`${registryRepositories}`, cond) }).from(sql`(SELECT 1)`),
  ]);
  return { rows: rows.slice(0, page.limit), total: totalOrNull(n), hasNext: rows.length > page.limit };
}

/**
 * At most this many tags per repository in a repository listing's `tags` (docs/registry.md): a
 * listing of 100 repositories with thousands of tags each would otherwise load and send them all.
 * The full list is GET .../repositories/:id/tags, paginated; tags_count stays exact.
 */
export const TAGS_PER_REPOSITORY = 20;

/**
 * The first `cap` tags by name of each repository: per repository, an index range of
 * (repository_id, name) stopped at `cap` (one JSON parameter for the ids, see inIdList).
 */
export async function firstTagsOf(db: Db, repositoryIds: number[], cap = TAGS_PER_REPOSITORY): Promise<Map<number, RegistryTagRow[]>> {
  const out = new Map<number, RegistryTagRow[]>();
  if (!repositoryIds.length) return out;
  const firstIds = sql`SELECT t2.id FROM json_each(${JSON.stringify(repositoryIds)}) j
    CROSS JOIN ${registryTags} t2 ON t2.id IN (SELECT t3.id FROM ${registryTags} t3 WHERE t3.repository_id = j.value ORDER BY t3.name LIMIT ${cap})`;
  const rows = await db
    .select()
    .from(registryTags)
    .where(sql`${registryTags.id} IN (${firstIds})`)
    .orderBy(asc(registryTags.repositoryId), asc(registryTags.name));
  for (const r of rows) out.set(r.repositoryId, [...(out.get(r.repositoryId) ?? []), r]);
  return out;
}

/** The sum of the tags' sizes of one repository (GitLab's `size` of GET /registry/repositories/:id). */
export async function repositoryTagsSize(db: Db, repositoryId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`coalesce(sum(${registryTags.totalSize}), 0)` }).from(registryTags).where(eq(registryTags.repositoryId, repositoryId));
  return Number(row?.n ?? 0);
}

/** Tags of many repositories at once, by name. */
export async function tagsOf(db: Db, repositoryIds: number[]): Promise<Map<number, RegistryTagRow[]>> {
  const out = new Map<number, RegistryTagRow[]>();
  if (!repositoryIds.length) return out;
  const rows = await db.select().from(registryTags).where(inIdList(registryTags.repositoryId, repositoryIds)).orderBy(asc(registryTags.name));
  for (const r of rows) out.set(r.repositoryId, [...(out.get(r.repositoryId) ?? []), r]);
  return out;
}

/** GitLab's ContainerRepositoryTagSort. */
export type TagSort = "NAME_ASC" | "NAME_DESC";

/** A page of one repository's tags by name (the (repository_id, name) index), optionally those whose name holds `name`. */
export async function listTags(db: Db, repositoryId: number, page: { limit: number; offset: number }, o: { name?: string | null; sort?: TagSort } = {}) {
  const conds: SQL[] = [eq(registryTags.repositoryId, repositoryId)];
  if (o.name) conds.push(sql`lower(${registryTags.name}) LIKE ${likeContaining(o.name)} ESCAPE '\\'`);
  const cond = and(...conds);
  const order = o.sort === "NAME_DESC" ? desc : asc;
  const [rows, [{ n }]] = await db.batch([
    db.select().from(registryTags).where(cond).orderBy(order(registryTags.name)).limit(page.limit + 1).offset(page.offset),
    db.select({ n: cappedCount(sql`${registryTags}`, cond) }).from(sql`(SELECT 1)`),
  ]);
  return { rows: rows.slice(0, page.limit), total: totalOrNull(n), hasNext: rows.length > page.limit };
}

export async function findTag(db: Db, repositoryId: number, name: string): Promise<RegistryTagRow | null> {
  const [row] = await db.select().from(registryTags).where(and(eq(registryTags.repositoryId, repositoryId), eq(registryTags.name, name))).limit(1);
  return row ?? null;
}

/** The deleted tag (its digest tells which manifest may now be unnamed), or null. */
export async function deleteTag(db: Db, repositoryId: number, name: string): Promise<RegistryTagRow | null> {
  const [row] = await db.delete(registryTags).where(and(eq(registryTags.repositoryId, repositoryId), eq(registryTags.name, name))).returning();
  return row ?? null;
}

/**
 * Deletes a repository and everything in it (tags, manifests, references, blob links) in one
 * batch; returns the blob digests its manifests referenced, for collection.
 */
export async function deleteRepositoryRows(db: Db, repo: RegistryRepositoryRow): Promise<string[]> {
  const refs = await db.select({ d: registryManifestRefs.refDigest }).from(registryManifestRefs).where(and(eq(registryManifestRefs.repositoryId, repo.id), eq(registryManifestRefs.kind, "blob")));
  await db.batch([
    db.delete(registryTags).where(eq(registryTags.repositoryId, repo.id)),
    db.delete(registryManifestRefs).where(eq(registryManifestRefs.repositoryId, repo.id)),
    db.delete(registryManifests).where(eq(registryManifests.repositoryId, repo.id)),
    db.delete(registryBlobLinks).where(eq(registryBlobLinks.repositoryPath, repo.path)),
    db.delete(registryRepositories).where(eq(registryRepositories.id, repo.id)),
  ]);
  return [...new Set(refs.map((r) => r.d))];
}
