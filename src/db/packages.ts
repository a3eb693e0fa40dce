import { and, asc, desc, eq, gt, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { likeContaining } from "./like";
import { cappedCount, inIdList, totalOrNull } from "./listing";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { ciPipelines, packageFiles, packagePipelines, packages } from "./schema/packages";

export type PackageRow = typeof packages.$inferSelect;
export type PackageFileRow = typeof packageFiles.$inferSelect;
export type PipelineRow = typeof ciPipelines.$inferSelect;

/** The package of (project, name, version, type), created when absent (uploads add files to it). */
export async function findOrCreatePackage(db: Db, projectId: number, name: string, version: string, packageType: string, status: string): Promise<PackageRow> {
  const [created] = await db
    .insert(packages)
    .values({ projectId, name, version, packageType, status, createdAt: Date.now() })
    .onConflictDoNothing()
    .returning();
  if (created) return created;
  const [row] = await db
    .select()
    .from(packages)
    .where(and(eq(packages.projectId, projectId), eq(packages.name, name), eq(packages.version, version), eq(packages.packageType, packageType)))
    .limit(1);
  return row;
}

export async function addPackageFile(
  db: Db,
  input: { packageId: number; fileName: string; size: number; fileSha256: string; r2Key: string; pipelineId: number | null },
): Promise<PackageFileRow> {
  const [row] = await db.insert(packageFiles).values({ ...input, createdAt: Date.now() }).returning();
  if (input.pipelineId !== null) await db.insert(packagePipelines).values({ packageId: input.packageId, pipelineId: input.pipelineId }).onConflictDoNothing();
  return row;
}

export interface NewPackageFile {
  projectId: number;
  name: string;
  version: string;
  packageType: string;
  /** The status of a package this upload creates; an existing package keeps its own. */
  status: string;
  fileName: string;
  size: number;
  fileSha256: string;
  r2Key: string;
  pipelineId: number | null;
}

/**
 * Rows and objects agree (DESIGN, "Changes that finish"): the package (created when absent), its
 * file and its pipeline link in one D1 batch, written once the bytes are in R2. Neither is visible
 * without the other; a request that dies before the batch leaves only an object, which the sweep
 * removes (sweepPackageOrphans, src/services/packages.ts).
 */
export async function commitPackageFile(db: Db, f: NewPackageFile): Promise<{ pkg: PackageRow; file: PackageFileRow }> {
  const now = Date.now();
  const key = and(eq(packages.projectId, f.projectId), eq(packages.name, f.name), eq(packages.version, f.version), eq(packages.packageType, f.packageType));
  const packageId = sql<number>`(SELECT ${packages.id} FROM ${packages} WHERE ${key})`;
  const createPackage = db
    .insert(packages)
    .values({ projectId: f.projectId, name: f.name, version: f.version, packageType: f.packageType, status: f.status, createdAt: now })
    .onConflictDoNothing();
  const addFile = db.insert(packageFiles).values({ packageId, fileName: f.fileName, size: f.size, fileSha256: f.fileSha256, r2Key: f.r2Key, pipelineId: f.pipelineId, createdAt: now }).returning();
  const readPackage = db.select().from(packages).where(key).limit(1);
  const [, [file], [pkg]] =
    f.pipelineId === null
      ? await db.batch([createPackage, addFile, readPackage])
      : await db.batch([createPackage, addFile, readPackage, db.insert(packagePipelines).values({ packageId, pipelineId: f.pipelineId }).onConflictDoNothing()]);
  return { pkg, file };
}

/** Which of these R2 keys a package file row names (one bound parameter whatever their number). */
export async function packageFileKeys(db: Db, keys: readonly string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await db.select({ key: packageFiles.r2Key }).from(packageFiles).where(sql`${packageFiles.r2Key} IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`);
  return new Set(rows.map((r) => r.key));
}

/** Packages created before `before` that hold no file (what an upload killed before its rows left, before rows and bytes were committed together). */
export async function emptyPackages(db: Db, before: number, limit: number): Promise<PackageRow[]> {
  return db
    .select()
    .from(packages)
    .where(and(lt(packages.createdAt, before), sql`NOT EXISTS (SELECT 1 FROM ${packageFiles} WHERE ${packageFiles.packageId} = ${packages.id})`))
    .orderBy(asc(packages.id))
    .limit(limit);
}

/** Removes these packages if they still hold no file (an upload may have added one meanwhile); the ids removed. */
export async function deleteEmptyPackages(db: Db, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  const empty = sql`NOT EXISTS (SELECT 1 FROM ${packageFiles} WHERE ${packageFiles.packageId} = ${packages.id})`;
  const rows = await db.delete(packages).where(and(inIdList(packages.id, ids), empty)).returning({ id: packages.id });
  return rows.map((r) => r.id);
}

/** Package file rows from `afterId` on, by id (the integrity check reads them in pages). */
export async function packageFilesPage(db: Db, afterId: number, limit: number): Promise<{ id: number; packageId: number; r2Key: string }[]> {
  return db.select({ id: packageFiles.id, packageId: packageFiles.packageId, r2Key: packageFiles.r2Key }).from(packageFiles).where(gt(packageFiles.id, afterId)).orderBy(asc(packageFiles.id)).limit(limit);
}

export async function findPackage(db: Db, projectId: number, id: number): Promise<PackageRow | null> {
  const [row] = await db.select().from(packages).where(and(eq(packages.projectId, projectId), eq(packages.id, id))).limit(1);
  return row ?? null;
}

/** The newest file of that name in the package (GitLab serves the latest upload). */
export async function findPackageFile(db: Db, projectId: number, name: string, version: string, fileName: string) {
  const [row] = await db
    .select({ file: packageFiles, pkg: packages })
    .from(packageFiles)
    .innerJoin(packages, eq(packages.id, packageFiles.packageId))
    .where(
      and(
        eq(packages.projectId, projectId),
        eq(packages.packageType, "generic"),
        eq(packages.name, name),
        eq(packages.version, version),
        eq(packageFiles.fileName, fileName),
      ),
    )
    .orderBy(desc(packageFiles.id))
    .limit(1);
  return row ?? null;
}

export async function packageFilesOf(db: Db, packageId: number): Promise<PackageFileRow[]> {
  return db.select().from(packageFiles).where(eq(packageFiles.packageId, packageId)).orderBy(asc(packageFiles.id));
}

const ORDER = { created_at: packages.createdAt, name: packages.name, version: packages.version, type: packages.packageType } as const;
export type PackageOrder = keyof typeof ORDER;

/** What a package list shows: name (partial, case-insensitive), type, status; `listedOnly` hides those GitLab hides. */
export interface PackageListFilter {
  packageName?: string;
  packageType?: string;
  status?: string;
  /** GitLab hides packages being processed or destroyed from GraphQL lists. */
  listedOnly?: boolean;
}

/** The conditions of a package list, on `packages` or an alias of it. */
export function packageConditions(f: PackageListFilter, t: Record<"status" | "name" | "packageType", SQLiteColumn> = packages): SQL[] {
  const conds: SQL[] = [];
  if (f.listedOnly) conds.push(sql`${t.status} NOT IN ('processing', 'pending_destruction')`);
  if (f.packageName) conds.push(sql`lower(${t.name}) LIKE ${likeContaining(f.packageName)} ESCAPE '\\'`);
  if (f.packageType) conds.push(eq(t.packageType, f.packageType));
  if (f.status) conds.push(eq(t.status, f.status));
  return conds;
}

export interface PackageListing {
  filter: PackageListFilter;
  orderBy: PackageOrder;
  sort: "asc" | "desc";
  limit: number;
  offset: number;
}

/**
 * A page of one project's packages (the (project_id, created_at, id) index serves the default
 * order), one row beyond it for `hasNext`, and the total only up to COUNT_CAP: GitLab gives none
 * above 10,000, and counting every package of a large project cost more than the page.
 */
export async function listPackages(db: Db, projectId: number, o: PackageListing): Promise<{ rows: PackageRow[]; total: number | null; hasNext: boolean }> {
  const cond = and(eq(packages.projectId, projectId), ...packageConditions(o.filter));
  const dir = o.sort === "asc" ? asc : desc;
  const [rows, [{ n }]] = await db.batch([
    db.select().from(packages).where(cond).orderBy(dir(ORDER[o.orderBy]), dir(packages.id)).limit(o.limit + 1).offset(o.offset),
    db.select({ n: cappedCount(sql`${packages}`, cond) }).from(sql`(SELECT 1)`),
  ]);
  return { rows: rows.slice(0, o.limit), total: totalOrNull(n), hasNext: rows.length > o.limit };
}

/**
 * A page of the packages of several projects (a group tree), in one order across them. Each
 * project contributes at most offset + limit rows, taken from its own index range in that order,
 * and only those are sorted: the work grows with the projects and the page, never with the
 * packages a large project holds. The total is capped as above.
 */
export async function listPackagesOfProjects(db: Db, projectIds: readonly number[], o: PackageListing): Promise<{ rows: PackageRow[]; total: number | null; hasNext: boolean }> {
  if (!projectIds.length) return { rows: [], total: 0, hasNext: false };
  const dir = o.sort === "asc" ? asc : desc;
  const p3 = alias(packages, "p3");
  const column = { created_at: p3.createdAt, name: p3.name, version: p3.version, type: p3.packageType }[o.orderBy];
  const perProject = db
    .select({ id: p3.id })
    .from(p3)
    .where(and(sql`${p3.projectId} = j.value`, ...packageConditions(o.filter, p3)))
    .orderBy(dir(column), dir(p3.id))
    .limit(o.offset + o.limit + 1);
  const candidates = sql`SELECT p2.id FROM json_each(${JSON.stringify(projectIds)}) j CROSS JOIN ${packages} p2 ON p2.id IN ${perProject}`;
  const all = and(inIdList(packages.projectId, projectIds), ...packageConditions(o.filter));
  const [rows, [{ n }]] = await db.batch([
    db.select().from(packages).where(sql`${packages.id} IN (${candidates})`).orderBy(dir(ORDER[o.orderBy]), dir(packages.id)).limit(o.limit + 1).offset(o.offset),
    db.select({ n: cappedCount(sql`${packages}`, all) }).from(sql`(SELECT 1)`),
  ]);
  return { rows: rows.slice(0, o.limit), total: totalOrNull(n), hasNext: rows.length > o.limit };
}

/** Pipelines of many packages at once (list items), newest first. */
export async function pipelinesOfPackages(db: Db, packageIds: number[]): Promise<Map<number, PipelineRow[]>> {
  const out = new Map<number, PipelineRow[]>();
  if (!packageIds.length) return out;
  const rows = await db
    .select({ packageId: packagePipelines.packageId, pipeline: ciPipelines })
    .from(packagePipelines)
    .innerJoin(ciPipelines, eq(ciPipelines.id, packagePipelines.pipelineId))
    .where(inIdList(packagePipelines.packageId, packageIds))
    .orderBy(desc(ciPipelines.id));
  for (const r of rows) out.set(r.packageId, [...(out.get(r.packageId) ?? []), r.pipeline]);
  return out;
}

/** One keyset page of a package's pipelines by ascending id. */
export async function packagePipelinesPage(db: Db, packageId: number, idAfter: number, limit: number) {
  const rows = await db
    .select({ pipeline: ciPipelines })
    .from(packagePipelines)
    .innerJoin(ciPipelines, eq(ciPipelines.id, packagePipelines.pipelineId))
    .where(and(eq(packagePipelines.packageId, packageId), gt(ciPipelines.id, idAfter)))
    .orderBy(asc(ciPipelines.id))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit).map((r) => r.pipeline), hasNext: rows.length > limit };
}

