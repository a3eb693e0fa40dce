import { eq, inArray, sql } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { claimNamespacePath } from "./namespace-paths";
import { deployTokens } from "./schema/deploy-tokens";
import { issues, securityReportFindings } from "./schema/graphql";
import { managedLicenses } from "./schema/licenses";
import { mergeRequests, statusChecks } from "./schema/merge-requests";
import { ciPipelines, packageFiles, packages } from "./schema/packages";
import { members, projects } from "./schema/projects";
import { registryBlobLinks, registryRepositories } from "./schema/registry";
import { runnerProjects, runners } from "./schema/runners";
import type { ProjectRow } from "./projects";

/** Renaming and deleting a project (PUT and DELETE /api/v4/projects/:id). Creation: ./namespaces.ts. */

/** True when the project has container registry repositories, whose names carry the project's path. */
export async function projectHasRegistryRepositories(db: Db, projectId: number): Promise<boolean> {
  const row = await db.select({ id: registryRepositories.id }).from(registryRepositories).where(eq(registryRepositories.projectId, projectId)).limit(1);
  return row.length > 0;
}

/**
 * Changes name, path, description or default branch. A new path is claimed like a created one
 * (unique without regard to case in its namespace; NamespacePathError otherwise).
 */
export async function updateProject(
  db: Db,
  project: ProjectRow,
  changes: { name?: string; path?: string; description?: string; defaultBranch?: string; visibility?: string },
): Promise<ProjectRow> {
  const path = changes.path ?? project.path;
  const namespacePath = project.pathWithNamespace.slice(0, project.pathWithNamespace.length - project.path.length - 1);
  const [row] = await claimNamespacePath({ field: "path", value: path, topLevel: false }, () =>
    db
      .update(projects)
      .set({
        name: changes.name ?? project.name,
        path,
        pathWithNamespace: `${namespacePath}/${path}`,
        description: changes.description ?? project.description,
        defaultBranch: changes.defaultBranch ?? project.defaultBranch,
        visibility: changes.visibility ?? project.visibility,
        lastActivityAt: Date.now(),
      })
      .where(eq(projects.id, project.id))
      .returning(),
  );
  return row;
}

/** The R2 keys of the project's package files (deleted before their rows, so a crash between leaves rows to find them by). */
export async function packageFileKeysOfProject(db: Db, projectId: number): Promise<string[]> {
  const rows = await db
    .select({ key: packageFiles.r2Key })
    .from(packageFiles)
    .where(inArray(packageFiles.packageId, db.select({ id: packages.id }).from(packages).where(eq(packages.projectId, projectId))));
  return rows.map((r) => r.key);
}

/**
 * Deletes the project and everything that belongs to it, in one D1 batch: members, deploy tokens,
 * merge requests and status checks, issues and findings, licenses, pipelines, packages, registry
 * repositories and their blob links, and project runners left without a project. Children with
 * foreign keys (package files, tags, manifests, responses) go with their parents. Returns the R2
 * keys of the package files, which the caller removes after the rows (registry blobs are shared
 * by digest and left to the registry's garbage collection).
 */
export async function deleteProjectRows(db: Db, project: ProjectRow): Promise<{ r2Keys: string[] }> {
  const id = project.id;
  const files = await db
    .select({ key: packageFiles.r2Key })
    .from(packageFiles)
    .where(inArray(packageFiles.packageId, db.select({ id: packages.id }).from(packages).where(eq(packages.projectId, id))));
  const ownRunners = await db.select({ runnerId: runnerProjects.runnerId }).from(runnerProjects).where(eq(runnerProjects.projectId, id));
  const runnerIds = ownRunners.map((r) => r.runnerId);
  const prefix = `${project.pathWithNamespace}/`;
  await db.batch([
    db.delete(registryBlobLinks).where(sql`${registryBlobLinks.repositoryPath} = ${project.pathWithNamespace} OR substr(${registryBlobLinks.repositoryPath}, 1, ${prefix.length}) = ${prefix}`),
    db.delete(registryRepositories).where(eq(registryRepositories.projectId, id)),
    db.delete(packages).where(eq(packages.projectId, id)),
    db.delete(ciPipelines).where(eq(ciPipelines.projectId, id)),
    db.delete(securityReportFindings).where(eq(securityReportFindings.projectId, id)),
    db.delete(issues).where(eq(issues.projectId, id)),
    db.delete(mergeRequests).where(eq(mergeRequests.projectId, id)),
    db.delete(statusChecks).where(eq(statusChecks.projectId, id)),
    db.delete(managedLicenses).where(eq(managedLicenses.projectId, id)),
    db.delete(deployTokens).where(eq(deployTokens.projectId, id)),
    db.delete(runnerProjects).where(eq(runnerProjects.projectId, id)),
    // A project runner enabled on no other project has nothing left to run for (GitLab deletes it).
    db.delete(runners).where(
      sql`${runners.runnerType} = 'project_type' AND ${inIdList(runners.id, runnerIds)} AND NOT EXISTS (SELECT 1 FROM runner_projects rp WHERE rp.runner_id = ${runners.id})`,
    ),
    db.delete(members).where(sql`${members.sourceType} = 'project' AND ${members.sourceId} = ${id}`),
    db.delete(projects).where(eq(projects.id, id)),
  ]);
  return { r2Keys: files.map((f) => f.key) };
}
