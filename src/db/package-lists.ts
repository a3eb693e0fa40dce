import { and, asc, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { ciPipelines, packageFiles, packagePipelines, packages } from "./schema/packages";
import { pageAndCount as pageOf, type Page, type Window } from "./page";

/** Package registry queries for GraphQL on the REST area's tables (src/db/schema/packages.ts). */
import type { PackageFileRow, PackageRow, PipelineRow } from "./packages";
export type { PackageFileRow, PackageRow, PipelineRow };

export interface PackageFilter {
  projectIds: SQL | number[];
  packageName?: string;
  packageType?: string;
}

const SORT_COLUMNS = { CREATED: packages.createdAt, NAME: packages.name, VERSION: packages.version, TYPE: packages.packageType } as const;

export type PackageSort = `${keyof typeof SORT_COLUMNS}_${"ASC" | "DESC"}`;

export async function findPackage(db: Db, id: number): Promise<PackageRow | null> {
  const [row] = await db.select().from(packages).where(eq(packages.id, id)).limit(1);
  return row ?? null;
}

/** GitLab hides packages being processed or destroyed from lists. */
const listed = sql`${packages.status} NOT IN ('processing', 'pending_destruction')`;


/** Conditions of a package list: listed packages, name (partial, case-insensitive) and type. */
export function packageConditions(f: { packageName?: string; packageType?: string }): SQL[] {
  const conds: SQL[] = [listed];
  if (f.packageName) conds.push(sql`lower(${packages.name}) LIKE ${`%${f.packageName.toLowerCase()}%`}`);
  if (f.packageType) conds.push(eq(packages.packageType, f.packageType));
  return conds;
}

/** Packages of several projects (Group.packages); one project's list is the REST area's listPackages. */
export function listPackages(db: Db, f: PackageFilter, sort: PackageSort, w: Window): Promise<Page<PackageRow>> {
  const conds: SQL[] = [
    ...packageConditions(f),
    Array.isArray(f.projectIds) ? inIdList(packages.projectId, f.projectIds) : inArray(packages.projectId, f.projectIds),
  ];
  const [col, dir] = sort.split("_") as [keyof typeof SORT_COLUMNS, "ASC" | "DESC"];
  const order = dir === "ASC" ? asc : desc;
  const where = and(...conds);
  return pageOf(
    db,
    db.select().from(packages).where(where).orderBy(order(SORT_COLUMNS[col]), order(packages.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(packages).where(where),
  );
}

/** The other versions of a package: same project, name and type (PackageDetailsType.versions). */
export function listOtherVersions(db: Db, p: PackageRow, w: Window): Promise<Page<PackageRow>> {
  const where = and(listed, eq(packages.projectId, p.projectId), eq(packages.name, p.name), eq(packages.packageType, p.packageType), ne(packages.id, p.id));
  return pageOf(
    db,
    db.select().from(packages).where(where).orderBy(desc(packages.createdAt), desc(packages.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(packages).where(where),
  );
}

/** Pipelines that built a package, newest first. */
export function listPackagePipelines(db: Db, packageId: number, w: Window): Promise<Page<PipelineRow>> {
  const where = inArray(ciPipelines.id, db.select({ id: packagePipelines.pipelineId }).from(packagePipelines).where(eq(packagePipelines.packageId, packageId)));
  return pageOf(
    db,
    db.select().from(ciPipelines).where(where).orderBy(desc(ciPipelines.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(ciPipelines).where(where),
  );
}

export function listPackageFiles(db: Db, packageId: number, w: Window): Promise<Page<PackageFileRow>> {
  const where = eq(packageFiles.packageId, packageId);
  return pageOf(
    db,
    db.select().from(packageFiles).where(where).orderBy(asc(packageFiles.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(packageFiles).where(where),
  );
}

