import { and, asc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { batchesOf, selectInBatches } from "./batches";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { registryBlobLinks, registryBlobs, registryManifestRefs, registryManifests, registryRepositories, registryTags, registryUploads } from "./schema/registry";

/**
 * Storage of the container registry's content: blobs (rows are the commit point of bytes in R2),
 * per-repository blob links, manifests with what they reference, tags, and upload sessions.
 */
export type BlobRow = typeof registryBlobs.$inferSelect;
/**
 * How long a push holds a blob it relies on (committed or mounted before its manifest, or named by
 * the manifest being stored): collection skips it meanwhile. The manifest's references then keep it.
 */
export const BLOB_HOLD_MS = 60 * 60 * 1000;
export type ManifestRow = typeof registryManifests.$inferSelect;
export type UploadRow = typeof registryUploads.$inferSelect;
export interface UploadChunk {
  key: string;
  size: number;
  sha256: string;
}

/** A blob as one repository sees it: committed and linked to that repository. */
export async function findLinkedBlob(db: Db, repositoryPath: string, digest: string): Promise<BlobRow | null> {
  const [row] = await db
    .select({ blob: registryBlobs })
    .from(registryBlobLinks)
    .innerJoin(registryBlobs, eq(registryBlobs.digest, registryBlobLinks.digest))
    .where(and(eq(registryBlobLinks.repositoryPath, repositoryPath), eq(registryBlobLinks.digest, digest)))
    .limit(1);
  return row?.blob ?? null;
}

/** Links a blob to a repository (a mount), holding it for the push; false when it is gone meanwhile. */
export async function linkBlob(db: Db, repositoryPath: string, digest: string): Promise<boolean> {
  const now = Date.now();
  const [held] = await db.batch([
    db.update(registryBlobs).set({ heldUntil: now + BLOB_HOLD_MS }).where(eq(registryBlobs.digest, digest)).returning({ d: registryBlobs.digest }),
    db.insert(registryBlobLinks).values({ repositoryPath, digest, createdAt: now }).onConflictDoNothing(),
  ]);
  if (held.length) return true;
  await unlinkBlob(db, repositoryPath, digest);
  return false;
}

/**
 * Holds the blobs a manifest names before it is stored; returns those still there. One statement:
 * a collection either ran before (the blob is missing, the push is refused cleanly) or skips them.
 */
export async function holdBlobs(db: Db, digests: string[]): Promise<Set<string>> {
  if (!digests.length) return new Set();
  const until = Date.now() + BLOB_HOLD_MS;
  const rows = await selectInBatches(digests, (slice) =>
    db.update(registryBlobs).set({ heldUntil: until }).where(inArray(registryBlobs.digest, slice)).returning({ d: registryBlobs.digest }),
  );
  return new Set(rows.map((r) => r.d));
}

export async function unlinkBlob(db: Db, repositoryPath: string, digest: string): Promise<boolean> {
  const res = await db
    .delete(registryBlobLinks)
    .where(and(eq(registryBlobLinks.repositoryPath, repositoryPath), eq(registryBlobLinks.digest, digest)))
    .returning({ d: registryBlobLinks.digest });
  return res.length > 0;
}

/**
 * Commits verified bytes as a blob, links it and ends the upload session, in one batch. When the
 * digest was already committed (another push of the same layer), the existing bytes win and the
 * caller deletes its duplicate object: `duplicateKey` names it.
 */
export async function commitBlob(
  db: Db,
  blob: { digest: string; size: number; r2Key: string },
  repositoryPath: string,
  uploadId: string | null,
): Promise<{ duplicateKey: string | null }> {
  const now = Date.now();
  const [inserted] = await db.batch([
    db.insert(registryBlobs).values({ ...blob, createdAt: now, heldUntil: now + BLOB_HOLD_MS }).onConflictDoNothing().returning({ digest: registryBlobs.digest }),
    // The same layer pushed again: the existing blob is held for this push too.
    db.update(registryBlobs).set({ heldUntil: now + BLOB_HOLD_MS }).where(eq(registryBlobs.digest, blob.digest)),
    db.insert(registryBlobLinks).values({ repositoryPath, digest: blob.digest, createdAt: now }).onConflictDoNothing(),
    db.delete(registryUploads).where(eq(registryUploads.id, uploadId ?? "")),
  ]);
  return { duplicateKey: inserted.length ? null : blob.r2Key };
}

// ---- upload sessions ----

export async function createUpload(db: Db, id: string, repositoryPath: string, projectId: number): Promise<UploadRow> {
  const now = Date.now();
  const [row] = await db.insert(registryUploads).values({ id, repositoryPath, projectId, createdAt: now, updatedAt: now }).returning();
  return row;
}

export async function findUpload(db: Db, id: string, repositoryPath: string): Promise<UploadRow | null> {
  const [row] = await db.select().from(registryUploads).where(and(eq(registryUploads.id, id), eq(registryUploads.repositoryPath, repositoryPath))).limit(1);
  return row ?? null;
}

/**
 * Takes the session's lease for one writing request (`holder`) until `now + leaseMs`; null when it
 * is unknown or another request's lease still runs.
 */
export async function claimUpload(db: Db, id: string, repositoryPath: string, holder: string, now: number, leaseMs: number): Promise<UploadRow | null> {
  const [row] = await db
    .update(registryUploads)
    .set({ busyUntil: now + leaseMs, leaseHolder: holder })
    .where(and(eq(registryUploads.id, id), eq(registryUploads.repositoryPath, repositoryPath), lt(registryUploads.busyUntil, now)))
    .returning();
  return row ?? null;
}

/** Extends the holder's lease; false when the lease was taken over or the session is gone. */
export async function renewUploadLease(db: Db, id: string, holder: string, until: number): Promise<boolean> {
  const rows = await db
    .update(registryUploads)
    .set({ busyUntil: until })
    .where(and(eq(registryUploads.id, id), eq(registryUploads.leaseHolder, holder)))
    .returning({ id: registryUploads.id });
  return rows.length > 0;
}

/** Records the holder's progress and ends its lease; false when it no longer held it (nothing written). */
export async function releaseUpload(db: Db, id: string, holder: string, state: { offset: number; chunks: UploadChunk[] }): Promise<boolean> {
  const rows = await db
    .update(registryUploads)
    .set({ offset: state.offset, chunks: JSON.stringify(state.chunks), busyUntil: 0, leaseHolder: null, updatedAt: Date.now() })
    .where(and(eq(registryUploads.id, id), eq(registryUploads.leaseHolder, holder)))
    .returning({ id: registryUploads.id });
  return rows.length > 0;
}

export const uploadChunks = (u: UploadRow): UploadChunk[] => JSON.parse(u.chunks) as UploadChunk[];

export async function deleteUpload(db: Db, id: string): Promise<void> {
  await db.delete(registryUploads).where(eq(registryUploads.id, id));
}

/** Removes a session whatever holds it (a client's cancel); the removed row, null when unknown. */
export async function takeUpload(db: Db, id: string, repositoryPath: string): Promise<UploadRow | null> {
  const [row] = await db.delete(registryUploads).where(and(eq(registryUploads.id, id), eq(registryUploads.repositoryPath, repositoryPath))).returning();
  return row ?? null;
}

export async function existingUploadIds(db: Db, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const slice of batchesOf([...new Set(ids)])) {
    const rows = await db.select({ id: registryUploads.id }).from(registryUploads).where(inArray(registryUploads.id, slice));
    for (const r of rows) found.add(r.id);
  }
  return found;
}

