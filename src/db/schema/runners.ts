import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** CI runners (GitLab): instance_type, group_type (group_id) or project_type (runner_projects). */
export const runners = sqliteTable(
  "runners",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runnerType: text("runner_type").notNull(),
    /** The owning group of a group_type runner. */
    groupId: integer("group_id"),
    description: text("description").notNull().default(""),
    /** SHA-256 of the runner authentication token (glrt-…), shown once at creation. */
    tokenHash: text("token_hash").notNull().unique(),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    locked: integer("locked", { mode: "boolean" }).notNull().default(false),
    runUntagged: integer("run_untagged", { mode: "boolean" }).notNull().default(true),
    /** Comma-separated tags, sorted. */
    tagList: text("tag_list").notNull().default(""),
    accessLevel: text("access_level").notNull().default("not_protected"),
    maximumTimeout: integer("maximum_timeout"),
    maintenanceNote: text("maintenance_note"),
    ipAddress: text("ip_address"),
    version: text("version"),
    creatorId: integer("creator_id"),
    contactedAt: integer("contacted_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("runners_type_idx").on(t.runnerType, t.id),
    index("runners_group_idx").on(t.groupId),
    index("runners_created_idx").on(t.createdAt, t.id),
    index("runners_contacted_idx").on(t.contactedAt, t.id),
  ],
);

/** Projects a project_type runner is enabled on (the first is its owner). */
export const runnerProjects = sqliteTable(
  "runner_projects",
  {
    runnerId: integer("runner_id").notNull().references(() => runners.id, { onDelete: "cascade" }),
    projectId: integer("project_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runnerId, t.projectId] }), index("runner_projects_project_idx").on(t.projectId)],
);

/**
 * Legacy registration tokens (POST /runners): one per scope ('instance' with scope_id 0, 'group',
 * 'project'), SHA-256 only; reset_registration_token shows the new value once.
 */
export const runnerRegistrationTokens = sqliteTable(
  "runner_registration_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    scopeType: text("scope_type").notNull(),
    scopeId: integer("scope_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("runner_registration_scope_idx").on(t.scopeType, t.scopeId)],
);
