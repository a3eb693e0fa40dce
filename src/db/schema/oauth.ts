import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    /** Null for client_credentials grants: the token acts for the application alone (RFC 6749 §4.4). */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    /** authorization_code, implicit, password, device_code, client_credentials, token_exchange, jwt_bearer. */
    grantType: text("grant_type").notNull(),
    /** Space-separated scopes granted. */
    scopes: text("scopes").notNull(),
    /** pending (code issued, not exchanged), active, revoked. */
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
    /**
     * The `sid` of the browser session that authorised the grant (sessions.sid): set for OpenID
     * Connect grants approved in a session, so ending that session finds the clients to notify
     * (Back-Channel Logout) and the grants that end with it (docs/oidc.md, "Signing out").
     */
    sid: text("sid"),
    /**
     * Whether signing out of that session ends the grant: true unless the request asked for
     * offline_access (node-oidc-provider's rule; docs/oidc.md, "Signing out").
     */
    endsWithSession: integer("ends_with_session", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("oauth_families_user_app_idx").on(t.userId, t.applicationId),
    index("oauth_families_app_idx").on(t.applicationId),
    index("oauth_families_sid_idx").on(t.sid),
  ],
);

/**
 * Back-Channel Logout 1.0 deliveries: one row per client and ended session, written before anything
 * is sent (durable), then POSTed by src/services/backchannel-logout.ts with retries and backoff
 * (right after the sign-out and from the cron) until the client answers 2xx or MAX_ATTEMPTS fail
 * (then `failed` and an audit row). The logout token is signed afresh for each attempt; no token
 * is stored.
 */
export const oidcBackchannelLogouts = sqliteTable(
  "oidc_backchannel_logouts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    applicationId: integer("application_id")
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    /** The logout token's `sub` (the user id; no foreign key: the notice outlives a deleted user). */
    userId: integer("user_id").notNull(),
    /** The ended session's sid. */
    sid: text("sid").notNull(),
    /** The logout token's `iss`: the issuer the session signed in under. */
    issuer: text("issuer").notNull().default(""),
    /** The logout token's `jti`, the same for every attempt of this delivery. */
    jti: text("jti").notNull(),
    /** pending, delivered, failed. */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    /** The last failure (an HTTP status or the guard's reason; never a token). */
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("oidc_backchannel_logouts_app_sid_idx").on(t.applicationId, t.sid), index("oidc_backchannel_logouts_due_idx").on(t.status, t.nextAttemptAt)],
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

/**
 * The `jti` of every client assertion accepted (RFC 7523 §3 item 7: a JWT used once), kept until
 * the assertion's own expiry: the unique key makes a second use of the same assertion fail in one
 * statement, even between two concurrent requests. Rows past `expires_at` are replaced in place or
 * removed by the sweep.
 */
export const oauthClientAssertionJtis = sqliteTable(
  "oauth_client_assertion_jtis",
  {
    applicationId: integer("application_id")
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    jti: text("jti").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.applicationId, t.jti] }), index("oauth_client_assertion_jtis_expiry_idx").on(t.expiresAt)],
);

/**
 * Pushed authorization requests (RFC 9126): the parameters a client pushed to POST /oauth/par,
 * kept until /oauth/authorize takes them (once) or they expire. Only the SHA-256 of the
 * request_uri's random part is stored.
 */
export const oauthPushedRequests = sqliteTable(
  "oauth_pushed_requests",
  {
    idHash: text("id_hash").primaryKey(),
    applicationId: integer("application_id")
      .notNull()
      .references(() => applications.id, { onDelete: "cascade" }),
    /** The authorization request's parameters, as a query string. */
    query: text("query").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("oauth_pushed_requests_expires_idx").on(t.expiresAt)],
);