export async function deletePackage(db: Db, id: number): Promise<string[]> {
  const files = await db.select({ key: packageFiles.r2Key }).from(packageFiles).where(eq(packageFiles.packageId, id));
  await db.batch([
    db.delete(packagePipelines).where(eq(packagePipelines.packageId, id)),
    db.delete(packageFiles).where(eq(packageFiles.packageId, id)),
    db.delete(packages).where(eq(packages.id, id)),
  ]);
  return files.map((f) => f.key);
}

export async function findPipeline(db: Db, projectId: number, id: number): Promise<PipelineRow | null> {
  const [row] = await db.select().from(ciPipelines).where(and(eq(ciPipelines.projectId, projectId), eq(ciPipelines.id, id))).limit(1);
  return row ?? null;
}

export async function createPipeline(db: Db, input: { projectId: number; sha: string; ref: string; status?: string; userId?: number | null }): Promise<PipelineRow> {
  const now = Date.now();
  const [{ n }] = await db.select({ n: sql<number>`coalesce(max(${ciPipelines.iid}), 0)` }).from(ciPipelines).where(eq(ciPipelines.projectId, input.projectId));
  const [row] = await db
    .insert(ciPipelines)
    .values({ projectId: input.projectId, iid: n + 1, sha: input.sha, ref: input.ref, status: input.status ?? "success", userId: input.userId ?? null, createdAt: now, updatedAt: now })
    .returning();
  return row;
}
