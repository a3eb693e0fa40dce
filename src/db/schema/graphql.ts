import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Data that only the GraphQL API serves (the REST resources own runners, packages, pipelines and
 * merge requests; these tables are what GraphQL needs beyond them).
 */

/** Issues (GitLab): the target of Query.issue(id: IssueID!), the schedule's ID-type example. */
export const issues = sqliteTable(
  "issues",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    iid: integer("iid").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    /** opened, closed */
    state: text("state").notNull().default("opened"),
    authorId: integer("author_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("issues_project_iid_idx").on(t.projectId, t.iid)],
);

/**
 * Findings of a pipeline's security reports (PipelineSecurityReportFinding). uuid is the
 * finding's identity; project_fingerprint is the deprecated older fingerprint (schedule).
 */
export const securityReportFindings = sqliteTable(
  "security_report_findings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    pipelineId: integer("pipeline_id").notNull(),
    projectId: integer("project_id").notNull(),
    uuid: text("uuid").notNull(),
    projectFingerprint: text("project_fingerprint").notNull(),
    /** sast, dependency_scanning, container_scanning, dast, secret_detection, coverage_fuzzing, api_fuzzing, cluster_image_scanning, generic */
    reportType: text("report_type").notNull(),
    /** info, unknown, low, medium, high, critical */
    severity: text("severity").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    solution: text("solution"),
    /** detected, confirmed, resolved, dismissed */
    state: text("state").notNull().default("detected"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("security_report_findings_pipeline_uuid_idx").on(t.pipelineId, t.uuid), index("security_report_findings_project_idx").on(t.projectId)],
);

/** Daily instance counts (GitLab's usage trends): one row per identifier per recording. */
export const usageTrendsMeasurements = sqliteTable(
  "usage_trends_measurements",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** projects, users, issues, merge_requests, groups, pipelines, pipelines_succeeded, ... */
    identifier: text("identifier").notNull(),
    count: integer("count").notNull(),
    /** Milliseconds; recordings are taken at most once per UTC day, at the day's start. */
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [uniqueIndex("usage_trends_identifier_recorded_idx").on(t.identifier, t.recordedAt)],
);
