import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { inIdList } from "./listing";
import { securityReportFindings } from "./schema/graphql";
import { ciPipelines } from "./schema/packages";
import { pageAndCount as pageOf, type Page, type Window } from "./page";
import type { PipelineRow } from "./package-lists";

/** Pipelines (REST area's ci_pipelines) and their security report findings (this area's table). */
export type FindingRow = typeof securityReportFindings.$inferSelect;

export async function findPipeline(db: Db, projectId: number, by: { iid?: number; sha?: string }): Promise<PipelineRow | null> {
  const cond = by.iid !== undefined ? eq(ciPipelines.iid, by.iid) : eq(ciPipelines.sha, by.sha ?? "");
  const [row] = await db.select().from(ciPipelines).where(and(eq(ciPipelines.projectId, projectId), cond)).orderBy(desc(ciPipelines.id)).limit(1);
  return row ?? null;
}

export function listProjectPipelines(db: Db, projectId: number, w: Window): Promise<Page<PipelineRow>> {
  const where = eq(ciPipelines.projectId, projectId);
  return pageOf(
    db,
    db.select().from(ciPipelines).where(where).orderBy(desc(ciPipelines.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(ciPipelines).where(where),
  );
}

export function listFindings(db: Db, pipelineId: number, f: { reportTypes?: string[]; severities?: string[] }, w: Window): Promise<Page<FindingRow>> {
  const conds: SQL[] = [eq(securityReportFindings.pipelineId, pipelineId)];
  if (f.reportTypes?.length) conds.push(inIdList(securityReportFindings.reportType, f.reportTypes.map((t) => t.toLowerCase())));
  if (f.severities?.length) conds.push(inIdList(securityReportFindings.severity, f.severities.map((t) => t.toLowerCase())));
  const where = and(...conds);
  // Most severe first, as GitLab's pipeline security tab.
  const severityRank = sql`CASE ${securityReportFindings.severity} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END`;
  return pageOf(
    db,
    db.select().from(securityReportFindings).where(where).orderBy(asc(severityRank), asc(securityReportFindings.id)).limit(w.limit).offset(w.offset),
    db.select({ n: sql<number>`count(*)` }).from(securityReportFindings).where(where),
  );
}

export interface NewFinding {
  uuid: string;
  projectFingerprint: string;
  reportType: string;
  severity: string;
  title: string;
  description?: string;
  solution?: string | null;
}

/**
 * Stores the findings of one processed security report of a pipeline (for the report-processing
 * code; a finding seen again in the same pipeline keeps its row).
 */
export async function recordFindings(db: Db, pipeline: { id: number; projectId: number }, findings: NewFinding[]): Promise<void> {
  if (!findings.length) return;
  const now = Date.now();
  await db
    .insert(securityReportFindings)
    .values(findings.map((f) => ({ ...f, description: f.description ?? "", solution: f.solution ?? null, pipelineId: pipeline.id, projectId: pipeline.projectId, createdAt: now })))
    .onConflictDoNothing();
}
