import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { auditStatement, type AuditEvent } from "./audit";
import { sha256Hex, timingSafeEqual } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import type { Db } from "./client";
import { applications } from "./schema/applications";
import { auditEvents } from "./schema/accounts";
import { oauthTokenFamilies } from "./schema/oauth";
import { oauthDeviceGrants } from "./schema/oidc";
import { formatScopes } from "../domain/scopes";
import { cappedCount } from "./listing";
import { listPage, type ListPage, type Window } from "./page";

export type ApplicationRow = typeof applications.$inferSelect;

/** GitLab prefixes application secrets with gloas- so leaked ones are recognisable. */
export const SECRET_PREFIX = "gloas-";
/**
 * RFC 7592 registration access tokens: GitLab issues none, so the prefix is ours (docs/credentials.md,
 * Token prefixes), chosen so a secret scanner can tell them from runner tokens (`glrt-`).
 */
export const REGISTRATION_ACCESS_TOKEN_PREFIX = "glrat-";

export interface NewApplication {
  name: string;
  /** One URI per line. */
  redirectUri: string;
  scopes: string[];
  confidential?: boolean;
  expireAccessTokens?: boolean;
  dpopBoundAccessTokens?: boolean;
  requirePushedAuthorizationRequests?: boolean;
  trusted?: boolean;
  ownerId?: number | null;
  accessTokenTtlSeconds?: number;
  /** A fixed Application ID (the demo SPA's); random otherwise. */
  uid?: string;
  /** Registered through POST /oauth/register. */
  dynamic?: boolean;
  /** The client's public keys (JSON text) or their URL, and its token endpoint authentication method. */
  jwks?: string | null;
  jwksUri?: string | null;
  tokenEndpointAuthMethod?: string | null;
  /** RFC 7592: SHA-256 of the registration access token (dynamic registrations only). */
  registrationTokenHash?: string | null;
  /** OpenID Connect Registration §2 application_type, as a dynamic client sent it. */
  applicationType?: string | null;
  /** OpenID Connect logout settings (src/domain/logout-settings.ts). */
  postLogoutRedirectUris?: string;
  backchannelLogoutUri?: string | null;
  backchannelLogoutSessionRequired?: boolean;
}

/**
 * Creates an application; the plaintext secret is returned once and only its hash is kept. With
 * `audit`, its audit row is written in the same D1 batch (naming the new row by its uid): a client
 * is never created without its audit row, nor the row without the client.
 */
export async function createApplication(
  db: Db,
  input: NewApplication,
  audit: Omit<AuditEvent, "entityType" | "entityId"> | null = null,
): Promise<{ row: ApplicationRow; secret: string }> {
  const secret = randomToken(SECRET_PREFIX);
  const uid = input.uid ?? randomToken();
  const insert = db
    .insert(applications)
    .values({
      uid,
      name: input.name,
      secretHash: await sha256Hex(secret),
      redirectUri: input.redirectUri,
      scopes: formatScopes(input.scopes),
      confidential: input.confidential ?? true,
      expireAccessTokens: input.expireAccessTokens ?? true,
      dpopBoundAccessTokens: input.dpopBoundAccessTokens ?? false,
      requirePushedAuthorizationRequests: input.requirePushedAuthorizationRequests ?? false,
      trusted: input.trusted ?? false,
      ownerId: input.ownerId ?? null,
      accessTokenTtlSeconds: input.accessTokenTtlSeconds ?? 7200,
      dynamic: input.dynamic ?? false,
      jwks: input.jwks ?? null,
      jwksUri: input.jwksUri ?? null,
      tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? null,
      registrationTokenHash: input.registrationTokenHash ?? null,
      applicationType: input.applicationType ?? null,
      postLogoutRedirectUris: input.postLogoutRedirectUris ?? "",
      backchannelLogoutUri: input.backchannelLogoutUri ?? null,
      backchannelLogoutSessionRequired: input.backchannelLogoutSessionRequired ?? false,
      createdAt: Date.now(),
    })
    .returning();
  if (!audit) {
    const [row] = await insert;
    return { row, secret };
  }
  const entityId = sql`(SELECT ${applications.id} FROM ${applications} WHERE ${applications.uid} = ${uid})`;
  const [[row]] = await db.batch([insert, auditStatement(db, { ...audit, entityType: "oauth_application", entityId } as AuditEvent)]);
  return { row, secret };
}

