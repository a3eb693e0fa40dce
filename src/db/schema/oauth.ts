import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";
import { applications } from "./applications";

/**
 * The directory of token families (one per grant). The tokens themselves, their hashes and their
 * state live in the family's TokenFamily Durable Object; this table only answers "which grants
 * does this user / this application have" (authorized applications, revoke-all) and holds no
 * token, code or hash at all.
 */
export const oauthTokenFamilies = sqliteTable(
  "oauth_token_families",
  {
    /** The family id, also the Durable Object name and part of every token of the family. */
    id: text("id").primaryKey(),
    /** Null for password grants without client authentication. */
    applicationId: integer("application_id").references(() => applications.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** authorization_code, implicit, password. */
    grantType: text("grant_type").notNull(),
    /** Space-separated scopes granted. */
    scopes: text("scopes").notNull(),
    /** pending (code issued, not exchanged), active, revoked. */
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_families_user_app_idx").on(t.userId, t.applicationId), index("oauth_families_app_idx").on(t.applicationId)],
);

/**
 * Authorization requests waiting for the user to sign in (docs/oauth.md, Pending requests): the
 * sign-in redirect carries only the row's id, so authorize URLs of any accepted length survive
 * sign-in. The query holds no secret (it is the client's own authorize URL); rows live 10 minutes.
 */
export const oauthPendingAuthorizations = sqliteTable(
  "oauth_pending_authorizations",
  {
    /** 128 random bits, base64url. */
    id: text("id").primaryKey(),
    /** The authorize request's query string, as received. */
    query: text("query").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("oauth_pending_expires_idx").on(t.expiresAt)],
);
