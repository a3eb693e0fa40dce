import { getConfig } from "../config";
import {
  createApplication as insertApplication,
  findApplicationById,
  clearRegistrationToken,
  REGISTRATION_ACCESS_TOKEN_PREFIX,
  replaceDynamicRegistration,
  renewApplicationSecret as storeNewSecret,
  updateApplication as patchApplication,
  type ApplicationRow,
} from "../db/applications";
import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { randomToken } from "../crypto/random";
import { sha256Hex } from "../crypto/hash";
import { validateApplicationInput, type ApplicationErrors } from "../domain/application-input";
import type { LogoutSettings, LogoutSettingsInput } from "../domain/logout-settings";
import { formatScopes } from "../domain/scopes";
import type { Bindings } from "../env";
import { applicationSubject, makeChange } from "./changes/runner";
import { outlastValidationCacheFromNow } from "../credentials/validation-cache";
import { newApplicationTtl } from "../config";

/**
 * OAuth applications as use cases, shared by the admin API (/api/v4/applications) and
 * /profile/applications: each validates, writes and audits in one place, so both surfaces write
 * the same row and the same audit event. Who may touch which application is the caller's check
 * (administrators: instance applications; users: their own).
 */

export interface ApplicationFields extends LogoutSettingsInput {
  name: string;
  /** One URI per line. */
  redirectUri: string;
  /** Parsed by the entry point (src/domain/scopes.ts); each surface knows its grammar. */
  scopes: readonly string[];
  /** Seconds, as typed; blank or absent keeps the default (or, on update, the current value). */
  accessTokenExpiresIn?: string | number;
  confidential: boolean;
  expireAccessTokens: boolean;
  /** RFC 9449 §5.2: only DPoP-bound tokens for this client; absent keeps the current value (default off). */
  dpopBoundAccessTokens?: boolean;
  /** RFC 9126 §6: authorization requests only pushed; absent keeps the current value (default off). */
  requirePushedAuthorizationRequests?: boolean;
  trusted?: boolean;
  /** The client's public keys (JWK Set, object or JSON text) or their URL, and its token endpoint method (src/domain/client-key-set.ts). */
  jwks?: unknown;
  jwksUri?: string | null;
  tokenEndpointAuthMethod?: string | null;
}

export type ApplicationResult<T> = ({ ok: true } & T) | { ok: false; errors: ApplicationErrors };

function check(env: Bindings, input: ApplicationFields) {
  return validateApplicationInput(
    {
      name: input.name,
      redirectUri: input.redirectUri,
      scopes: input.scopes,
      accessTokenExpiresIn: input.accessTokenExpiresIn,
      jwks: input.jwks,
      jwksUri: input.jwksUri,
      tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
      confidential: input.confidential,
      postLogoutRedirectUris: input.postLogoutRedirectUris,
      backchannelLogoutUri: input.backchannelLogoutUri,
      backchannelLogoutSessionRequired: input.backchannelLogoutSessionRequired,
    },
    getConfig(env).allowInsecureRedirects,
    { allowLoopbackKeys: getConfig(env).allowLoopbackClientMetadata },
  );
}

type ApplicationAction = "application_created" | "application_updated" | "application_deleted" | "application_secret_renewed" | "registration_access_token_revoked";

function audit(env: Bindings, actor: AuditActor, action: ApplicationAction, app: ApplicationRow, details: Record<string, unknown> = {}) {
  return recordAudit(getDb(env.DB), {
    action,
    actor,
    entityType: "oauth_application",
    entityId: app.id,
    details: { name: app.name, application_id: app.uid, ...details },
  });
}

/** An instance-wide application by id (the admin API and admin area); applications users registered on their page are theirs (null here). */
export async function findInstanceApplication(env: Bindings, id: number): Promise<ApplicationRow | null> {
  const app = await findApplicationById(getDb(env.DB), id);
  return app && app.ownerId === null ? app : null;
}

