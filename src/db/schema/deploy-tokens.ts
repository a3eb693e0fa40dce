import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * GitLab deploy tokens: a credential of a project or of a group (exactly one of project_id,
 * group_id), not of a user. Only the SHA-256 of the token is stored; it is shown once.
 */
export const deployTokens = sqliteTable(
  "deploy_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id"),
    groupId: integer("group_id"),
    name: text("name").notNull(),
    /** The login the token must be sent with (default gitlab+deploy-token-<id>). */
    username: text("username").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    /** Space-separated deploy-token scopes (src/domain/deploy-token-scopes.ts). */
    scopes: text("scopes").notNull(),
    /** Milliseconds since the epoch; null never expires. */
    expiresAt: integer("expires_at"),
    revoked: integer("revoked", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("deploy_tokens_project_idx").on(t.projectId), index("deploy_tokens_group_idx").on(t.groupId)],
);