/** What a Client ID Metadata Document says of its client, as stored (or, before approval, not stored). */
export interface MetadataDocumentClient {
  uid: string;
  name: string;
  redirectUri: string;
  scopes: string[];
  accessTokenTtlSeconds: number;
  expiresAt: number;
  /** The document's keys and method (a private_key_jwt client is confidential: it proves itself by its key). */
  jwks?: string | null;
  jwksUri?: string | null;
  tokenEndpointAuthMethod?: string | null;
}

/**
 * The application of a Client ID Metadata Document (src/oauth/client-metadata/): created on the
 * first fetch, refreshed from each later one. A public, dynamic client whose uid is the document's
 * URL; an existing application of another kind with that uid is never touched (null then).
 */
export async function saveMetadataDocumentApplication(db: Db, input: MetadataDocumentClient): Promise<ApplicationRow | null> {
  const confidential = input.tokenEndpointAuthMethod === "private_key_jwt";
  const fields = {
    name: input.name,
    redirectUri: input.redirectUri,
    scopes: formatScopes(input.scopes),
    metadataExpiresAt: input.expiresAt,
    jwks: input.jwks ?? null,
    jwksUri: input.jwksUri ?? null,
    tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? null,
    confidential,
  };
  const [row] = await db
    .insert(applications)
    .values({
      uid: input.uid,
      ...fields,
      // No secret exists for a public client; a random hash that no secret matches fills the column.
      secretHash: await sha256Hex(randomToken(SECRET_PREFIX)),
      trusted: false,
      ownerId: null,
      dynamic: true,
      accessTokenTtlSeconds: input.accessTokenTtlSeconds,
      createdAt: Date.now(),
    })
    .onConflictDoUpdate({ target: applications.uid, set: fields, setWhere: isNotNull(applications.metadataExpiresAt) })
    .returning();
  return row ?? null;
}

export async function findApplicationByUid(db: Db, uid: string): Promise<ApplicationRow | null> {
  const [row] = await db.select().from(applications).where(eq(applications.uid, uid)).limit(1);
  return row ?? null;
}

/** The application whose registration access token (RFC 7592) has this SHA-256, through its unique index. */
export async function findApplicationByRegistrationTokenHash(db: Db, tokenHash: string): Promise<ApplicationRow | null> {
  const [row] = await db.select().from(applications).where(eq(applications.registrationTokenHash, tokenHash)).limit(1);
  return row ?? null;
}

/** The application whose secret has this SHA-256 (the admin token API's look-up of a `gloas-` secret). */
export async function findApplicationBySecretHash(db: Db, secretHash: string): Promise<ApplicationRow | null> {
  const [row] = await db.select().from(applications).where(eq(applications.secretHash, secretHash)).limit(1);
  return row ?? null;
}

/**
 * RFC 7592 §2.2: a dynamic client's new metadata and its new registration access token, written
 * only while the token presented is still the current one (of two updates with one token, one
 * wins), together with the audit row in one batch. Null when the token was replaced meanwhile.
 */
export async function replaceDynamicRegistration(
  db: Db,
  id: number,
  presentedHash: string,
  patch: Pick<ApplicationRow, "name" | "redirectUri" | "scopes" | "confidential" | "dpopBoundAccessTokens" | "requirePushedAuthorizationRequests" | "jwks" | "jwksUri" | "tokenEndpointAuthMethod" | "registrationTokenHash" | "applicationType">,
  audit: AuditEvent,
): Promise<ApplicationRow | null> {
  const update = db
    .update(applications)
    .set(patch)
    .where(and(eq(applications.id, id), eq(applications.registrationTokenHash, presentedHash)))
    .returning();
  // The audit row is written only if the update found the row (same condition, checked after it).
  const entry = db.insert(auditEvents).select(
    sql`SELECT NULL, ${audit.action}, NULL, NULL, ${audit.entityType}, ${String(audit.entityId)}, ${JSON.stringify(audit.details ?? {})}, ${audit.ip ?? null}, ${Date.now()}
        WHERE EXISTS (SELECT 1 FROM ${applications} WHERE ${applications.id} = ${id} AND ${applications.registrationTokenHash} = ${patch.registrationTokenHash})`,
  );
  const [[row]] = await db.batch([update, entry]);
  return row ?? null;
}

/** Admin token API: ends an application's registration access token (a reset without a new value shown). */
export async function clearRegistrationToken(db: Db, id: number): Promise<boolean> {
  const rows = await db.update(applications).set({ registrationTokenHash: null }).where(and(eq(applications.id, id), isNotNull(applications.registrationTokenHash))).returning({ id: applications.id });
  return rows.length > 0;
}

