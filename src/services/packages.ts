import { getConfig } from "../config";
import { getDb } from "../db/client";
import { commitPackageFile, deleteEmptyPackages, emptyPackages, packageFileKeys, type PackageFileRow, type PackageRow } from "../db/packages";
import type { Bindings } from "../env";
import type { CheckedProject } from "./abilities";
import { streamBodyToR2 } from "../storage/r2-stream";

/**
 * Generic package files (GitLab's generic package registry): bytes in R2 under packages/, rows in
 * D1. Rows and objects agree (DESIGN, "Changes that finish"): the bytes go first, then one D1 batch
 * creates the package (when new) and its file together, so a file is visible only once both are
 * committed, and a package never appears without a file. A request killed in between leaves an
 * object no row names; the cron sweep removes it once ORPHAN_SWEEP_SECONDS old.
 */
export const PACKAGE_PREFIX = "packages/";

export interface GenericUpload {
  /** The project the file goes to, checked for create_package (src/services/abilities.ts). */
  project: CheckedProject<"create_package">;
  name: string;
  version: string;
  fileName: string;
  status: string;
  pipelineId: number | null;
  body: ReadableStream<Uint8Array> | null;
  /** Content-Length (or the multipart part's size), when known. */
  size: number | null;
}

/** Stores one file; a failed or aborted upload leaves no object and no row. Too large: upload_too_large; cut short: upload_incomplete. */
export async function storeGenericPackageFile(env: Bindings, u: GenericUpload): Promise<{ pkg: PackageRow; file: PackageFileRow }> {
  const limits = getConfig(env).upload;
  const key = `${PACKAGE_PREFIX}${u.project.id}/${crypto.randomUUID()}/${u.fileName}`;
  const stored = await streamBodyToR2(u.body, { bucket: env.FILES, key, maxBytes: limits.maxFileBytes, declaredSize: u.size, streamPutMaxBytes: limits.streamPutMaxBytes });
  try {
    return await commitPackageFile(getDb(env.DB), {
      projectId: u.project.id,
      name: u.name,
      version: u.version,
      packageType: "generic",
      status: u.status,
      fileName: u.fileName,
      size: stored.size,
      fileSha256: stored.sha256,
      r2Key: key,
      pipelineId: u.pipelineId,
    });
  } catch (e) {
    await env.FILES.delete(key);
    throw e;
  }
}

/** Objects under packages/ no file row names, listed from `cursor`, that are older than `before`: what killed uploads left. */
export async function orphanPackageObjects(env: Bindings, before: number, limit: number, cursor?: string): Promise<{ keys: string[]; cursor: string | undefined }> {
  const listed = await env.FILES.list({ prefix: PACKAGE_PREFIX, limit, cursor });
  const old = listed.objects.filter((o) => o.uploaded.getTime() < before).map((o) => o.key);
  const named = await packageFileKeys(getDb(env.DB), old);
  return { keys: old.filter((k) => !named.has(k)), cursor: listed.truncated ? listed.cursor : undefined };
}

/**
 * The cron's sweep (src/scheduled.ts): objects under packages/ without a file row and packages
 * without a file, both older than ORPHAN_SWEEP_SECONDS (an upload younger than that may still be
 * between its bytes and its batch). Bounded work per run: 500 objects, 100 packages.
 */
export async function sweepPackageOrphans(env: Bindings, now = Date.now()): Promise<{ objects: number; packages: number }> {
  const before = now - getConfig(env).orphanSweepSeconds * 1000;
  const { keys } = await orphanPackageObjects(env, before, 500);
  if (keys.length) await env.FILES.delete(keys);
  const db = getDb(env.DB);
  const empty = await emptyPackages(db, before, 100);
  const removed = await deleteEmptyPackages(db, empty.map((p) => p.id));
  return { objects: keys.length, packages: removed.length };
}
