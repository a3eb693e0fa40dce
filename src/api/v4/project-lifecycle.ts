import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import { deleteProjectRows, projectHasRegistryRepositories, updateProject } from "../../db/project-changes";
import type { ProjectRow } from "../../db/projects";
import { actorOf, type Principal } from "../../credentials/principal";
import type { Bindings } from "../../env";
import { deleteProjectRepository } from "../../git/provisioning";
import { badRequest } from "./errors";

/**
 * Renaming and deleting a project, as plain functions of the bindings, the acting principal and
 * the input (no request context), so a service layer can call them as they are.
 */

export interface ProjectChanges {
  name?: string;
  path?: string;
  description?: string;
  defaultBranch?: string;
}

/**
 * A new path moves the project's URLs (web, git, API by path); its repository at the git origin is
 * stored by id and does not move. Container image names carry the path, so, as GitLab, a project
 * with registry repositories keeps its path.
 */
export async function changeProject(env: Bindings, principal: Principal, ip: string | null, project: ProjectRow, changes: ProjectChanges): Promise<ProjectRow> {
  const db = getDb(env.DB);
  const pathChanges = changes.path !== undefined && changes.path !== project.path;
  if (pathChanges && (await projectHasRegistryRepositories(db, project.id))) {
    throw badRequest("Cannot rename project because it contains container registry tags!");
  }
  const updated = await updateProject(db, project, changes);
  if (pathChanges) {
    await recordAudit(db, {
      action: "project_path_updated",
      entityType: "project",
      entityId: project.id,
      details: { from: project.pathWithNamespace, to: updated.pathWithNamespace },
      actor: actorOf(principal, ip),
    });
  }
  return updated;
}

/**
 * Deletes the project's rows and package files now; the repository at the git origin is removed by
 * `afterwards` (the caller hands it to waitUntil: GitLab answers 202 and removes storage later).
 * A removal that failed after its retries is an audit row naming the repository.
 */
export async function destroyProject(
  env: Bindings,
  principal: Principal,
  ip: string | null,
  project: ProjectRow,
): Promise<{ afterwards: Promise<void> }> {
  const db = getDb(env.DB);
  const { r2Keys } = await deleteProjectRows(db, project);
  await recordAudit(db, {
    action: "project_destroyed",
    entityType: "project",
    entityId: project.id,
    details: { path_with_namespace: project.pathWithNamespace },
    actor: actorOf(principal, ip),
  });
  const afterwards = (async () => {
    for (let i = 0; i < r2Keys.length; i += 1000) await env.FILES.delete(r2Keys.slice(i, i + 1000));
    const failure = await deleteProjectRepository(env, project.id);
    if (failure) {
      await recordAudit(db, {
        action: "project_repository_removal_failed",
        entityType: "project",
        entityId: project.id,
        details: { reason: failure },
        actor: actorOf(principal, ip),
      });
    }
  })();
  return { afterwards };
}
