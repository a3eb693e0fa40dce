import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** CI pipelines, as far as packages and merge requests reference them (no pipeline execution here). */
export const ciPipelines = sqliteTable(
  "ci_pipelines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iid: integer("iid").notNull(),
    projectId: integer("project_id").notNull(),
    sha: text("sha").notNull(),
    ref: text("ref").notNull(),
    status: text("status").notNull().default("success"),
    source: text("source").notNull().default("push"),
    userId: integer("user_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("ci_pipelines_project_idx").on(t.projectId, t.id)],
);

/** Packages of the package registry (generic packages are uploaded through the REST API). */
export const packages = sqliteTable(
  "packages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    name: text("name").notNull(),
    version: text("version").notNull(),
    packageType: text("package_type").notNull(),
    status: text("status").notNull().default("default"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("packages_project_name_version_type_idx").on(t.projectId, t.name, t.version, t.packageType),
    index("packages_project_created_idx").on(t.projectId, t.createdAt, t.id),
  ],
);

/** A package's files; the bytes are in R2 (FILES) under r2_key. */
export const packageFiles = sqliteTable(
  "package_files",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    packageId: integer("package_id").notNull().references(() => packages.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    size: integer("size").notNull(),
    fileSha256: text("file_sha256").notNull(),
    r2Key: text("r2_key").notNull(),
    pipelineId: integer("pipeline_id"),
    createdAt: integer("created_at").notNull(),
  },
  // By key: the sweep and the integrity check ask which objects under packages/ have a row.
  (t) => [index("package_files_package_idx").on(t.packageId, t.fileName), index("package_files_r2_key_idx").on(t.r2Key)],
);

/** Pipelines that built a package (GitLab's build infos). */
export const packagePipelines = sqliteTable(
  "package_pipelines",
  {
    packageId: integer("package_id").notNull().references(() => packages.id, { onDelete: "cascade" }),
    pipelineId: integer("pipeline_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.packageId, t.pipelineId] })],
);
