import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** License policies of a project (managed_licenses API); approval_status is allowed or denied. */
export const managedLicenses = sqliteTable(
  "managed_licenses",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id").notNull(),
    name: text("name").notNull(),
    approvalStatus: text("approval_status").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("managed_licenses_project_name_idx").on(t.projectId, t.name)],
);