/** Registers an application of `ownerId` (null: instance-wide). The secret is in this answer only; storage keeps its hash. */
export async function createApplication(
  env: Bindings,
  actor: AuditActor,
  input: ApplicationFields & { ownerId: number | null },
): Promise<ApplicationResult<{ row: ApplicationRow; secret: string }>> {
  const checked = check(env, input);
  if (!checked.ok) return checked;
  const uid = randomToken();
  // The application and its audit row in one batch: a killed request leaves both or neither.
  const { row, secret } = await insertApplication(
    getDb(env.DB),
    {
      ...checked.value,
      uid,
      accessTokenTtlSeconds: newApplicationTtl(env, checked.value.accessTokenTtlSeconds),
      confidential: input.confidential,
      trusted: input.trusted ?? false,
      expireAccessTokens: input.expireAccessTokens,
      dpopBoundAccessTokens: input.dpopBoundAccessTokens ?? false,
      requirePushedAuthorizationRequests: input.requirePushedAuthorizationRequests ?? false,
      ownerId: input.ownerId,
    },
    { action: "application_created", actor, details: { name: checked.value.name, application_id: uid } },
  );
  return { ok: true, row, secret };
}

/** Changes an application's settings (the secret is kept); an emptied lifetime keeps the current one. The audit row names the trusted flag, which skips consent. */
export async function updateApplication(
  env: Bindings,
  actor: AuditActor,
  app: ApplicationRow,
  given: ApplicationFields,
): Promise<ApplicationResult<{ row: ApplicationRow }>> {
  // Logout settings a surface does not send stay as they are.
  const input: ApplicationFields = {
    ...given,
    postLogoutRedirectUris: given.postLogoutRedirectUris === undefined ? app.postLogoutRedirectUris : given.postLogoutRedirectUris,
    backchannelLogoutUri: given.backchannelLogoutUri === undefined ? app.backchannelLogoutUri : given.backchannelLogoutUri,
    backchannelLogoutSessionRequired: given.backchannelLogoutSessionRequired ?? app.backchannelLogoutSessionRequired,
  };
  const checked = check(env, input);
  if (!checked.ok) return checked;
  const row = await patchApplication(getDb(env.DB), app.id, {
    name: checked.value.name,
    redirectUri: checked.value.redirectUri,
    scopes: formatScopes(checked.value.scopes),
    confidential: input.confidential,
    expireAccessTokens: input.expireAccessTokens,
    ...(input.dpopBoundAccessTokens === undefined ? {} : { dpopBoundAccessTokens: input.dpopBoundAccessTokens }),
    ...(input.requirePushedAuthorizationRequests === undefined ? {} : { requirePushedAuthorizationRequests: input.requirePushedAuthorizationRequests }),
    jwks: checked.value.jwks,
    jwksUri: checked.value.jwksUri,
    tokenEndpointAuthMethod: checked.value.tokenEndpointAuthMethod,
    postLogoutRedirectUris: checked.value.postLogoutRedirectUris,
    backchannelLogoutUri: checked.value.backchannelLogoutUri,
    backchannelLogoutSessionRequired: checked.value.backchannelLogoutSessionRequired,
    ...(input.trusted === undefined ? {} : { trusted: input.trusted }),
    ...(checked.value.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: checked.value.accessTokenTtlSeconds }),
  });
  if (!row) return { ok: false, errors: { name: ["no longer exists"] } };
  await audit(env, actor, "application_updated", row, { trusted: row.trusted, dpop_bound_access_tokens: row.dpopBoundAccessTokens });
  return { ok: true, row };
}

/**
 * Deletes an application as a change that finishes (src/services/changes/): the intent and the
 * `application_deleted` row first, then every grant of it dies, then its row goes, so no token of it
 * outlives it. A retry while the row is still there finishes the same change (one audit row).
 * A null actor is the client itself (RFC 7592 §2.3, with its registration access token); the row says so.
 */
export async function deleteApplication(env: Bindings, actor: AuditActor | null, app: ApplicationRow): Promise<void> {
  await makeChange(env, {
    kind: "application_deleted",
    subject: applicationSubject(app.id),
    payload: { applicationId: app.id },
    audit: {
      action: "application_deleted",
      actor,
      entityType: "oauth_application",
      entityId: app.id,
      details: { name: app.name, application_id: app.uid, ...(actor ? {} : { deleted_by: "client" }) },
    },
  });
}

/** What a dynamic registration (RFC 7591 §2, checked by src/oauth/registration/metadata.ts) stores. */
export interface DynamicRegistrationFields extends LogoutSettings {
  applicationType: string | null;
  name: string;
  redirectUris: string[];
  scopes: string[];
  dpopBoundAccessTokens: boolean;
  requirePushedAuthorizationRequests: boolean;
  jwks: string | null;
  jwksUri: string | null;
  tokenEndpointAuthMethod: string | null;
}

