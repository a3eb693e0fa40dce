import { getConfig } from "../config";
import { getDb } from "../db/client";
import {
  collectUnreferencedBlobs,
  commitBlob,
  committedKeys,
  existingUploadIds,
  createUpload,
  deleteUpload,
  findUpload,
  staleUploads,
  takeUpload,
  uploadChunks,
  type UploadChunk,
  type UploadRow,
} from "../db/registry-content";
import type { Bindings } from "../env";
import { concatObjects, streamBodyToR2 } from "../storage/r2-stream";
import { reasonOf } from "../domain/errors";
import { RegistryError } from "./errors";
import { DIGEST } from "./manifest";
import { leaseRefused, UploadLease } from "./upload-lease";

/**
 * Blob uploads (OCI distribution spec, "Pushing blobs"): a session per POST, each PATCH stored as
 * one chunk object in R2, the final PUT assembling the chunks, verifying the digest and only then
 * committing the blob row. Objects live under registry/blobs/; a key without a blob row is garbage.
 * A writing request holds the session by a lease renewed as its bytes arrive (./upload-lease.ts).
 */
export const BLOB_PREFIX = "registry/blobs/";

export interface UploadTarget {
  repositoryPath: string;
  projectId: number;
}

export interface BodyInput {
  stream: ReadableStream<Uint8Array> | null;
  /** Content-Length, when the client sent one. */
  length: number | null;
}

const sizeError = (max: number) => new RegistryError("SIZE_INVALID", `the blob exceeds the limit of ${max} bytes`, { status: 413 });

function limits(env: Bindings) {
  const config = getConfig(env);
  return { maxBytes: config.registry.maxBlobBytes, streamPutMaxBytes: config.upload.streamPutMaxBytes };
}

async function writeChunk(env: Bindings, key: string, body: BodyInput, room: number, lease: UploadLease | null): Promise<UploadChunk> {
  const l = limits(env);
  try {
    const written = await streamBodyToR2(body.stream, {
      bucket: env.FILES,
      key,
      maxBytes: room,
      declaredSize: body.length,
      streamPutMaxBytes: l.streamPutMaxBytes,
      onProgress: lease?.progress,
    });
    return { key, size: written.size, sha256: written.sha256 };
  } catch (err) {
    throw registryWriteError(err, l.maxBytes);
  }
}

/** The storage layer's refusals in the registry's codes; the limit named is the configured one, not the room a chunk had left. */
function registryWriteError(err: unknown, maxBytes: number): unknown {
  const reason = reasonOf(err, ["upload_too_large", "upload_incomplete"] as const);
  if (reason === "upload_too_large") return sizeError(maxBytes);
  if (reason === "upload_incomplete") return new RegistryError("BLOB_UPLOAD_INVALID", "the body does not match its Content-Length");
  return err;
}

export function parseDigest(raw: string | undefined | null): string {
  if (!raw || !DIGEST.test(raw)) throw new RegistryError("DIGEST_INVALID", "the digest must be sha256:<64 lowercase hex digits>", { detail: { digest: raw ?? null } });
  return raw;
}

export async function startUpload(env: Bindings, target: UploadTarget): Promise<UploadRow> {
  return createUpload(getDb(env.DB), crypto.randomUUID(), target.repositoryPath, target.projectId);
}

/**
 * The whole blob in one request body whose length and digest are known up front (POST ?digest=,
 * or PUT ?digest= of an empty session): one R2 put that R2 itself verifies against the digest,
 * so the bytes are not hashed by the Worker. A mismatch stores nothing. Under a session's lease the
 * bytes pass through a step that renews it (a fixed-length stream keeps the length R2 needs).
 */
async function putVerified(env: Bindings, body: BodyInput & { length: number }, digest: string, lease: UploadLease | null = null): Promise<UploadChunk> {
  const key = `${BLOB_PREFIX}${crypto.randomUUID()}`;
  const hex = digest.slice("sha256:".length);
  if (body.length > limits(env).maxBytes) {
    await body.stream?.cancel().catch(() => {});
    throw sizeError(limits(env).maxBytes);
  }
  let leaseError: unknown = null;
  let stream: ReadableStream<Uint8Array> | Uint8Array = body.stream ?? new Uint8Array(0);
  if (lease && body.stream) {
    const renewing = new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        await lease.progress().catch((e: unknown) => {
          leaseError = e;
          throw e;
        });
        controller.enqueue(chunk);
      },
    });
    stream = body.stream.pipeThrough(renewing).pipeThrough(new FixedLengthStream(body.length));
  }
  try {
    const object = await env.FILES.put(key, stream, { sha256: hex });
    if (!object || object.size !== body.length) throw new Error("short body");
  } catch {
    // R2 refuses a body whose SHA-256 differs (and stores nothing); a short body is removed.
    await env.FILES.delete(key);
    if (leaseError) throw leaseError;
    throw new RegistryError("DIGEST_INVALID", "the uploaded content does not match the digest", { detail: { digest } });
  }
  return { key, size: body.length, sha256: hex };
}

