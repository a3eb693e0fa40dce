import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Iterations of a group; their state (upcoming, current, closed) derives from the dates. */
export const iterations = sqliteTable(
  "iterations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    iid: integer("iid").notNull(),
    groupId: integer("group_id").notNull(),
    title: text("title"),
    description: text("description").notNull().default(""),
    /** YYYY-MM-DD, inclusive */
    startDate: text("start_date").notNull(),
    dueDate: text("due_date").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("iterations_group_idx").on(t.groupId, t.startDate)],
);