export async function findApplicationById(db: Db, id: number): Promise<ApplicationRow | null> {
  const [row] = await db.select().from(applications).where(eq(applications.id, id)).limit(1);
  return row ?? null;
}

/** All applications (undefined), the instance-wide ones (null), or one user's. */
export async function listApplications(db: Db, ownerId?: number | null): Promise<ApplicationRow[]> {
  const q = db.select().from(applications);
  if (ownerId === undefined) return q.orderBy(desc(applications.id));
  return q.where(ownerId === null ? isNull(applications.ownerId) : eq(applications.ownerId, ownerId)).orderBy(desc(applications.id));
}

/**
 * One page of the instance-wide applications (owner null), newest first: GET /api/v4/applications
 * and /admin/applications, with GitLab's offset pagination (src/db/page.ts listPage).
 */
export async function listInstanceApplicationsPage(db: Db, window: Window): Promise<ListPage<ApplicationRow>> {
  const where = isNull(applications.ownerId);
  const rows = db.select().from(applications).where(where).orderBy(desc(applications.id)).limit(window.limit + 1).offset(window.offset);
  const count = db.select({ n: cappedCount(sql`${applications}`, where) }).from(sql`(SELECT 1)`);
  return listPage<ApplicationRow>(db, rows, count, window.limit);
}

export async function updateApplication(
  db: Db,
  id: number,
  patch: Partial<
    Pick<
      ApplicationRow,
      "name" | "redirectUri" | "scopes" | "confidential" | "expireAccessTokens" | "dpopBoundAccessTokens" | "requirePushedAuthorizationRequests" | "trusted" | "accessTokenTtlSeconds" | "jwks" | "jwksUri" | "tokenEndpointAuthMethod"
      | "postLogoutRedirectUris" | "backchannelLogoutUri" | "backchannelLogoutSessionRequired"
    >
  >,
): Promise<ApplicationRow | null> {
  const [row] = await db.update(applications).set(patch).where(eq(applications.id, id)).returning();
  return row ?? null;
}

export async function deleteApplication(db: Db, id: number): Promise<boolean> {
  const res = await db.delete(applications).where(eq(applications.id, id)).returning({ id: applications.id });
  return res.length > 0;
}

/** A new secret replaces the old at once; the plaintext is returned once. */
export async function renewApplicationSecret(db: Db, id: number): Promise<{ row: ApplicationRow; secret: string } | null> {
  const secret = randomToken(SECRET_PREFIX);
  const [row] = await db
    .update(applications)
    .set({ secretHash: await sha256Hex(secret) })
    .where(eq(applications.id, id))
    .returning();
  return row ? { row, secret } : null;
}

export async function verifyClientSecret(app: ApplicationRow, secret: string): Promise<boolean> {
  return timingSafeEqual(await sha256Hex(secret), app.secretHash);
}

/**
 * Dynamically registered clients (POST /oauth/register) created before `before` that never
 * received a grant (no token family, no device grant, of any status): a registration whose answer
 * nobody received, or one nobody used. Deleted with one audit row each, in one batch, at most
 * `limit` a run; the conditions are re-checked by the delete itself, so a grant issued meanwhile keeps its client.
 */
export async function sweepUnusedDynamicApplications(db: Db, before: number, limit: number): Promise<number> {
  const unused = sql`${applications.dynamic} = 1 AND ${applications.metadataExpiresAt} IS NULL AND ${applications.createdAt} < ${before}
    AND NOT EXISTS (SELECT 1 FROM ${oauthTokenFamilies} WHERE ${oauthTokenFamilies.applicationId} = ${applications.id})
    AND NOT EXISTS (SELECT 1 FROM ${oauthDeviceGrants} WHERE ${oauthDeviceGrants.applicationId} = ${applications.id})`;
  const chosen = sql`${applications.id} IN (SELECT ${applications.id} FROM ${applications} WHERE ${unused} ORDER BY ${applications.id} LIMIT ${limit})`;
  const [, removed] = await db.batch([
    // Every column of audit_events in its order (drizzle's insert-select): id, action, author, impersonator, entity type and id, details, address, time.
    db.insert(auditEvents).select(
      sql`SELECT NULL, 'dynamic_application_swept', NULL, NULL, 'oauth_application', ${applications.id}, json_object('name', ${applications.name}, 'application_id', ${applications.uid}), NULL, ${Date.now()} FROM ${applications} WHERE ${chosen}`,
    ),
    db.delete(applications).where(chosen).returning({ id: applications.id }),
  ]);
  return removed.length;
}
