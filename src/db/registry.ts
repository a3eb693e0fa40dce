import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { cappedCount, inIdList, totalOrNull } from "./listing";
import type { Db } from "./client";
import { registryBlobLinks, registryManifestRefs, registryManifests, registryRepositories, registryTags } from "./schema/registry";

export type RegistryRepositoryRow = typeof registryRepositories.$inferSelect;
export type RegistryTagRow = typeof registryTags.$inferSelect;

export async function createRepository(db: Db, projectId: number, projectPath: string, name: string): Promise<RegistryRepositoryRow> {
  const [row] = await db
    .insert(registryRepositories)
    .values({ projectId, name, path: name ? `${projectPath}/${name}` : projectPath, createdAt: Date.now() })
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

/**
 * A page of the repositories of some projects (one project's id, or a subquery of ids such as a
 * group tree's: never one bound parameter per project), one row beyond it to tell whether a next
 * page exists, and the total up to COUNT_CAP.
 */
export async function listRepositories(db: Db, projectIds: number | SQL, page: { limit: number; offset: number }) {
  const cond = typeof projectIds === "number" ? eq(registryRepositories.projectId, projectIds) : inArray(registryRepositories.projectId, projectIds);
  const [rows, [{ n }]] = await db.batch([
    db.select().from(registryRepositories).where(cond).orderBy(asc(registryRepositories.id)).limit(page.limit + 1).offset(page.offset),
    db.select({ n: cappedCount(sql`${registryRepositories}`, cond) }).from(sql`(SELECT 1)`),
  ]);
  return { rows: rows.slice(0, page.limit), total: totalOrNull(n), hasNext: rows.length > page.limit };
}

/** Tags of many repositories at once, by name. */
export async function tagsOf(db: Db, repositoryIds: number[]): Promise<Map<number, RegistryTagRow[]>> {
  const out = new Map<number, RegistryTagRow[]>();
  if (!repositoryIds.length) return out;
  const rows = await db.select().from(registryTags).where(inIdList(registryTags.repositoryId, repositoryIds)).orderBy(asc(registryTags.name));
  for (const r of rows) out.set(r.repositoryId, [...(out.get(r.repositoryId) ?? []), r]);
  return out;
}

export async function listTags(db: Db, repositoryId: number, page: { limit: number; offset: number }) {
  const cond = eq(registryTags.repositoryId, repositoryId);
  const [rows, [{ n }]] = await db.batch([
    db.select().from(registryTags).where(cond).orderBy(asc(registryTags.name)).limit(page.limit).offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(registryTags).where(cond),
  ]);
  return { rows, total: n };
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
