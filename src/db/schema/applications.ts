import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/** OAuth applications (registered clients). */
export const applications = sqliteTable(
  "oauth_applications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The Application ID, sent as client_id. */
    uid: text("uid").notNull().unique(),
    name: text("name").notNull(),
    /** SHA-256 of the Client Secret; the secret is shown once, at creation or renewal. */
    secretHash: text("secret_hash").notNull(),
    /** Registered redirect URIs, one per line; matched exactly (DESIGN, Redirect URIs). */
    redirectUri: text("redirect_uri").notNull(),
    /** Space-separated scopes chosen at registration. */
    scopes: text("scopes").notNull(),
    confidential: integer("confidential", { mode: "boolean" }).notNull().default(true),
    expireAccessTokens: integer("expire_access_tokens", { mode: "boolean" }).notNull().default(true),
    /** Trusted applications skip the consent page (GitLab, set by administrators). */
    trusted: integer("trusted", { mode: "boolean" }).notNull().default(false),
    /** Access-token lifetime in seconds for this application. */
    accessTokenTtlSeconds: integer("access_token_ttl_seconds").notNull().default(7200),
    /** The user who registered it on /profile/applications; null for instance-wide (admin API) ones. */
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "cascade" }),
    /** Registered through POST /oauth/register (RFC 7591): public, PKCE-only, shown as unverified. */
    dynamic: integer("dynamic", { mode: "boolean" }).notNull().default(false),
    /**
     * Set for a client whose client_id is the URL of its Client ID Metadata Document
     * (src/oauth/client-metadata/): when the cached document must be fetched again (ms). Null for
     * every other application.
     */
    metadataExpiresAt: integer("metadata_expires_at"),
    /**
     * RFC 9449 §5.2 (dpop_bound_access_tokens): the token endpoint issues this client only
     * DPoP-bound tokens, refusing a request without a proof.
     */
    dpopBoundAccessTokens: integer("dpop_bound_access_tokens", { mode: "boolean" }).notNull().default(false),
    /**
     * RFC 9126 §6 (require_pushed_authorization_requests): /oauth/authorize accepts this client's
     * requests only as a request_uri from POST /oauth/par.
     */
    requirePushedAuthorizationRequests: integer("require_pushed_authorization_requests", { mode: "boolean" }).notNull().default(false),
    /** The client's public keys (a JWK Set as JSON text, src/domain/client-key-set.ts); null: none inline. */
    jwks: text("jwks"),
    /** Where the client publishes its public keys (fetched through the public-host guard); null: none. */
    jwksUri: text("jwks_uri"),
    /** RFC 7591 token_endpoint_auth_method; null: by its kind (confidential: client_secret_basic, public: none). */
    tokenEndpointAuthMethod: text("token_endpoint_auth_method"),
    /**
     * RFC 7592 §3: SHA-256 of the client's registration access token (`glrat-`), with which a
     * dynamically registered client reads, updates and deletes its own registration; replaced on
     * each update. Null: no client configuration (every application not made by POST /oauth/register).
     */
    registrationTokenHash: text("registration_token_hash").unique(),
    /** OpenID Connect Registration §2 application_type (web or native) as a dynamic client sent it; null: not sent. */
    applicationType: text("application_type"),
    /**
     * OpenID Connect RP-Initiated Logout 1.0 §3.1 (post_logout_redirect_uris): where the end-session
     * endpoint may send the browser back, one URI per line, matched exactly. Empty: nowhere.
     */
    postLogoutRedirectUris: text("post_logout_redirect_uris").notNull().default(""),
    /**
     * OpenID Connect Back-Channel Logout 1.0 §2.2: where a logout token is POSTed when a session the
     * client signed into ends (fetched through the public-address guard); null: not notified.
     */
    backchannelLogoutUri: text("backchannel_logout_uri"),
    /** Back-Channel Logout §2.2 backchannel_logout_session_required: `sid` in its ID tokens and logout tokens. */
    backchannelLogoutSessionRequired: integer("backchannel_logout_session_required", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("applications_owner_idx").on(t.ownerId)],
);
