import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/**
 * Groups (GitLab namespaces of kind group). full_path is unique without regard to case (an index on
 * lower(full_path), which the lookups by path use); a top-level group never takes a username and
 * no group takes a project's full path (triggers of the namespace migration; docs/security.md).
 */
export const groups = sqliteTable("groups", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  path: text("path").notNull(),
  fullPath: text("full_path").notNull(),
  parentId: integer("parent_id"),
  description: text("description").notNull().default(""),
  /** private, internal, public */
  visibility: text("visibility").notNull().default("private"),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("groups_full_path_lower_idx").on(sql`lower(${t.fullPath})`)]);

/**
 * Projects live in a group or in a user's personal namespace (namespace_kind 'group' or 'user').
 * path_with_namespace is unique without regard to case (so project paths are, within their
 * namespace), on lower(...) so the lookups by URL-encoded path, git and registry names use it.
 */
export const projects = sqliteTable(
  "projects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    path: text("path").notNull(),
    pathWithNamespace: text("path_with_namespace").notNull(),
    namespaceKind: text("namespace_kind").notNull(),
    namespaceId: integer("namespace_id").notNull(),
    description: text("description").notNull().default(""),
    visibility: text("visibility").notNull().default("private"),
    defaultBranch: text("default_branch").notNull().default("main"),
    creatorId: integer("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    lastActivityAt: integer("last_activity_at").notNull(),
  },
  (t) => [
    index("projects_namespace_idx").on(t.namespaceKind, t.namespaceId),
    uniqueIndex("projects_path_with_namespace_lower_idx").on(sql`lower(${t.pathWithNamespace})`),
  ],
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
