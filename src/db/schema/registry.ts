import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Container registry image repositories of projects (filled by demo data until pushes exist). */
export const registryRepositories = sqliteTable(
  "registry_repositories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    /** "" for the project's root image. */
    name: text("name").notNull(),
    /** path_with_namespace[/name] */
    path: text("path").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("registry_repositories_project_name_idx").on(t.projectId, t.name)],
);

export const registryTags = sqliteTable(
  "registry_tags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    repositoryId: integer("repository_id").notNull().references(() => registryRepositories.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    digest: text("digest").notNull(),
    revision: text("revision").notNull(),
    totalSize: integer("total_size").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("registry_tags_repository_name_idx").on(t.repositoryId, t.name), index("registry_tags_repo_idx").on(t.repositoryId)],
);