/** A new registration access token (RFC 7592 §3): the value for the answer, its SHA-256 for storage. */
async function newRegistrationToken(): Promise<{ token: string; hash: string }> {
  const token = randomToken(REGISTRATION_ACCESS_TOKEN_PREFIX);
  return { token, hash: await sha256Hex(token) };
}

const dynamicColumns = (reg: DynamicRegistrationFields) => ({
  name: reg.name,
  redirectUri: reg.redirectUris.join("\n"),
  // A client with a key proves itself with it (private_key_jwt): confidential, yet no secret is issued.
  confidential: reg.tokenEndpointAuthMethod === "private_key_jwt",
  dpopBoundAccessTokens: reg.dpopBoundAccessTokens,
  requirePushedAuthorizationRequests: reg.requirePushedAuthorizationRequests,
  jwks: reg.jwks,
  jwksUri: reg.jwksUri,
  tokenEndpointAuthMethod: reg.tokenEndpointAuthMethod,
  applicationType: reg.applicationType,
  // OpenID Connect logout (RP-Initiated Logout §3.1, Back-Channel Logout §2.2).
  postLogoutRedirectUris: reg.postLogoutRedirectUris,
  backchannelLogoutUri: reg.backchannelLogoutUri,
  backchannelLogoutSessionRequired: reg.backchannelLogoutSessionRequired,
});

/**
 * POST /oauth/register (RFC 7591 §3): the client, its registration access token's hash (RFC 7592)
 * and its `dynamic_application_registered` audit row in one batch. A client whose answer never
 * reached anyone (the request killed after the batch) receives no grant and is swept
 * (src/services/dynamic-clients.ts). The token is in this answer only.
 */
export async function createDynamicApplication(env: Bindings, ip: string | null, reg: DynamicRegistrationFields): Promise<{ row: ApplicationRow; registrationToken: string }> {
  const { token, hash } = await newRegistrationToken();
  const { row } = await insertApplication(
    getDb(env.DB),
    { ...dynamicColumns(reg), scopes: reg.scopes, trusted: false, ownerId: null, dynamic: true, accessTokenTtlSeconds: newApplicationTtl(env), registrationTokenHash: hash },
    { action: "dynamic_application_registered", details: { name: reg.name }, ip },
  );
  return { row, registrationToken: token };
}

/**
 * RFC 7592 §2.2: the client replaces its metadata, validated as at registration, and receives a
 * new registration access token (the one presented stops working). Only while the presented token
 * is still current: null when another update replaced it meanwhile.
 */
export async function updateDynamicApplication(
  env: Bindings,
  ip: string | null,
  app: ApplicationRow,
  presentedTokenHash: string,
  reg: DynamicRegistrationFields,
): Promise<{ row: ApplicationRow; registrationToken: string } | null> {
  const { token, hash } = await newRegistrationToken();
  const row = await replaceDynamicRegistration(
    getDb(env.DB),
    app.id,
    presentedTokenHash,
    { ...dynamicColumns(reg), scopes: formatScopes(reg.scopes), registrationTokenHash: hash },
    { action: "application_updated", authorId: null, ip, entityType: "oauth_application", entityId: app.id, details: { name: reg.name, application_id: app.uid, updated_by: "client" } },
  );
  if (!row) return null;
  // Introspection remembers an authenticated client for at most L (src/oauth/request.ts): keys
  // replaced are keys no isolate may still accept once this answers.
  const keysChanged = app.jwks !== row.jwks || app.jwksUri !== row.jwksUri || app.tokenEndpointAuthMethod !== row.tokenEndpointAuthMethod;
  if (keysChanged) await outlastValidationCacheFromNow(env);
  return { row, registrationToken: token };
}

/** A new secret replaces the old at once; null when the application is gone. */
export async function renewApplicationSecret(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<{ row: ApplicationRow; secret: string } | null> {
  const renewed = await storeNewSecret(getDb(env.DB), app.id);
  if (!renewed) return null;
  await audit(env, actor, "application_secret_renewed", renewed.row);
  // The old secret may be remembered by introspection and the refresh grant for at most L (src/oauth/request.ts).
  await outlastValidationCacheFromNow(env);
  return renewed;
}

/**
 * Ends a client's registration access token (RFC 7592) without issuing another: the client keeps
 * working with its grants but can no longer read, change or delete its registration. False when it
 * had none (already ended, or not a dynamic registration).
 */
export async function revokeRegistrationToken(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<boolean> {
  if (!(await clearRegistrationToken(getDb(env.DB), app.id))) return false;
  await audit(env, actor, "registration_access_token_revoked", app);
  return true;
}