/** Single-put eligible: the length is known and small enough for one streaming put. */
const directPut = (env: Bindings, body: BodyInput): body is BodyInput & { length: number } =>
  body.length !== null && body.length <= limits(env).streamPutMaxBytes;

/** A blob pushed in one request (POST ?digest= with the body): verified, then committed. */
export async function uploadMonolithic(env: Bindings, target: UploadTarget, digest: string, body: BodyInput): Promise<void> {
  const chunk = directPut(env, body) ? await putVerified(env, body, digest) : await writeChunk(env, `${BLOB_PREFIX}${crypto.randomUUID()}`, body, limits(env).maxBytes, null);
  await commitChunks(env, target, null, [chunk], digest);
}

export async function uploadStatus(env: Bindings, target: UploadTarget, id: string): Promise<UploadRow> {
  const row = await findUpload(getDb(env.DB), id, target.repositoryPath);
  if (!row) throw new RegistryError("BLOB_UPLOAD_UNKNOWN", "blob upload unknown to registry");
  return row;
}

/** Takes the session's lease or explains why not: unknown (404), or another request's lease still runs (416). */
async function claim(env: Bindings, target: UploadTarget, id: string): Promise<{ lease: UploadLease; row: UploadRow }> {
  const taken = await UploadLease.take(getDb(env.DB), id, target.repositoryPath);
  if (taken) return taken;
  await uploadStatus(env, target, id);
  throw leaseRefused();
}

/** A chunk's object: the session's id first (the sweep keeps a live session's chunks), then the lease holder's (unique per request). */
const chunkKey = (id: string, index: number, lease: UploadLease) => `${BLOB_PREFIX}${id}-${index}-${lease.holder}`;
const offsetOf = (chunks: UploadChunk[]) => chunks.reduce((n, c) => n + c.size, 0);

/** `Content-Range: <start>-<end>` must continue exactly where the upload stands (resumable pushes). */
function checkRange(contentRange: string | null, offset: number, length: number | null): void {
  if (!contentRange) return;
  const m = /^(?:bytes[ =])?(\d+)-(\d+)(?:\/\d+|\/\*)?$/.exec(contentRange.trim());
  const start = m ? Number(m[1]) : NaN;
  const end = m ? Number(m[2]) : NaN;
  if (!m || start !== offset || end < start || (length !== null && end - start + 1 !== length)) {
    throw new RegistryError("RANGE_INVALID", `the chunk must start at byte ${offset}`, { status: 416, detail: { offset }, headers: { Range: offset > 0 ? `0-${offset - 1}` : "0-0" } });
  }
}

/** PATCH: one more chunk, in order. A chunk written under a lease that was lost meanwhile is removed, not recorded. */
export async function appendChunk(env: Bindings, target: UploadTarget, id: string, body: BodyInput, contentRange: string | null): Promise<UploadRow> {
  const { lease, row } = await claim(env, target, id);
  const chunks = uploadChunks(row);
  let written: UploadChunk | null = null;
  let failure: unknown = null;
  try {
    checkRange(contentRange, row.offset, body.length);
    if (body.stream !== null && body.length !== 0) {
      written = await writeChunk(env, chunkKey(id, chunks.length, lease), body, limits(env).maxBytes - row.offset, lease);
      chunks.push(written);
    }
  } catch (err) {
    failure = err;
  }
  try {
    await lease.release({ offset: offsetOf(chunks), chunks });
  } catch (err) {
    if (written) await env.FILES.delete(written.key);
    throw failure ?? err;
  }
  if (failure) throw failure;
  return { ...row, offset: offsetOf(chunks), chunks: JSON.stringify(chunks) };
}

/** PUT ?digest=: the last chunk (optional), then assembly, verification and commit, all under the lease. */
export async function completeUpload(env: Bindings, target: UploadTarget, id: string, digest: string, body: BodyInput, contentRange: string | null): Promise<void> {
  const { lease, row } = await claim(env, target, id);
  const chunks = uploadChunks(row);
  try {
    checkRange(contentRange, row.offset, body.length);
    if (body.stream !== null && body.length !== 0) {
      // The usual POST-then-PUT push: the whole blob in the PUT, verified by R2 in one put.
      if (chunks.length === 0 && directPut(env, body)) chunks.push(await putVerified(env, body, digest, lease));
      else chunks.push(await writeChunk(env, chunkKey(id, chunks.length, lease), body, limits(env).maxBytes - row.offset, lease));
    }
  } catch (err) {
    if (err instanceof RegistryError && err.oci === "DIGEST_INVALID") await deleteUpload(getDb(env.DB), id);
    else await lease.release({ offset: offsetOf(chunks), chunks }).catch(() => {});
    throw err;
  }
  await commitChunks(env, target, id, chunks, digest, lease);
}

