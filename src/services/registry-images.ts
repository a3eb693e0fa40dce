import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { deleteRepositoryRows, deleteTag, type RegistryRepositoryRow } from "../db/registry";
import { blobRefsOf, collectUnreferencedBlobs, deleteManifest, isReferencedManifest, isTagged } from "../db/registry-content";
import type { Bindings } from "../env";
import { AppError } from "../domain/errors";
import type { CheckedProject } from "./abilities";
import { forgetManifests } from "../storage/manifest-cache";

/**
 * Container registry images as use cases, shared by the REST API (/api/v4/.../registry/repositories),
 * GraphQL (destroyContainerRepository, destroyContainerRepositoryTags) and the project's Container
 * registry page: a project checked for destroy_container_image and plain values in, the deletion carried out before it answers (gone from /v2/ at once,
 * unreferenced blobs collected), and one audit row per call, alike from each surface.
 *
 * Below the audited use cases, the deletions themselves, which /v2/'s DELETE (the OCI protocol,
 * src/registry/images.ts) shares: each removes the rows, empties this isolate's manifest cache and
 * collects the blobs nothing references any more.
 */

/** Deletes the blobs among the candidates that no manifest references any more (R2 and rows). */
async function collectBlobs(env: Bindings, candidates: string[]): Promise<number> {
  const keys = await collectUnreferencedBlobs(getDb(env.DB), candidates, Date.now() + 1);
  if (keys.length) await env.FILES.delete(keys);
  return keys.length;
}

/** Removes a manifest, its tags, and the blobs only it referenced. */
export async function removeManifest(env: Bindings, repositoryId: number, digest: string): Promise<boolean> {
  const db = getDb(env.DB);
  const blobs = await blobRefsOf(db, repositoryId, [digest]);
  const removed = await deleteManifest(db, repositoryId, digest);
  forgetManifests();
  if (removed) await collectBlobs(env, blobs);
  return removed;
}

/**
 * Deletes a tag; its manifest follows when no other tag, no index and no referrer (a manifest
 * naming it as `subject`) needs it. False when absent.
 */
export async function removeTag(env: Bindings, repositoryId: number, tag: string): Promise<boolean> {
  const db = getDb(env.DB);
  const deleted = await deleteTag(db, repositoryId, tag);
  if (!deleted) return false;
  if (!(await isTagged(db, repositoryId, deleted.digest)) && !(await isReferencedManifest(db, repositoryId, deleted.digest))) {
    await removeManifest(env, repositoryId, deleted.digest);
  }
  return true;
}

/** Deletes a repository with its manifests, tags and links, then collects the blobs it alone used. */
export async function removeRepository(env: Bindings, repo: RegistryRepositoryRow): Promise<void> {
  const db = getDb(env.DB);
  const blobs = await deleteRepositoryRows(db, repo);
  forgetManifests();
  await collectBlobs(env, blobs);
}


/** The project whose images are deleted, checked for destroy_container_image (./abilities.ts). */
type ImagesOwner = CheckedProject<"destroy_container_image">;

function ownedBy(project: ImagesOwner, repo: RegistryRepositoryRow): void {
  if (repo.projectId !== project.id) throw new AppError("not_found", "Repository Not Found", { reason: "repository_not_found" });
}

/** Deletes a repository with its tags and manifests; audited as container_repository_deleted. */
export async function deleteContainerRepository(env: Bindings, actor: AuditActor, project: ImagesOwner, repo: RegistryRepositoryRow): Promise<void> {
  ownedBy(project, repo);
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
export async function deleteContainerTags(env: Bindings, actor: AuditActor, project: ImagesOwner, repo: RegistryRepositoryRow, names: readonly string[]): Promise<string[]> {
  ownedBy(project, repo);
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
