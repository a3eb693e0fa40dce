import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Times are integer milliseconds since the epoch throughout the schema.
 * Usernames and emails are unique without regard to case (GitLab); the unique indexes are on
 * lower(...) so the case-insensitive lookups (sign-in, Sudo, ?username=) use them too.
 */
export const users = sqliteTable(
  "users",
  {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  /** PBKDF2 (src/crypto/password.ts). */
  passwordHash: text("password_hash").notNull(),
  /** GitLab user states: active, blocked, deactivated (src/services/accounts/user-state.ts). */
  state: text("state").notNull().default("active"),
  isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
  /** TOTP secret, AES-GCM encrypted under SECRET_KEY_BASE (it must be read back to verify codes). */
  otpSecretEnc: text("otp_secret_enc"),
  otpRequired: integer("otp_required", { mode: "boolean" }).notNull().default(false),
  /** JSON array of SHA-256 hashes of the unused recovery codes. */
  otpBackupCodeHashes: text("otp_backup_code_hashes").notNull().default("[]"),
  failedAttempts: integer("failed_attempts").notNull().default(0),
  lockedUntil: integer("locked_until"),
  lastSignInAt: integer("last_sign_in_at"),
  createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  /**
   * GitLab's password_expires_at: a password an administrator set expires at once, so the user
   * must choose their own at the next sign-in (src/services/accounts/user-edit.ts).
   */
  passwordExpiresAt: integer("password_expires_at"),
  /** Devise's reset_password_token: only the SHA-256 of the mailed token, and when it was sent. */
  resetPasswordTokenHash: text("reset_password_token_hash"),
  resetPasswordSentAt: integer("reset_password_sent_at"),
  /** GitLab's unconfirmed_email: the new address waits here until its confirmation link is opened. */
  unconfirmedEmail: text("unconfirmed_email"),
  /** Devise's confirmation_token (SHA-256 only), and when it was sent. */
  confirmationTokenHash: text("confirmation_token_hash"),
  confirmationSentAt: integer("confirmation_sent_at"),
  /**
   * GitLab's user preference dpop_enabled: every request with one of the user's personal access
   * tokens must carry a DPoP proof signed by one of the user's signing SSH keys (src/credentials/pat-key-proof.ts).
   */
  dpopEnabled: integer("dpop_enabled", { mode: "boolean" }).notNull().default(false),
  },
  // The listing orders of GET /users besides id (username: its unique index).
  (t) => [
    uniqueIndex("users_username_lower_idx").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_lower_idx").on(sql`lower(${t.email})`),
    index("users_name_idx").on(t.name, t.id), index("users_created_idx").on(t.createdAt, t.id),
    // A short ?search= (no word of 3 characters) is an exact, case-insensitive match (src/db/search.ts).
    index("users_name_lower_idx").on(sql`lower(${t.name})`),
    uniqueIndex("users_reset_password_token_idx").on(t.resetPasswordTokenHash),
    uniqueIndex("users_confirmation_token_idx").on(t.confirmationTokenHash)],
);

/** Browser sessions; the cookie holds the raw id, the table its SHA-256. */
export const sessions = sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** True between password and two-factor steps of sign-in: not yet a signed-in session. */
    pendingTwoFactor: integer("pending_two_factor", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** For /profile/active_sessions: the browser's User-Agent (truncated), address, last request. */
    userAgent: text("user_agent"),
    ipAddress: text("ip_address"),
    lastSeenAt: integer("last_seen_at"),
    /**
     * OpenID Connect's session id (Back-Channel Logout 1.0 §2.1 `sid`): random, public, never the
     * cookie or its hash; the grants this session authorised carry it (oauth_token_families.sid).
     * Null only for sessions started before the column.
     */
    sid: text("sid"),
    /** The issuer the session signed in under (ISSUER, or the request's origin): the `iss` of its logout tokens. */
    issuer: text("issuer"),
  },
  (t) => [index("sessions_user_idx").on(t.userId), uniqueIndex("sessions_sid_idx").on(t.sid)],
);

/** Personal access tokens (GitLab): expiry is mandatory and always enforced (spec, 15.0). */
export const personalAccessTokens = sqliteTable(
  "personal_access_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    /** Space-separated scopes. */
    scopes: text("scopes").notNull(),
    /** YYYY-MM-DD, as GitLab; the token is valid through the end of that day (UTC). */
    expiresAt: text("expires_at").notNull(),
    revoked: integer("revoked", { mode: "boolean" }).notNull().default(false),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("pat_user_idx").on(t.userId)],
);

/**
 * A user's SSH public keys (GitLab's keys): `usage_type` auth, signing or auth_and_signing; the
 * signing ones are what a DPoP proof for a personal access token may be signed with.
 */
export const sshKeys = sqliteTable(
  "ssh_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** The OpenSSH public key line as uploaded (type, base64, comment). */
    key: text("key").notNull(),
    /** MD5 colon-hex, as GitLab's `fingerprint`. */
    fingerprint: text("fingerprint").notNull(),
    /** SHA-256 of the key blob, unpadded base64 (ssh-keygen -l without "SHA256:"): a DPoP proof's kid. */
    fingerprintSha256: text("fingerprint_sha256").notNull(),
    usageType: text("usage_type").notNull().default("auth_and_signing"),
    createdAt: integer("created_at").notNull(),
    /** Milliseconds; null: never expires. */
    expiresAt: integer("expires_at"),
  },
  // GitLab: a key is registered once on the instance.
  (t) => [index("ssh_keys_user_idx").on(t.userId), uniqueIndex("ssh_keys_fingerprint_sha256_idx").on(t.fingerprintSha256)],
);

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** sign_in, failed_sign_in, lockout, token_issued, refresh_reuse, token_revoked, application_created, ... */
    action: text("action").notNull(),
    authorId: integer("author_id"),
    /** The administrator behind an action taken under Sudo (author_id is the user acted as). */
    impersonatorId: integer("impersonator_id"),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    /** JSON; never a token, secret or password. */
    details: text("details").notNull().default("{}"),
    ipAddress: text("ip_address"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("audit_action_idx").on(t.action, t.createdAt), index("audit_created_idx").on(t.createdAt, t.id)],
);