/**
 * One chunk is the blob as it is; several are streamed into one object (hashed on the way) and
 * removed. A digest mismatch removes every object and the session: a failed upload leaves nothing.
 */
async function commitChunks(env: Bindings, target: UploadTarget, uploadId: string | null, chunks: UploadChunk[], digest: string, lease: UploadLease | null = null): Promise<void> {
  const db = getDb(env.DB);
  let blob: UploadChunk;
  if (chunks.length === 1) blob = chunks[0];
  else {
    const length = chunks.reduce((n, c) => n + c.size, 0);
    const key = uploadId && lease ? `${BLOB_PREFIX}${uploadId}-${lease.holder}` : `${BLOB_PREFIX}${crypto.randomUUID()}`;
    const l = limits(env);
    const written = await streamBodyToR2(concatObjects(env.FILES, chunks.map((c) => c.key)), {
      bucket: env.FILES,
      key,
      maxBytes: l.maxBytes,
      declaredSize: length,
      streamPutMaxBytes: l.streamPutMaxBytes,
      onProgress: lease?.progress,
    }).catch((err: unknown) => {
      throw registryWriteError(err, l.maxBytes);
    });
    blob = { key, size: written.size, sha256: written.sha256 };
  }
  // The chunks go only after the commit: a crash before it leaves the session resumable.
  const assembled = chunks.length === 1 ? [] : chunks.map((c) => c.key);
  if (`sha256:${blob.sha256}` !== digest) {
    await env.FILES.delete([blob.key, ...assembled]);
    if (uploadId) await deleteUpload(db, uploadId);
    throw new RegistryError("DIGEST_INVALID", "the uploaded content does not match the digest", { detail: { digest, actual: `sha256:${blob.sha256}` } });
  }
  const { duplicateKey } = await commitBlob(db, { digest, size: blob.size, r2Key: blob.key }, target.repositoryPath, uploadId);
  const garbage = duplicateKey ? [duplicateKey, ...assembled] : assembled;
  if (garbage.length) await env.FILES.delete(garbage);
}

/**
 * DELETE of a session: its row and chunks go, whoever holds its lease (a client can always cancel).
 * A request still writing to it then finds no session to record its chunk in, and removes it.
 */
export async function cancelUpload(env: Bindings, target: UploadTarget, id: string): Promise<void> {
  const row = await takeUpload(getDb(env.DB), id, target.repositoryPath);
  if (!row) throw new RegistryError("BLOB_UPLOAD_UNKNOWN", "blob upload unknown to registry");
  const keys = uploadChunks(row).map((c) => c.key);
  if (keys.length) await env.FILES.delete(keys);
  await deleteUpload(getDb(env.DB), id);
}

/**
 * The sweep of abandoned uploads: sessions untouched for REGISTRY_UPLOAD_TTL_SECONDS lose their
 * chunks and rows, objects under registry/blobs/ that old without a blob row (a request that
 * died between writing and recording) are deleted, and so are blobs committed that long ago that
 * no manifest references. Bounded work per run.
 */
export async function sweepAbandonedUploads(env: Bindings, now = Date.now()): Promise<{ sessions: number; orphans: number; unreferenced: number }> {
  const db = getDb(env.DB);
  const before = now - getConfig(env).registry.uploadTtlSeconds * 1000;
  const stale = await staleUploads(db, before, 100);
  for (const row of stale) {
    const keys = uploadChunks(row).map((c) => c.key);
    if (keys.length) await env.FILES.delete(keys);
    await deleteUpload(db, row.id);
  }
  const listed = await env.FILES.list({ prefix: BLOB_PREFIX, limit: 500 });
  const old = listed.objects.filter((o) => o.uploaded.getTime() < before).map((o) => o.key);
  // Chunk keys are <prefix><session id>-<n>: a live session (a very slow push) keeps its chunks.
  const sessionOf = (k: string) => k.slice(BLOB_PREFIX.length, BLOB_PREFIX.length + 36);
  const [kept, live] = await Promise.all([committedKeys(db, old), existingUploadIds(db, old.map(sessionOf))]);
  const orphans = old.filter((k) => !kept.has(k) && !live.has(sessionOf(k)));
  if (orphans.length) await env.FILES.delete(orphans);
  // Blobs pushed that long ago which no manifest ever came to reference.
  const unreferenced = await collectUnreferencedBlobs(db, null, before, 200, now);
  if (unreferenced.length) await env.FILES.delete(unreferenced);
  return { sessions: stale.length, orphans: orphans.length, unreferenced: unreferenced.length };
}
