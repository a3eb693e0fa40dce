import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { createGroup as insertGroup, createProject as insertProject, type ProjectInsert } from "../db/namespaces";
import { projectHasRegistryRepositories, updateProject as storeProjectChanges } from "../db/project-changes";
import type { GroupRow, ProjectRow } from "../db/projects";
import { AppError } from "../domain/errors";
import type { CheckedGroup, CheckedProject } from "./abilities";
import type { Bindings } from "../env";
import { createProjectRepository, readmeCommit } from "../git/provisioning";
import { deleteProjectContents } from "./changes/effects";
import { finishChangesOf, projectSubject, recordChange } from "./changes/runner";

/**
 * Projects and groups as use cases (DESIGN "Layout", src/services): creating, changing and deleting
 * them, each validated, written through src/db and audited with one row, whatever surface calls it.
 * A change to a project takes a project checked by the abilities resolver (./abilities.ts), so an
 * unchecked one does not compile; membership changes are in ./memberships.ts.
 */

export interface NewProject extends Omit<ProjectInsert, "creatorId" | "namespace"> {
  /** The creator's own namespace, or a group checked for create_projects. */
  namespace: { kind: "user"; id: number; fullPath: string } | { kind: "group"; group: CheckedGroup<"create_projects"> };
  /** GitLab's initialize_with_readme: the repository starts with one README commit by `creator`. */
  readme: boolean;
  creator: { id: number; name: string; email: string };
}

/**
 * A new project and its repository at the git origin. A path taken without regard to case in the
 * namespace is NamespacePathError (src/db/namespace-paths.ts). A failure at the origin is logged and
 * the origin creates the repository on first access (src/git/provisioning.ts).
 */
export async function createProject(env: Bindings, actor: AuditActor, input: NewProject): Promise<ProjectRow> {
  const db = getDb(env.DB);
  const { readme: _readme, creator, namespace: owner, ...row } = input;
  const namespace = owner.kind === "group" ? { kind: "group" as const, id: owner.group.id, fullPath: owner.group.fullPath } : owner;
  const project = await insertProject(db, { ...row, namespace, creatorId: creator.id });
  await recordAudit(db, {
    action: "project_created",
    entityType: "project",
    entityId: project.id,
    details: { path_with_namespace: project.pathWithNamespace, visibility: project.visibility },
    actor,
  });
  await createProjectRepository(env, project, input.readme ? readmeCommit(project, input.creator) : null);
  return project;
}

export interface ProjectChanges {
  name?: string;
  path?: string;
  description?: string;
  defaultBranch?: string;
  visibility?: string;
}

/**
 * Changes a project. A new path moves the project's URLs (web, git, API by path); its repository at
 * the git origin is stored by id and does not move. Container image names carry the path, so, as
 * GitLab, a project with registry repositories keeps its path. One audit row when anything
 * changed: project_path_updated when the path did (with the old and new full paths), else
 * project_updated; both name the changed fields.
 */
export async function updateProject(env: Bindings, actor: AuditActor, project: CheckedProject<"admin_project">, changes: ProjectChanges): Promise<ProjectRow> {
  const db = getDb(env.DB);
  const pathChanges = changes.path !== undefined && changes.path !== project.path;
  if (pathChanges && (await projectHasRegistryRepositories(db, project.id))) {
    throw new AppError("invalid", "Cannot rename project because it contains container registry tags!", { reason: "registry_tags" });
  }
  const updated = await storeProjectChanges(db, project, changes);
  const fields = (["name", "path", "description", "defaultBranch", "visibility"] as const).filter((f) => updated[f] !== project[f]);
  if (fields.length) {
    await recordAudit(db, {
      action: pathChanges ? "project_path_updated" : "project_updated",
      entityType: "project",
      entityId: project.id,
      details: { from: project.pathWithNamespace, to: updated.pathWithNamespace, fields },
      actor,
    });
  }
  return updated;
}

/**
 * Deletes a project as a change that finishes (docs/operations.md, "How changes finish"): the
 * intent and the `project_destroyed` row in one D1 batch, then its package files and rows now, and
 * its repository at the git origin in `afterwards` (the caller hands it to waitUntil: GitLab answers
 * 202 and removes storage later). A removal that failed after its retries is a second audit row
 * naming the repository, and the change stays pending: the cron sweep removes it later, as it
 * finishes a deletion killed at any point.
 */
export async function destroyProject(env: Bindings, actor: AuditActor, project: CheckedProject<"remove_project">): Promise<{ afterwards: Promise<void> }> {
  await recordChange(env, {
    kind: "project_deleted",
    subject: projectSubject(project.id),
    payload: { projectId: project.id, actor },
    audit: { action: "project_destroyed", actor, entityType: "project", entityId: project.id, details: { path_with_namespace: project.pathWithNamespace } },
  });
  await deleteProjectContents(env, project.id);
  const afterwards = finishChangesOf(env, projectSubject(project.id)).then(
    () => undefined,
    (e) => console.error(JSON.stringify({ msg: "project deletion left pending for the sweep", project_id: project.id, reason: e instanceof Error ? e.message : String(e) })),
  );
  return { afterwards };
}

export interface NewGroup {
  name: string;
  path: string;
  /** A subgroup's parent, checked for admin_group (owners create subgroups). */
  parent: CheckedGroup<"admin_group"> | null;
  visibility: string;
  description: string;
}

/**
 * A new group, with the actor as its owner. A taken or reserved path is NamespacePathError
 * (top-level paths are shared with usernames; docs/security.md "Namespaces").
 */
export async function createGroup(env: Bindings, actor: AuditActor, input: NewGroup): Promise<GroupRow> {
  const db = getDb(env.DB);
  const group = await insertGroup(db, { ...input, ownerId: actor.id });
  await recordAudit(db, {
    action: "group_created",
    entityType: "group",
    entityId: group.id,
    details: { full_path: group.fullPath, visibility: group.visibility },
    actor,
  });
  return group;
}
