import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Merge requests (no diff or git operation: merging records who merged and when). */
export const mergeRequests = sqliteTable(
  "merge_requests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iid: integer("iid").notNull(),
    projectId: integer("project_id").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    /** opened, closed, merged */
    state: text("state").notNull().default("opened"),
    sourceBranch: text("source_branch").notNull(),
    targetBranch: text("target_branch").notNull(),
    authorId: integer("author_id").notNull(),
    assigneeId: integer("assignee_id"),
    mergeUserId: integer("merge_user_id"),
    mergedAt: integer("merged_at"),
    closedAt: integer("closed_at"),
    sha: text("sha").notNull(),
    mergeCommitSha: text("merge_commit_sha"),
    labels: text("labels").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("merge_requests_project_iid_idx").on(t.projectId, t.iid)],
);

/** External status checks of a project (GitLab Ultimate's external_status_checks). */
export const statusChecks = sqliteTable(
  "external_status_checks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    name: text("name").notNull(),
    externalUrl: text("external_url").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("external_status_checks_project_name_idx").on(t.projectId, t.name)],
);

/** Responses of external services; the latest one per (merge request, check, sha) counts. */
export const statusCheckResponses = sqliteTable(
  "status_check_responses",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    mergeRequestId: integer("merge_request_id").notNull().references(() => mergeRequests.id, { onDelete: "cascade" }),
    statusCheckId: integer("status_check_id").notNull().references(() => statusChecks.id, { onDelete: "cascade" }),
    sha: text("sha").notNull(),
    /** passed or failed (the outcome, after the version's rules were applied) */
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("status_check_responses_mr_idx").on(t.mergeRequestId, t.statusCheckId, t.id)],
);
