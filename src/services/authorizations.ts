import { getDb } from "../db/client";
import { activeGrantsOfUser, liveFamilies } from "../db/oauth-grants";
import type { Bindings } from "../env";
import { revokeFamilies } from "../credentials/oauth-family";
import { parseScopes } from "../domain/scopes";

/**
 * What the account pages and the admin API need from the OAuth engine: the applications a user
 * has authorized, and revocation of a user's or an application's grants at once.
 */
export interface AuthorizedApplication {
  application: { id: number; uid: string; name: string };
  scopes: string[];
  /** Milliseconds since the epoch of the oldest live grant. */
  createdAt: number;
}

/** Applications with at least one live (exchanged, not revoked) grant of the user; scopes merged. */
export async function listAuthorizedApplications(env: Bindings, userId: number): Promise<AuthorizedApplication[]> {
  const rows = await activeGrantsOfUser(getDb(env.DB), userId);
  const byApp = new Map<number, AuthorizedApplication>();
  for (const { family, app } of rows) {
    const entry = byApp.get(app.id) ?? { application: app, scopes: [], createdAt: family.createdAt };
    for (const s of parseScopes(family.scopes)) if (!entry.scopes.includes(s)) entry.scopes.push(s);
    entry.createdAt = Math.min(entry.createdAt, family.createdAt);
    byApp.set(app.id, entry);
  }
  return [...byApp.values()].sort((a, b) => a.createdAt - b.createdAt);
}

/** "Revoke" on the authorized-applications page: every grant of that user for that application. */
export async function revokeUserAuthorizationsForApplication(env: Bindings, userId: number, applicationId: number): Promise<number> {
  const families = await liveFamilies(getDb(env.DB), { userId, applicationId });
  return revokeFamilies(env, families.map((f) => f.id), { actor: { id: userId, ip: null }, reason: "user_revoked_application" });
}

/** On application delete (call before deleting the row): every grant of the application dies. */
export async function revokeAllForApplication(env: Bindings, applicationId: number): Promise<void> {
  const families = await liveFamilies(getDb(env.DB), { applicationId });
  await revokeFamilies(env, families.map((f) => f.id), { actor: null, reason: "application_deleted" });
}
