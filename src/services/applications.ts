import { getConfig } from "../config";
import {
  createApplication as insertApplication,
  findApplicationById,
  renewApplicationSecret as storeNewSecret,
  updateApplication as patchApplication,
  type ApplicationRow,
} from "../db/applications";
import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { randomToken } from "../crypto/random";
import { validateApplicationInput, type ApplicationErrors } from "../domain/application-input";
import type { LogoutSettingsInput } from "../domain/logout-settings";
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

type ApplicationAction = "application_created" | "application_updated" | "application_deleted" | "application_secret_renewed";

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
 */
export async function deleteApplication(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<void> {
  await makeChange(env, {
    kind: "application_deleted",
    subject: applicationSubject(app.id),
    payload: { applicationId: app.id },
    audit: { action: "application_deleted", actor, entityType: "oauth_application", entityId: app.id, details: { name: app.name, application_id: app.uid } },
  });
}

/** A new secret replaces the old at once; null when the application is gone. */
export async function renewApplicationSecret(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<{ row: ApplicationRow; secret: string } | null> {
  const renewed = await storeNewSecret(getDb(env.DB), app.id);
  if (!renewed) return null;
  await audit(env, actor, "application_secret_renewed", renewed.row);
  // The old secret may be remembered by introspection for at most L (src/oauth/request.ts).
  await outlastValidationCacheFromNow(env);
  return renewed;
}
