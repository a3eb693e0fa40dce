import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import type { RegistryRepositoryRow } from "../db/registry";
import type { Bindings } from "../env";
import { removeRepository, removeTag } from "../registry/images";

/**
 * Container registry images as use cases, shared by the REST API (/api/v4/.../registry/repositories),
 * GraphQL (destroyContainerRepository, destroyContainerRepositoryTags) and the project's Container
 * registry page: plain values in, the deletion carried out before it answers (gone from /v2/ at once,
 * unreferenced blobs collected), and one audit row per call, alike from each surface. The caller has
 * checked that the actor may destroy the project's images (destroy_container_image).
 */

/** Deletes a repository with its tags and manifests; audited as container_repository_deleted. */
export async function deleteContainerRepository(env: Bindings, actor: AuditActor, repo: RegistryRepositoryRow): Promise<void> {
  await removeRepository(env, repo);
  await recordAudit(getDb(env.DB), {
    action: "container_repository_deleted",
    actor,
    entityType: "container_repository",
    entityId: repo.id,
    details: { path: repo.path, project_id: repo.projectId },
  });
}

/**
 * Deletes tags of a repository (each name once); returns the names that existed and are gone. One
 * audit row (container_repository_tags_deleted) names them; nothing deleted, nothing audited.
 */
export async function deleteContainerTags(env: Bindings, actor: AuditActor, repo: RegistryRepositoryRow, names: readonly string[]): Promise<string[]> {
  const deleted: string[] = [];
  for (const name of new Set(names)) if (await removeTag(env, repo.id, name)) deleted.push(name);
  if (deleted.length) {
    await recordAudit(getDb(env.DB), {
      action: "container_repository_tags_deleted",
      actor,
      entityType: "container_repository",
      entityId: repo.id,
      details: { path: repo.path, project_id: repo.projectId, tags: deleted },
    });
  }
  return deleted;
}
