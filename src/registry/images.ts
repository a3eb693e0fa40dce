import { getDb } from "../db/client";
import {
  ensureRepository,
  existingManifests,
  findManifestByReference,
  findRepositoryByName,
  holdBlobs,
  projectRegistrySize,
  linkedBlobDigests,
  putManifest,
  referrersOf,
  tagNamesAfter,
} from "../db/registry-content";
import { sha256Hex } from "../crypto/hash";
import type { Bindings } from "../env";
import { getConfig } from "../config";
import { RegistryError } from "./errors";
import { DIGEST, MEDIA_TYPES, parseManifest, TAG } from "./manifest";
import { recallManifest, rememberManifest } from "../storage/manifest-cache";
import { removeManifest, removeTag } from "../services/registry-images";

/**
 * Images of a repository: manifests by tag or digest, tags, deletion and the collection of blobs
 * no manifest references any more. Takes plain values; throws RegistryError.
 */
export interface ImageTarget {
  projectId: number;
  /** The image below the project ("" for the root image). */
  image: string;
  /** The repository's full name. */
  path: string;
}

const isDigest = (ref: string) => DIGEST.test(ref);

function checkReference(reference: string): void {
  if (!isDigest(reference) && !TAG.test(reference)) throw new RegistryError("MANIFEST_INVALID", "the reference must be a tag or a sha256 digest", { detail: { reference } });
}

/** A manifest as /v2/ serves it; `content` is null when only the headers were asked for and known. */
export interface ServedManifest {
  digest: string;
  mediaType: string;
  size: number;
  content: string | null;
}

/**
 * A manifest by tag or digest. By digest, the isolate's manifest cache may answer without a D1
 * read (src/storage/manifest-cache.ts): a HEAD from any entry, a GET from one that holds the bytes.
 */
export async function getManifest(env: Bindings, target: ImageTarget, reference: string, needContent = true): Promise<ServedManifest> {
  const byDigest = isDigest(reference);
  if (byDigest) {
    const cached = recallManifest(env, target.projectId, target.image, reference);
    if (cached && (!needContent || cached.content !== null)) return { digest: reference, ...cached };
  }
  const readAt = Date.now();
  const m = byDigest || TAG.test(reference) ? await findManifestByReference(getDb(env.DB), target.projectId, target.image, reference, byDigest) : null;
  if (!m) throw new RegistryError("MANIFEST_UNKNOWN", "manifest unknown to registry", { detail: { reference } });
  // A tag's manifest is cached under its digest too: the digest names these bytes forever.
  rememberManifest(env, target.projectId, target.image, m.digest, { mediaType: m.mediaType, size: m.size, content: m.content }, readAt);
  return { digest: m.digest, mediaType: m.mediaType, size: m.size, content: m.content };
}

/**
 * PUT of a manifest: valid JSON of a supported type, the digest (when the reference is one)
 * matching the bytes, every referenced blob linked to the repository and every child manifest of
 * an index present. Returns the manifest's digest and its `subject` (OCI v1.1; the subject itself
 * need not exist).
 */
export async function pushManifest(
  env: Bindings,
  target: ImageTarget,
  reference: string,
  bytes: Uint8Array<ArrayBuffer>,
  contentType: string | null,
): Promise<{ digest: string; subject: string | null }> {
  checkReference(reference);
  const digest = `sha256:${await sha256Hex(bytes)}`;
  if (isDigest(reference) && reference !== digest) throw new RegistryError("DIGEST_INVALID", "the manifest does not match the digest it was pushed under", { detail: { reference, digest } });
  const parsed = parseManifest(bytes, contentType);
  const db = getDb(env.DB);
  // Hold the blobs first, then check them: a collection running meanwhile either removed a blob
  // before the hold (refused here, nothing stored) or skips it (docs/registries.md, "Sweeping").
  const held = await holdBlobs(db, parsed.blobs.map((b) => b.digest));
  const linked = await linkedBlobDigests(db, target.path, parsed.blobs.map((b) => b.digest));
  const missingBlob = parsed.blobs.find((b) => !linked.has(b.digest) || !held.has(b.digest));
  if (missingBlob) throw new RegistryError("MANIFEST_BLOB_UNKNOWN", "the manifest references a blob unknown to this repository", { detail: { digest: missingBlob.digest } });
  await checkQuota(env, target.projectId, parsed.blobs.map((b) => b.digest), bytes.byteLength);
  const repo = await ensureRepository(db, target.projectId, target.image, target.path);
  const children = await existingManifests(db, repo.id, parsed.manifests.map((m) => m.digest));
  const missingChild = parsed.manifests.find((m) => !children.has(m.digest));
  if (missingChild) throw new RegistryError("MANIFEST_BLOB_UNKNOWN", "the index references a manifest unknown to this repository", { detail: { digest: missingChild.digest } });
  const totalSize =
    parsed.kind === "image" ? parsed.blobs.reduce((n, b) => n + b.size, 0) : parsed.manifests.reduce((n, m) => n + (children.get(m.digest)?.totalSize ?? 0), 0);
  const content = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  await putManifest(
    db,
    {
      repositoryId: repo.id,
      digest,
      mediaType: parsed.mediaType,
      content,
      size: bytes.byteLength,
      configDigest: parsed.configDigest,
      totalSize,
      subjectDigest: parsed.subject,
      artifactType: parsed.artifactType,
      annotations: parsed.annotations ? JSON.stringify(parsed.annotations) : null,
    },
    [...parsed.blobs.map((b) => ({ digest: b.digest, kind: "blob" as const })), ...parsed.manifests.map((m) => ({ digest: m.digest, kind: "manifest" as const }))],
    isDigest(reference) ? null : reference,
  );
  return { digest, subject: parsed.subject };
}

