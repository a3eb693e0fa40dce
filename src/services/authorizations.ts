import { getDb } from "../db/client";
import { activeGrantsOfUser } from "../db/oauth-grants";
import type { Bindings } from "../env";
import { authorizationSubject, makeChange } from "./changes/runner";
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

/**
 * "Revoke" on the authorized-applications page: every grant of that user for that application,
 * as a change that finishes (src/services/changes/): a retry after a failure finishes what is left.
 * Each grant's own `token_revoked` row is its audit. Answers how many grants this call revoked.
 */
export async function revokeUserAuthorizationsForApplication(env: Bindings, userId: number, applicationId: number): Promise<number> {
  const { affected } = await makeChange(env, {
    kind: "authorization_revoked",
    subject: authorizationSubject(userId, applicationId),
    payload: { userId, applicationId },
    audit: null,
  });
  return affected;
}
