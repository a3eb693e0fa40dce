import { eq, inArray, sql } from "drizzle-orm";
import { d1Of, type Db } from "./client";
import { inIdList } from "./listing";
import { claimNamespacePath } from "./namespace-paths";
import { OWNERSHIP } from "./ownership";
import { packageFiles, packages } from "./schema/packages";
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

const ident = (name: string) => `"${name.replace(/"/g, "")}"`;

/** One DELETE per table declared `deleted` for a project in src/db/ownership.ts: what a project's deletion removes is read from there. */
function declaredDeletes(client: D1Database, projectId: number): D1PreparedStatement[] {
  return OWNERSHIP.project.tables
    .filter((t) => t.removal.how === "deleted")
    .map((t) => client.prepare(`DELETE FROM ${ident(t.table)} WHERE ${ident(t.column)} = ?`).bind(projectId));
}

/**
 * Deletes the project and everything that belongs to it, in one D1 batch: every table
 * src/db/ownership.ts declares `deleted` for a project (declaredDeletes), plus what is not named by a
 * project_id column: registry blob links (by repository path), project runners left without a
 * project, memberships, and the project row. Children with foreign keys (package files, tags,
 * manifests, responses) go with their parents. Returns the R2 keys of the package files, which the
 * caller removes after the rows (registry blobs are shared by digest and left to the registry's
 * garbage collection).
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
  // One D1 batch of statements built by drizzle and statements built from the declaration
  // (drizzle's batch takes only its own builders, so the batch is D1's).
  const client = d1Of(db);
  const built = (q: { toSQL(): { sql: string; params: unknown[] } }) => {
    const { sql: text, params } = q.toSQL();
    return client.prepare(text).bind(...params);
  };
  await client.batch([
    // Registry blob links are named by repository path, not project id (a registry name starts with the project's path).
    built(db.delete(registryBlobLinks).where(sql`${registryBlobLinks.repositoryPath} = ${project.pathWithNamespace} OR substr(${registryBlobLinks.repositoryPath}, 1, ${prefix.length}) = ${prefix}`)),
    // Every table ownership.ts declares `deleted` for a project, in its order (children with foreign
    // keys, package files, tags, manifests, status check responses, go with their parents).
    ...declaredDeletes(client, id),
    // A project runner enabled on no other project has nothing left to run for (GitLab deletes it).
    built(
      db
        .delete(runners)
        .where(sql`${runners.runnerType} = 'project_type' AND ${inIdList(runners.id, runnerIds)} AND NOT EXISTS (SELECT 1 FROM runner_projects rp WHERE rp.runner_id = ${runners.id})`),
    ),
    built(db.delete(members).where(sql`${members.sourceType} = 'project' AND ${members.sourceId} = ${id}`)),
    built(db.delete(projects).where(eq(projects.id, id))),
  ]);
  return { r2Keys: files.map((f) => f.key) };
}
