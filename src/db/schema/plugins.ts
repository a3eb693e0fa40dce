import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/**
 * Registered external plugins (docs/plugin-protocol.md, "Routing"). `core` is built in and never
 * stored. The name is what callers put in Header.To and what the owner may put in Header.From.
 */
export const plugins = sqliteTable(
  "plugins",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull().unique(),
    ownerId: integer("owner_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** "service:<BINDING>" (a service binding), or an http(s) URL; empty: a caller-only name. */
    endpoint: text("endpoint").notNull().default(""),
    description: text("description").notNull().default(""),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("plugins_owner_idx").on(t.ownerId)],
);

/**
 * Results of Call kept for 10 minutes under (caller, UUID), so a repeated Call returns the stored
 * Res instead of running the function twice. `res` is null while the first call is in flight.
 */
export const pluginCallResults = sqliteTable(
  "plugin_call_results",
  {
    userId: integer("user_id").notNull(),
    uuid: text("uuid").notNull(),
    /** SHA-256 of To, Func and Data: the same UUID with another request is refused. */
    requestHash: text("request_hash").notNull(),
    /** The Res, protobuf binary, base64. */
    res: text("res"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.uuid] }), index("plugin_call_results_created_idx").on(t.createdAt)],
);

/** Files received by SendFile; the bytes live in R2 under `key`. */
export const pluginFiles = sqliteTable(
  "plugin_files",
  {
    id: text("id").primaryKey(),
    ownerId: integer("owner_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    purpose: text("purpose").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    key: text("key").notNull(),
    /** JSON: the outcome of Purpose processing (report validation, lint), shown in the reply. */
    processing: text("processing").notNull().default("{}"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("plugin_files_owner_idx").on(t.ownerId)],
);
