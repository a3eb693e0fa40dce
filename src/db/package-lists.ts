import { and, asc, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { ciPipelines, packageFiles, packagePipelines, packages } from "./schema/packages";
import { pageAndCount as pageOf, type Page, type Window } from "./page";
import { groupTreeProjectIds } from "./namespaces";
import { projectsWithAccessLevels } from "./projects";

/** Package registry queries for GraphQL on the REST area's tables (src/db/schema/packages.ts). */
import type { PackageFileRow, PackageRow, PipelineRow } from "./packages";
export type { PackageFileRow, PackageRow, PipelineRow };

/** GitLab's PackageSort. */
export type PackageSort = `${"CREATED" | "NAME" | "VERSION" | "TYPE"}_${"ASC" | "DESC"}`;

export async function findPackage(db: Db, id: number): Promise<PackageRow | null> {
  const [row] = await db.select().from(packages).where(eq(packages.id, id)).limit(1);
  return row ?? null;
}

/** GitLab hides packages being processed or destroyed from lists. */
const listed = sql`${packages.status} NOT IN ('processing', 'pending_destruction')`;


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

/** The projects of a group's tree with the user's access level on each (Group.packages decides which it may read). */
export function groupTreeProjectsWithLevels(db: Db, groupId: number, userId: number | null) {
  return projectsWithAccessLevels(db, groupTreeProjectIds(groupId), userId);
}
