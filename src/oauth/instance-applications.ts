import { getConfig } from "../config";
import { recordAudit, type AuditActor, type AuditAction } from "../db/audit";
import { createApplication, deleteApplication, findApplicationById, renewApplicationSecret, updateApplication, type ApplicationRow } from "../db/applications";
import { getDb } from "../db/client";
import { validateApplicationInput, type ApplicationErrors } from "../domain/application-input";
import { formatScopes } from "../domain/scopes";
import type { Bindings } from "../env";
import { revokeAllForApplication } from "./authorizations";
import { newApplicationTtl } from "./issue";

/**
 * Instance-wide applications (no owner; GitLab's admin area and `/api/v4/applications`): the use
 * cases both the admin API and the admin pages call, so each change is validated, stored and
 * audited the same way whichever door it came through. Plain functions of the bindings, the acting
 * administrator and the input.
 */
export interface InstanceApplicationInput {
  name: string;
  /** One URI per line. */
  redirectUri: string;
  /** Already parsed by the caller's grammar (src/domain/scopes.ts). */
  scopes: readonly string[];
  accessTokenExpiresIn?: string | number;
  confidential?: boolean;
  trusted?: boolean;
  expireAccessTokens?: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: ApplicationErrors };

function check(env: Bindings, input: InstanceApplicationInput) {
  return validateApplicationInput(
    { name: input.name, redirectUri: input.redirectUri, scopes: input.scopes, accessTokenExpiresIn: input.accessTokenExpiresIn },
    getConfig(env).allowInsecureRedirects,
  );
}

function audit(env: Bindings, actor: AuditActor, action: AuditAction, app: ApplicationRow, details: Record<string, unknown> = {}) {
  return recordAudit(getDb(env.DB), {
    action,
    actor,
    entityType: "oauth_application",
    entityId: app.id,
    details: { name: app.name, application_id: app.uid, ...details },
  });
}

/** An instance-wide application by id; applications users registered on their page are theirs (null here). */
export async function findInstanceApplication(env: Bindings, id: number): Promise<ApplicationRow | null> {
  const app = await findApplicationById(getDb(env.DB), id);
  return app && app.ownerId === null ? app : null;
}

/** Creates one; the secret is in the answer only (storage keeps its hash). */
export async function createInstanceApplication(
  env: Bindings,
  actor: AuditActor,
  input: InstanceApplicationInput,
): Promise<Checked<{ row: ApplicationRow; secret: string }>> {
  const checked = check(env, input);
  if (!checked.ok) return checked;
  const created = await createApplication(getDb(env.DB), {
    ...checked.value,
    accessTokenTtlSeconds: newApplicationTtl(env, checked.value.accessTokenTtlSeconds),
    confidential: input.confidential ?? true,
    trusted: input.trusted ?? false,
    expireAccessTokens: input.expireAccessTokens ?? true,
    ownerId: null,
  });
  await audit(env, actor, "application_created", created.row);
  return { ok: true, value: created };
}

/** Edits one (the secret is kept); the audit row names the trusted flag, which skips consent. */
export async function updateInstanceApplication(
  env: Bindings,
  actor: AuditActor,
  app: ApplicationRow,
  input: InstanceApplicationInput,
): Promise<Checked<ApplicationRow>> {
  const checked = check(env, input);
  if (!checked.ok) return checked;
  const row = await updateApplication(getDb(env.DB), app.id, {
    name: checked.value.name,
    redirectUri: checked.value.redirectUri,
    scopes: formatScopes(checked.value.scopes),
    confidential: input.confidential ?? app.confidential,
    trusted: input.trusted ?? app.trusted,
    expireAccessTokens: input.expireAccessTokens ?? app.expireAccessTokens,
    // An emptied lifetime keeps the current one.
    ...(checked.value.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: checked.value.accessTokenTtlSeconds }),
  });
  if (!row) return { ok: false, errors: { name: ["no longer exists"] } };
  await audit(env, actor, "application_updated", row, { trusted: row.trusted });
  return { ok: true, value: row };
}

/** Every grant dies first, so no token of the application outlives it. */
export async function deleteInstanceApplication(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<void> {
  await revokeAllForApplication(env, app.id);
  await deleteApplication(getDb(env.DB), app.id);
  await audit(env, actor, "application_deleted", app);
}

/** A new secret replaces the old at once; null when the application went away meanwhile. */
export async function renewInstanceApplicationSecret(env: Bindings, actor: AuditActor, app: ApplicationRow): Promise<{ row: ApplicationRow; secret: string } | null> {
  const renewed = await renewApplicationSecret(getDb(env.DB), app.id);
  if (!renewed) return null;
  await audit(env, actor, "application_secret_renewed", renewed.row);
  return renewed;
}
