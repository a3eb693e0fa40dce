import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/** Groups (GitLab namespaces of kind group). full_path is unique and used for lookups by path. */
export const groups = sqliteTable("groups", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  path: text("path").notNull(),
  fullPath: text("full_path").notNull().unique(),
  parentId: integer("parent_id"),
  description: text("description").notNull().default(""),
  /** private, internal, public */
  visibility: text("visibility").notNull().default("private"),
  createdAt: integer("created_at").notNull(),
});

/**
 * Projects live in a group or in a user's personal namespace (namespace_kind 'group' or 'user').
 * path_with_namespace is unique and used for lookups by URL-encoded path and by the git gateway.
 */
export const projects = sqliteTable(
  "projects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    path: text("path").notNull(),
    pathWithNamespace: text("path_with_namespace").notNull().unique(),
    namespaceKind: text("namespace_kind").notNull(),
    namespaceId: integer("namespace_id").notNull(),
    description: text("description").notNull().default(""),
    visibility: text("visibility").notNull().default("private"),
    defaultBranch: text("default_branch").notNull().default("main"),
    creatorId: integer("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    lastActivityAt: integer("last_activity_at").notNull(),
  },
  (t) => [index("projects_namespace_idx").on(t.namespaceKind, t.namespaceId)],
);

/** Memberships of users in groups and projects with GitLab access levels (10..50). */
export const members = sqliteTable(
  "members",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** 'group' or 'project' */
    sourceType: text("source_type").notNull(),
    sourceId: integer("source_id").notNull(),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    accessLevel: integer("access_level").notNull(),
    expiresAt: text("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("members_source_user_idx").on(t.sourceType, t.sourceId, t.userId), index("members_user_idx").on(t.userId)],
);
