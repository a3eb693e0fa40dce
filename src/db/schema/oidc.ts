import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The signing key rings, one per purpose (docs/security.md, "Signing keys"): `oidc` signs id_tokens
 * (docs/oidc.md, Signing keys) and `registry` signs registry tokens (docs/registries.md); no key
 * is ever in both. In each ring at most one key signs (`active`) and at most one waits to sign
 * (`next`); both, and `retiring` keys until their last token has expired, are published. The
 * private key is AES-GCM encrypted under SECRET_KEY_BASE (src/crypto/encrypt.ts, with the ring's
 * own encryption purpose); the public JWK is stored as published. The table keeps the name it had
 * when it held the OIDC ring only.
 */
export const oidcSigningKeys = sqliteTable(
  "oidc_signing_keys",
  {
    /** RFC 7638 JWK thumbprint (base64url SHA-256), published as `kid` (the registry publishes its libtrust id). */
    kid: text("kid").primaryKey(),
    /** The ring: "oidc" or "registry" (src/credentials/signing-keys.ts KeyPurpose). */
    purpose: text("purpose").notNull().default("oidc"),
    alg: text("alg").notNull().default("RS256"),
    /** The public JWK as JSON (kty, n, e). */
    publicJwk: text("public_jwk").notNull(),
    /** encryptString(SECRET_KEY_BASE, "<purpose>-signing-key", private JWK JSON). */
    privateKeyEnc: text("private_key_enc").notNull(),
    /** next, active, retiring. */
    state: text("state").notNull(),
    createdAt: integer("created_at").notNull(),
    activatedAt: integer("activated_at"),
    /** For retiring keys: when the last token it signed has expired; it leaves the ring then. */
    retireAt: integer("retire_at"),
  },
  (t) => [
    // One signing key and one waiting key at most in each ring: concurrent first starts and rotations conflict here.
    uniqueIndex("signing_keys_one_active_per_purpose").on(t.purpose, t.state).where(sql`state = 'active'`),
    uniqueIndex("signing_keys_one_next_per_purpose").on(t.purpose, t.state).where(sql`state = 'next'`),
    index("oidc_keys_state_idx").on(t.state),
  ],
);

/**
 * Device authorization grants (RFC 8628), one row per POST /oauth/authorize_device. Only SHA-256
 * hashes of the device code and the user code are stored. Every state change is one conditional
 * UPDATE (pending -> approved/denied -> redeemed), so of concurrent polls exactly one redeems.
 */
export const oauthDeviceGrants = sqliteTable(
  "oauth_device_grants",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deviceCodeHash: text("device_code_hash").notNull().unique(),
    /** SHA-256 of the normalised user code (letters only, upper case). */
    userCodeHash: text("user_code_hash").notNull().unique(),
    applicationId: integer("application_id").notNull(),
    /** Space-separated scopes requested. */
    scopes: text("scopes").notNull(),
    /** pending, approved, denied, redeemed. */
    status: text("status").notNull().default("pending"),
    /** The person who approved or denied, and when they had authenticated (OIDC auth_time, ms). */
    userId: integer("user_id"),
    authTime: integer("auth_time"),
    /** Seconds a client must wait between polls; grows by 5 on slow_down (RFC 8628 §3.5). */
    intervalSeconds: integer("interval_seconds").notNull(),
    lastPolledAt: integer("last_polled_at"),
    /**
     * The token response of the poll that redeemed the grant, sealed under a key derived from the
     * device code (as a refresh token's grace record): a retried poll after a crash gets it again.
     */
    sealedResponse: text("sealed_response"),
    redeemedAt: integer("redeemed_at"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("device_grants_expiry_idx").on(t.expiresAt)],
);
