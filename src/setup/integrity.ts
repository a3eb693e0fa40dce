import { getConfig } from "../config";
import { recordAudit } from "../db/audit";
import { getDb, type Db } from "../db/client";
import { blobRowsPage, latestAuditDetails, manifestsWithoutBlobs, tagsWithoutManifests } from "../db/integrity";
import { emptyPackages, packageFileKeys, packageFilesPage } from "../db/packages";
import { committedKeys, existingUploadIds } from "../db/registry-content";
import { unfinishedChanges } from "../db/pending-changes";
import { activeGrantsWhoseFamilyIsRevoked } from "../credentials/oauth-family";
import type { Bindings } from "../env";
import { BLOB_PREFIX } from "../registry/uploads";
import { PACKAGE_PREFIX } from "../services/packages";

/**
 * The integrity check (DESIGN, "Changes that finish"; docs/operations.md, "Integrity check"): every
 * disagreement between D1 and R2 that a crash or a defect can leave, as a table of finding kinds.
 * A clean instance reports nothing. Run by an administrator (`npm run check:integrity`, through
 * GET /api/v4/admin/integrity) and by the cron, which records its findings in the audit log and
 * /-/readiness. Objects and rows younger than ORPHAN_SWEEP_SECONDS are not findings: an upload may
 * still be between its bytes and its rows.
 */
export interface CheckContext {
  env: Bindings;
  db: Db;
  /** Objects and rows created before this may no longer be in flight. */
  before: number;
  /** At most this many subjects per kind. */
  limit: number;
  objects: (prefix: string) => Promise<ListedObjects>;
  /** A kind stopped at its bound: the report's findings are a lower bound. */
  markIncomplete: () => void;
}

export interface FindingKind {
  kind: string;
  /** What the finding means, for the report's reader. */
  meaning: string;
  /** The subjects found (at most ctx.limit), each a short string naming what disagrees. */
  find(ctx: CheckContext): Promise<string[]>;
}

/** The finding kinds, in report order. Adding a kind is adding a row (with a test that plants it). */
export const FINDING_KINDS: FindingKind[] = [
  {
    kind: "tag_without_manifest",
    meaning: "a tag names a manifest the repository does not hold",
    find: async ({ db, limit }) => (await tagsWithoutManifests(db, limit)).map((r) => `${r.path}:${r.tag} -> ${r.digest}`),
  },
  {
    kind: "manifest_without_blob",
    meaning: "a stored manifest references a blob with no row",
    find: async ({ db, limit }) => (await manifestsWithoutBlobs(db, limit)).map((r) => `${r.path}@${r.manifest} -> ${r.blob}`),
  },
  {
    kind: "blob_row_without_object",
    meaning: "a committed blob's bytes are missing from R2",
    find: (ctx) => rowsWithoutObjects(ctx, BLOB_PREFIX, async (after, n) => (await blobRowsPage(ctx.db, after, n)).map((r) => ({ cursor: r.digest, key: r.r2Key, subject: r.digest }))),
  },
  {
    kind: "registry_object_without_row",
    meaning: "an object under registry/blobs/ that no blob row nor live upload session names",
    find: async (ctx) => {
      const old = oldKeys(await ctx.objects(BLOB_PREFIX), ctx.before);
      const sessionOf = (k: string) => k.slice(BLOB_PREFIX.length, BLOB_PREFIX.length + 36);
      const [named, live] = await Promise.all([committedKeys(ctx.db, old), existingUploadIds(ctx.db, old.map(sessionOf))]);
      return old.filter((k) => !named.has(k) && !live.has(sessionOf(k))).slice(0, ctx.limit);
    },
  },
  {
    kind: "package_file_without_object",
    meaning: "a package file row whose bytes are missing from R2",
    find: (ctx) =>
      rowsWithoutObjects(ctx, PACKAGE_PREFIX, async (after, n) =>
        (await packageFilesPage(ctx.db, Number(after || 0), n)).map((r) => ({ cursor: String(r.id), key: r.r2Key, subject: `package ${r.packageId} file ${r.id}` })),
      ),
  },
  {
    kind: "package_object_without_row",
    meaning: "an object under packages/ that no package file row names",
    find: async (ctx) => {
      const old = oldKeys(await ctx.objects(PACKAGE_PREFIX), ctx.before);
      const named = new Set<string>();
      for (let i = 0; i < old.length; i += 1000) for (const k of await packageFileKeys(ctx.db, old.slice(i, i + 1000))) named.add(k);
      return old.filter((k) => !named.has(k)).slice(0, ctx.limit);
    },
  },
  {
    kind: "active_grant_of_revoked_family",
    meaning: "an oauth_token_families row is active while its family object is revoked (revokeFamilies repairs it)",
    find: async (ctx) => {
      const found: string[] = [];
      let afterId = "";
      for (let pages = 0; pages < MAX_FAMILY_PAGES; pages++) {
        const page = await activeGrantsWhoseFamilyIsRevoked(ctx.env, { afterId, limit: 500 });
        found.push(...page.ids);
        if (page.next === null || found.length >= ctx.limit) return found.slice(0, ctx.limit);
        afterId = page.next;
      }
      ctx.markIncomplete();
      return found.slice(0, ctx.limit);
    },
  },
  {
    kind: "unfinished_change",
    meaning: "a change recorded before ORPHAN_SWEEP_SECONDS ago whose effects are not all applied (the cron's change sweep retries it)",
    find: async ({ db, before, limit }) =>
      (await unfinishedChanges(db, { createdBefore: before, limit })).map((c) => `${c.kind} ${c.subject} (${c.attempts} failed runs${c.lastError ? `: ${c.lastError}` : ""})`),
  },
  {
    kind: "package_without_files",
    meaning: "a package with no file (listed, but holds nothing)",
    find: async ({ db, before, limit }) => (await emptyPackages(db, before, limit)).map((p) => `project ${p.projectId} ${p.name}@${p.version} (package ${p.id})`),
  },
];