/** Sessions untouched since `before` (abandoned), oldest first. */
export async function staleUploads(db: Db, before: number, limit: number): Promise<UploadRow[]> {
  return db.select().from(registryUploads).where(lt(registryUploads.updatedAt, before)).orderBy(asc(registryUploads.updatedAt)).limit(limit);
}

// ---- repositories, manifests, tags ----

/** The repository row of a name, created when its first manifest is pushed. */
export async function ensureRepository(db: Db, projectId: number, image: string, path: string) {
  await db.insert(registryRepositories).values({ projectId, name: image, path, createdAt: Date.now(), updatedAt: Date.now() }).onConflictDoNothing();
  const [row] = await db.select().from(registryRepositories).where(and(eq(registryRepositories.projectId, projectId), eq(registryRepositories.name, image))).limit(1);
  return row;
}

export async function findRepositoryByName(db: Db, projectId: number, image: string) {
  const [row] = await db.select().from(registryRepositories).where(and(eq(registryRepositories.projectId, projectId), eq(registryRepositories.name, image))).limit(1);
  return row ?? null;
}

/**
 * A manifest of a project's image by tag or digest, in one query (repository, tag and manifest
 * joined): the manifest GET is one D1 read.
 */
export async function findManifestByReference(db: Db, projectId: number, image: string, reference: string, byDigest: boolean): Promise<ManifestRow | null> {
  const repo = and(eq(registryRepositories.projectId, projectId), eq(registryRepositories.name, image));
  if (byDigest) {
    const [row] = await db
      .select({ m: registryManifests })
      .from(registryRepositories)
      .innerJoin(registryManifests, eq(registryManifests.repositoryId, registryRepositories.id))
      .where(and(repo, eq(registryManifests.digest, reference)))
      .limit(1);
    return row?.m ?? null;
  }
  const [row] = await db
    .select({ m: registryManifests })
    .from(registryRepositories)
    .innerJoin(registryTags, eq(registryTags.repositoryId, registryRepositories.id))
    .innerJoin(registryManifests, and(eq(registryManifests.repositoryId, registryTags.repositoryId), eq(registryManifests.digest, registryTags.digest)))
    .where(and(repo, eq(registryTags.name, reference)))
    .limit(1);
  return row?.m ?? null;
}

