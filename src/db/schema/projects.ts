import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/**
 * Groups (GitLab namespaces of kind group). full_path is unique without regard to case (an index on
 * lower(full_path), which the lookups by path use); a top-level group never takes a username and
 * no group takes a project's full path (triggers of the namespace migration; docs/security.md).
 */
export const groups = sqliteTable(
  "groups",
  {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  path: text("path").notNull(),
  fullPath: text("full_path").notNull(),
  parentId: integer("parent_id"),
  description: text("description").notNull().default(""),
  /** private, internal, public */
  visibility: text("visibility").notNull().default("private"),
  createdAt: integer("created_at").notNull(),
  },
  // The tree walk (parent_id) and each listing order, alone (administrators) and under one
  // visibility (the public and internal branches of an ordinary user's listing: src/db/listing.ts).
  (t) => [
    uniqueIndex("groups_full_path_lower_idx").on(sql`lower(${t.fullPath})`),
    index("groups_parent_idx").on(t.parentId),
    index("groups_name_idx").on(t.name, t.id),
    index("groups_path_idx").on(t.path, t.id),
    index("groups_visibility_idx").on(t.visibility),
    index("groups_visibility_name_idx").on(t.visibility, t.name, t.id),
    index("groups_visibility_path_idx").on(t.visibility, t.path, t.id),
    // A short ?search= is an exact, case-insensitive match (src/db/search.ts).
    index("groups_name_lower_idx").on(sql`lower(${t.name})`),
    index("groups_path_lower_idx").on(sql`lower(${t.path})`),
  ],
);

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
  // Each listing order alone (administrators) and under one visibility (the public and internal
  // branches of an ordinary user's listing, src/db/listing.ts); id order is the rowid's.
  (t) => [
    index("projects_namespace_idx").on(t.namespaceKind, t.namespaceId),
    uniqueIndex("projects_path_with_namespace_lower_idx").on(sql`lower(${t.pathWithNamespace})`),
    index("projects_created_idx").on(t.createdAt, t.id),
    index("projects_last_activity_idx").on(t.lastActivityAt, t.id),
    index("projects_name_idx").on(t.name, t.id),
    index("projects_path_idx").on(t.path, t.id),
    index("projects_visibility_idx").on(t.visibility),
    index("projects_visibility_created_idx").on(t.visibility, t.createdAt, t.id),
    index("projects_visibility_last_activity_idx").on(t.visibility, t.lastActivityAt, t.id),
    index("projects_visibility_name_idx").on(t.visibility, t.name, t.id),
    index("projects_visibility_path_idx").on(t.visibility, t.path, t.id),
    // A short ?search= is an exact, case-insensitive match (src/db/search.ts).
    index("projects_name_lower_idx").on(sql`lower(${t.name})`),
    index("projects_path_lower_idx").on(sql`lower(${t.path})`),
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
  (t) => [uniqueIndex("members_source_user_idx").on(t.sourceType, t.sourceId, t.userId), index("members_user_source_idx").on(t.userId, t.sourceType, t.sourceId)],
);