/** Objects under a prefix, listed once per check, at most MAX_LISTED; `complete` says whether that was all. */
export interface ListedObjects {
  uploaded: Map<string, number>;
  complete: boolean;
}
const MAX_LISTED = 50_000;
/** The walk of active grants asks each family's object: at most 100 pages of 500 a check. */
const MAX_FAMILY_PAGES = 100;
const PAGE = 1000;

async function listObjects(bucket: R2Bucket, prefix: string): Promise<ListedObjects> {
  const uploaded = new Map<string, number>();
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({ prefix, cursor, limit: PAGE });
    for (const o of page.objects) uploaded.set(o.key, o.uploaded.getTime());
    if (!page.truncated) return { uploaded, complete: true };
    if (uploaded.size >= MAX_LISTED) return { uploaded, complete: false };
    cursor = page.cursor;
  }
}

const oldKeys = (listed: ListedObjects, before: number) => [...listed.uploaded].filter(([, at]) => at < before).map(([k]) => k);

/** Rows (read in pages) whose object is not in the listing; past an incomplete listing, each is confirmed by a HEAD. */
async function rowsWithoutObjects(
  ctx: CheckContext,
  prefix: string,
  page: (after: string, n: number) => Promise<{ cursor: string; key: string; subject: string }[]>,
): Promise<string[]> {
  const listed = await ctx.objects(prefix);
  const found: string[] = [];
  let after = "";
  for (;;) {
    const rows = await page(after, PAGE);
    for (const r of rows) {
      if (listed.uploaded.has(r.key)) continue;
      if (!listed.complete && (await ctx.env.FILES.head(r.key))) continue;
      found.push(r.subject);
      if (found.length >= ctx.limit) return found;
    }
    if (rows.length < PAGE) return found;
    after = rows[rows.length - 1].cursor;
  }
}

export interface IntegrityReport {
  checked_at: string;
  /** False when a listing stopped at its bound: findings are then a lower bound. */
  complete: boolean;
  /** Only kinds with findings: a clean instance reports an empty list. */
  findings: { kind: string; meaning: string; count: number; examples: string[] }[];
}

const EXAMPLES = 20;

export async function runIntegrityCheck(env: Bindings, now = Date.now(), kinds: FindingKind[] = FINDING_KINDS): Promise<IntegrityReport> {
  const listings = new Map<string, Promise<ListedObjects>>();
  let stopped = false;
  const ctx: CheckContext = {
    markIncomplete: () => void (stopped = true),
    env,
    db: getDb(env.DB),
    before: now - getConfig(env).orphanSweepSeconds * 1000,
    limit: 1000,
    objects: (prefix) => {
      if (!listings.has(prefix)) listings.set(prefix, listObjects(env.FILES, prefix));
      return listings.get(prefix)!;
    },
  };
  const findings: IntegrityReport["findings"] = [];
  for (const k of kinds) {
    const subjects = await k.find(ctx);
    if (subjects.length) findings.push({ kind: k.kind, meaning: k.meaning, count: subjects.length, examples: subjects.slice(0, EXAMPLES) });
  }
  const complete = !stopped && (await Promise.all(listings.values())).every((l) => l.complete);
  return { checked_at: new Date(now).toISOString(), complete, findings };
}

/**
 * The cron's run: the check, and an `integrity_check` audit row when it found something, or when
 * it finds nothing after a run that had (so the log and /-/readiness show the instance clean again).
 */
export async function checkIntegrityFromCron(env: Bindings, now = Date.now()): Promise<{ findings: number }> {
  const report = await runIntegrityCheck(env, now);
  const db = getDb(env.DB);
  const previous = await latestAuditDetails(db, "integrity_check");
  const previouslyFound = Array.isArray(previous?.details.findings) && previous.details.findings.length > 0;
  if (report.findings.length || previouslyFound) {
    await recordAudit(db, { action: "integrity_check", entityType: "instance", entityId: "integrity", details: { ...report }, authorId: null, ip: null });
  }
  return { findings: report.findings.reduce((n, f) => n + f.count, 0) };
}

/** /-/readiness's detail: the cron's last findings (counts by kind), "ok" when it found none. Findings do not make the instance unready. */
export async function integrityReadiness(env: Bindings): Promise<{ status: "ok" } | { status: "findings"; checked_at: unknown; findings: Record<string, number> }> {
  const last = await latestAuditDetails(getDb(env.DB), "integrity_check");
  const findings = Array.isArray(last?.details.findings) ? (last.details.findings as { kind: string; count: number }[]) : [];
  if (!findings.length) return { status: "ok" };
  return { status: "findings", checked_at: last!.details.checked_at, findings: Object.fromEntries(findings.map((f) => [f.kind, f.count])) };
}