/** Which of these child manifests exist in the repository. */
export async function existingManifests(db: Db, repositoryId: number, digests: string[]): Promise<Map<string, ManifestRow>> {
  if (!digests.length) return new Map();
  const rows = await selectInBatches(digests, (slice) =>
    db.select().from(registryManifests).where(and(eq(registryManifests.repositoryId, repositoryId), inArray(registryManifests.digest, slice))),
  );
  return new Map(rows.map((r) => [r.digest, r]));
}

/** Which of these blobs the repository may reference. */
export async function linkedBlobDigests(db: Db, repositoryPath: string, digests: string[]): Promise<Set<string>> {
  if (!digests.length) return new Set();
  const rows = await selectInBatches(digests, (slice) =>
    db
      .select({ digest: registryBlobLinks.digest })
      .from(registryBlobLinks)
      .innerJoin(registryBlobs, eq(registryBlobs.digest, registryBlobLinks.digest))
      .where(and(eq(registryBlobLinks.repositoryPath, repositoryPath), inArray(registryBlobLinks.digest, slice))),
  );
  return new Set(rows.map((r) => r.digest));
}

/**
 * Stores a manifest, what it references and (optionally) points a tag at it, atomically: a
 * concurrent push of the same tag leaves the tag on one complete manifest (the last batch wins).
 */
export async function putManifest(
  db: Db,
  m: Omit<ManifestRow, "createdAt">,
  refs: { digest: string; kind: "blob" | "manifest" }[],
  tag: string | null,
): Promise<void> {
  const now = Date.now();
  const statements: BatchItem<"sqlite">[] = [
    db.insert(registryManifests).values({ ...m, createdAt: now }).onConflictDoNothing(),
    ...refs.map((r) =>
      db.insert(registryManifestRefs).values({ repositoryId: m.repositoryId, manifestDigest: m.digest, refDigest: r.digest, kind: r.kind }).onConflictDoNothing(),
    ),
  ];
  if (tag !== null) {
    statements.push(
      db
        .insert(registryTags)
        .values({ repositoryId: m.repositoryId, name: tag, digest: m.digest, revision: m.configDigest.replace(/^sha256:/, ""), totalSize: m.totalSize, createdAt: now })
        .onConflictDoUpdate({
          target: [registryTags.repositoryId, registryTags.name],
          set: { digest: m.digest, revision: m.configDigest.replace(/^sha256:/, ""), totalSize: m.totalSize, createdAt: now },
        }),
    );
  }
  // Stored: the references keep the blobs from now on, so the push's hold ends with the batch.
  const blobs = refs.filter((r) => r.kind === "blob").map((r) => r.digest);
  for (const slice of batchesOf(blobs)) statements.push(db.update(registryBlobs).set({ heldUntil: 0 }).where(inArray(registryBlobs.digest, slice)));
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
}

/** Deletes a manifest and every tag on it; false when it was not there. */
export async function deleteManifest(db: Db, repositoryId: number, digest: string): Promise<boolean> {
  const [, , deleted] = await db.batch([
    db.delete(registryTags).where(and(eq(registryTags.repositoryId, repositoryId), eq(registryTags.digest, digest))),
    db.delete(registryManifestRefs).where(and(eq(registryManifestRefs.repositoryId, repositoryId), eq(registryManifestRefs.manifestDigest, digest))),
    db.delete(registryManifests).where(and(eq(registryManifests.repositoryId, repositoryId), eq(registryManifests.digest, digest))).returning({ d: registryManifests.digest }),
  ]);
  return deleted.length > 0;
}

/**
 * True when another manifest of the repository needs this one: an index lists it, or a manifest
 * names it as its `subject` (OCI v1.1). It must then stay when its last tag goes.
 */
export async function isReferencedManifest(db: Db, repositoryId: number, digest: string): Promise<boolean> {
  const [[listed], [subjectOf]] = await db.batch([
    db
      .select({ d: registryManifestRefs.refDigest })
      .from(registryManifestRefs)
      .where(and(eq(registryManifestRefs.repositoryId, repositoryId), eq(registryManifestRefs.refDigest, digest), eq(registryManifestRefs.kind, "manifest")))
      .limit(1),
    db
      .select({ d: registryManifests.digest })
      .from(registryManifests)
      .where(and(eq(registryManifests.repositoryId, repositoryId), eq(registryManifests.subjectDigest, digest)))
      .limit(1),
  ]);
  return !!listed || !!subjectOf;
}