/**
 * REGISTRY_PROJECT_QUOTA_BYTES: a manifest whose blobs (those the project does not hold yet) and
 * bytes would take the project's registry past its quota is refused, 403 DENIED naming the quota.
 * Checked when the manifest arrives, the point where an image becomes part of the project.
 */
async function checkQuota(env: Bindings, projectId: number, blobs: string[], manifestBytes: number): Promise<void> {
  const quota = getConfig(env).registry.projectQuotaBytes;
  if (quota === null) return;
  const after = (await projectRegistrySize(getDb(env.DB), projectId, blobs)) + manifestBytes;
  if (after > quota) {
    throw new RegistryError("DENIED", `the project's container registry quota of ${quota} bytes (REGISTRY_PROJECT_QUOTA_BYTES) would be exceeded: ${after} bytes after this push`, {
      detail: { quota_bytes: quota, size_after_push: after },
    });
  }
}

/** Referrers per page; more follow through the `Link` header (distribution spec, "Listing Referrers"). */
export const REFERRERS_PAGE = 1000;

export interface ReferrersPage {
  index: { schemaVersion: 2; mediaType: string; manifests: Record<string, unknown>[] };
  /** The last digest of the page when another page follows. */
  next: string | null;
}

/**
 * GET /v2/<name>/referrers/<digest>: an image index of the manifests whose subject is `digest`,
 * empty (never 404) when there are none or the repository has no manifests yet.
 */
export async function listReferrers(env: Bindings, target: ImageTarget, digest: string, artifactType: string | null, after: string | null): Promise<ReferrersPage> {
  const db = getDb(env.DB);
  const repo = await findRepositoryByName(db, target.projectId, target.image);
  const rows = repo ? await referrersOf(db, repo.id, digest, artifactType, after, REFERRERS_PAGE + 1) : [];
  const page = rows.slice(0, REFERRERS_PAGE);
  const manifests = page.map((m) => ({
    mediaType: m.mediaType,
    digest: m.digest,
    size: m.size,
    ...(m.artifactType ? { artifactType: m.artifactType } : {}),
    ...(m.annotations ? { annotations: JSON.parse(m.annotations) as Record<string, string> } : {}),
  }));
  return {
    index: { schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests },
    next: rows.length > REFERRERS_PAGE ? page[page.length - 1].digest : null,
  };
}

/**
 * DELETE /v2/<name>/manifests/<reference>: a digest removes the manifest and every tag on it; a
 * tag removes the tag (OCI v1.1), and the manifest too once nothing else names it.
 */
export async function deleteImage(env: Bindings, target: ImageTarget, reference: string): Promise<void> {
  checkReference(reference);
  const repo = await findRepositoryByName(getDb(env.DB), target.projectId, target.image);
  if (!repo) throw new RegistryError("NAME_UNKNOWN", "repository name not known to registry", { detail: { name: target.path } });
  if (isDigest(reference)) {
    if (!(await removeManifest(env, repo.id, reference))) throw new RegistryError("MANIFEST_UNKNOWN", "manifest unknown to registry", { detail: { reference } });
    return;
  }
  if (!(await removeTag(env, repo.id, reference))) throw new RegistryError("MANIFEST_UNKNOWN", "manifest unknown to registry", { detail: { reference } });
}

/** tags/list: lexical order, at most n after `last`; `more` says whether a next page exists. */
export async function listTagNames(env: Bindings, target: ImageTarget, n: number, last: string | null): Promise<{ tags: string[]; more: boolean }> {
  const db = getDb(env.DB);
  const repo = await findRepositoryByName(db, target.projectId, target.image);
  if (!repo) throw new RegistryError("NAME_UNKNOWN", "repository name not known to registry", { detail: { name: target.path } });
  const rows = await tagNamesAfter(db, repo.id, last, n + 1);
  return { tags: rows.slice(0, n), more: rows.length > n };
}
