import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { auditEvents } from "./schema/accounts";
import { registryBlobs, registryManifestRefs, registryManifests, registryRepositories, registryTags } from "./schema/registry";

/**
 * The integrity check's reads of D1 (src/setup/integrity.ts): disagreements between rows that
 * should name each other. Each answers at most `limit` rows; the check reports those as examples.
 */

/** Tags whose manifest row is gone (a tag must always name a stored manifest). */
export async function tagsWithoutManifests(db: Db, limit: number): Promise<{ path: string; tag: string; digest: string }[]> {
  return db
    .select({ path: registryRepositories.path, tag: registryTags.name, digest: registryTags.digest })
    .from(registryTags)
    .innerJoin(registryRepositories, eq(registryRepositories.id, registryTags.repositoryId))
    .leftJoin(registryManifests, and(eq(registryManifests.repositoryId, registryTags.repositoryId), eq(registryManifests.digest, registryTags.digest)))
    .where(sql`${registryManifests.digest} IS NULL`)
    .limit(limit);
}

/** Blob references of stored manifests whose blob row is gone (collection must never take a referenced blob). */
export async function manifestsWithoutBlobs(db: Db, limit: number): Promise<{ path: string; manifest: string; blob: string }[]> {
  return db
    .select({ path: registryRepositories.path, manifest: registryManifestRefs.manifestDigest, blob: registryManifestRefs.refDigest })
    .from(registryManifestRefs)
    .innerJoin(registryRepositories, eq(registryRepositories.id, registryManifestRefs.repositoryId))
    .leftJoin(registryBlobs, eq(registryBlobs.digest, registryManifestRefs.refDigest))
    .where(and(eq(registryManifestRefs.kind, "blob"), sql`${registryBlobs.digest} IS NULL`))
    .limit(limit);
}

/** Committed blobs by digest, a page after `afterDigest`. */
export async function blobRowsPage(db: Db, afterDigest: string, limit: number): Promise<{ digest: string; r2Key: string }[]> {
  return db.select({ digest: registryBlobs.digest, r2Key: registryBlobs.r2Key }).from(registryBlobs).where(gt(registryBlobs.digest, afterDigest)).orderBy(asc(registryBlobs.digest)).limit(limit);
}

/** The details of the newest audit row of `action` (the cron's last integrity report), null without one. */
export async function latestAuditDetails(db: Db, action: "integrity_check"): Promise<{ details: Record<string, unknown>; createdAt: number } | null> {
  const [row] = await db
    .select({ details: auditEvents.details, createdAt: auditEvents.createdAt })
    .from(auditEvents)
    .where(eq(auditEvents.action, action))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(1);
  return row ? { details: JSON.parse(row.details) as Record<string, unknown>, createdAt: row.createdAt } : null;
}
