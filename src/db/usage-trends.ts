import { and, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { usageTrendsMeasurements } from "./schema/graphql";
import { pageAndCount as pageOf, type Page, type Window } from "./page";


/**
 * GitLab's usage trends: daily instance counts. GitLab records them with a daily worker; a Worker
 * without a cron records the day's counts on the first read of the day instead (one batch, and a
 * unique index makes concurrent first reads record once).
 */
export type MeasurementRow = typeof usageTrendsMeasurements.$inferSelect;

export const IDENTIFIERS = [
  "projects",
  "users",
  "issues",
  "merge_requests",
  "groups",
  "pipelines",
  "pipelines_succeeded",
  "pipelines_failed",
  "pipelines_canceled",
  "pipelines_skipped",
] as const;
export type Identifier = (typeof IDENTIFIERS)[number];

const DAY_MS = 86400_000;
export const dayStart = (now: number) => Math.floor(now / DAY_MS) * DAY_MS;

export async function recordTodayIfMissing(db: Db, now: number): Promise<void> {
  const recordedAt = dayStart(now);
  const [hit] = await db
    .select({ id: usageTrendsMeasurements.id })
    .from(usageTrendsMeasurements)
    .where(and(eq(usageTrendsMeasurements.identifier, "users"), eq(usageTrendsMeasurements.recordedAt, recordedAt)))
    .limit(1);
  if (hit) return;
  const counts = await countStatements(db);
  await db
    .insert(usageTrendsMeasurements)
    .values(IDENTIFIERS.map((identifier) => ({ identifier, count: counts[identifier], recordedAt })))
    .onConflictDoNothing();
}

export function listMeasurements(db: Db, identifier: Identifier, range: { after?: number; before?: number }, w: Window): Promise<Page<MeasurementRow>> {
  const conds: SQL[] = [eq(usageTrendsMeasurements.identifier, identifier)];
  if (range.after !== undefined) conds.push(gte(usageTrendsMeasurements.recordedAt, range.after));
  if (range.before !== undefined) conds.push(lte(usageTrendsMeasurements.recordedAt, range.before));
  const where = and(...conds);
  return pageOf(
    db,
    db.select().from(usageTrendsMeasurements).where(where).orderBy(desc(usageTrendsMeasurements.recordedAt)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(usageTrendsMeasurements).where(where),
  );
}

/** The instance's current counts, in one query. */
async function countStatements(db: Db): Promise<Record<Identifier, number>> {
  const [row] = await db.all<Record<Identifier, number>>(sql`SELECT
    (SELECT count(*) FROM projects) AS projects,
    (SELECT count(*) FROM users) AS users,
    (SELECT count(*) FROM issues) AS issues,
    (SELECT count(*) FROM merge_requests) AS merge_requests,
    (SELECT count(*) FROM groups) AS groups,
    (SELECT count(*) FROM ci_pipelines) AS pipelines,
    (SELECT count(*) FROM ci_pipelines WHERE status = 'success') AS pipelines_succeeded,
    (SELECT count(*) FROM ci_pipelines WHERE status = 'failed') AS pipelines_failed,
    (SELECT count(*) FROM ci_pipelines WHERE status = 'canceled') AS pipelines_canceled,
    (SELECT count(*) FROM ci_pipelines WHERE status = 'skipped') AS pipelines_skipped`);
  return row;
}