/** The referrers API: manifests of the repository whose subject is `digest`, by digest after `after`. */
export async function referrersOf(db: Db, repositoryId: number, digest: string, artifactType: string | null, after: string | null, limit: number): Promise<ManifestRow[]> {
  return db
    .select()
    .from(registryManifests)
    .where(
      and(
        eq(registryManifests.repositoryId, repositoryId),
        eq(registryManifests.subjectDigest, digest),
        artifactType === null ? undefined : eq(registryManifests.artifactType, artifactType),
        after === null ? undefined : gt(registryManifests.digest, after),
      ),
    )
    .orderBy(asc(registryManifests.digest))
    .limit(limit);
}

export async function isTagged(db: Db, repositoryId: number, digest: string): Promise<boolean> {
  const [row] = await db.select({ id: registryTags.id }).from(registryTags).where(and(eq(registryTags.repositoryId, repositoryId), eq(registryTags.digest, digest))).limit(1);
  return !!row;
}

/** Blob digests a manifest references (candidates for collection once it is gone). */
export async function blobRefsOf(db: Db, repositoryId: number, digests: string[]): Promise<string[]> {
  if (!digests.length) return [];
  const rows = await selectInBatches(digests, (slice) =>
    db
      .select({ d: registryManifestRefs.refDigest })
      .from(registryManifestRefs)
      .where(and(eq(registryManifestRefs.repositoryId, repositoryId), inArray(registryManifestRefs.manifestDigest, slice), eq(registryManifestRefs.kind, "blob"))),
  );
  return [...new Set(rows.map((r) => r.d))];
}

/** Tag names in lexical order after `last`, at most `n` (OCI tags/list). */
export async function tagNamesAfter(db: Db, repositoryId: number, last: string | null, n: number): Promise<string[]> {
  const rows = await db
    .select({ name: registryTags.name })
    .from(registryTags)
    .where(and(eq(registryTags.repositoryId, repositoryId), last === null ? undefined : gt(registryTags.name, last)))
    .orderBy(sql`${registryTags.name} COLLATE BINARY`)
    .limit(n);
  return rows.map((r) => r.name);
}

/**
 * Deletes the blobs among `digests` (all blobs when null) that no manifest references, that were
 * committed before `before` and that no push holds; returns their R2 keys for the caller to
 * delete. One statement, so a blob referenced or held meanwhile is kept.
 */
export async function collectUnreferencedBlobs(db: Db, digests: string[] | null, before: number, limit = 500, now = Date.now()): Promise<string[]> {
  // One statement (see above), so the candidates are one bound parameter however many they are.
  const candidates = digests === null ? sql`1` : digests.length ? inIdList(registryBlobs.digest, digests) : sql`0`;
  const rows = await db
    .delete(registryBlobs)
    .where(
      and(
        candidates,
        lt(registryBlobs.createdAt, before),
        lt(registryBlobs.heldUntil, now),
        sql`NOT EXISTS (SELECT 1 FROM registry_manifest_refs r WHERE r.ref_digest = ${registryBlobs.digest})`,
        sql`${registryBlobs.digest} IN (SELECT digest FROM registry_blobs LIMIT ${limit})`,
      ),
    )
    .returning({ key: registryBlobs.r2Key, digest: registryBlobs.digest });
  for (const slice of batchesOf(rows.map((r) => r.digest))) await db.delete(registryBlobLinks).where(inArray(registryBlobLinks.digest, slice));
  return rows.map((r) => r.key);
}

/**
 * A project's container registry size (GitLab's `container_registry_size`): each distinct blob its
 * manifests reference counted once (layers shared by its images are stored once), plus the
 * manifests themselves. `extra` adds blobs a push is about to reference.
 */
export async function projectRegistrySize(db: Db, projectId: number, extra: string[] = []): Promise<number> {
  const extraList = extra.length ? sql` UNION SELECT b.digest FROM registry_blobs b WHERE ${inIdList(sql`b.digest`, extra)}` : sql``;
  const [row] = await db.all<{ blobs: number | null; manifests: number | null }>(sql`
    SELECT
      (SELECT SUM(b.size) FROM registry_blobs b WHERE b.digest IN (
        SELECT r.ref_digest FROM registry_manifest_refs r JOIN registry_repositories p ON p.id = r.repository_id
        WHERE p.project_id = ${projectId} AND r.kind = 'blob'${extraList})) AS blobs,
      (SELECT SUM(m.size) FROM registry_manifests m JOIN registry_repositories p ON p.id = m.repository_id WHERE p.project_id = ${projectId}) AS manifests`);
  return (row?.blobs ?? 0) + (row?.manifests ?? 0);
}

/** Which of these R2 keys hold committed blobs (asked in batches, so any number of keys works). */
export async function committedKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const slice of batchesOf(keys)) {
    const rows = await db.select({ key: registryBlobs.r2Key }).from(registryBlobs).where(inArray(registryBlobs.r2Key, slice));
    for (const r of rows) found.add(r.key);
  }
  return found;
}
