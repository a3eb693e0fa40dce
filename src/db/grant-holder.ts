import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { users } from "./schema/accounts";
import { pendingChanges } from "./schema/changes";
import { oauthTokenFamilies } from "./schema/oauth";
import type { UserRow } from "./users";

/**
 * Who holds a grant, as a grant's family reads it when its user snapshot is stale (at most once per
 * USER_SNAPSHOT_TTL_MS per family, src/credentials/oauth-access-token.ts): the user row and, in the
 * same query, the cutoff of any pending change that ends the grants of that user, that application
 * or that user's authorization of it (DESIGN, "Changes that finish"; docs/operations.md, "How
 * changes finish"). A grant made at or before the cutoff is refused although its own revocation,
 * a page of a change applied within a subrequest budget, has not been reached yet; once the change
 * is finished every such grant is revoked and its row (the cutoff) is deleted. So access ends for
 * every grant when the change answers, without a call per grant, and no extra read per request.
 */

/** Subjects of changes: one pending change of a kind per subject (src/services/changes/runner.ts). */
export const userSubject = (userId: number) => `user:${userId}`;
export const applicationSubject = (applicationId: number) => `application:${applicationId}`;
export const authorizationSubject = (userId: number, applicationId: number) => `user:${userId}/application:${applicationId}`;

/**
 * The kinds whose intent ends every grant of their subject made before it (src/services/changes/
 * effects.ts). Not deactivation: GitLab keeps those grants, refused by the user's state meanwhile.
 */
export const GRANT_ENDING_KINDS = ["user_blocked", "password_replaced", "user_deleted", "sign_out_everywhere", "application_deleted", "authorization_revoked"] as const;

export interface GrantHolder {
  user: UserRow;
  /** Grants made at or before this instant (ms) are ended by a pending change; null: none. */
  grantsEndedBefore: number | null;
}

/** The user row of a grant and its cutoff in one D1 query; null when the user row is gone. */
export async function findGrantHolder(db: Db, userId: number, applicationId: number | null): Promise<GrantHolder | null> {
  const subjects = applicationId === null ? [userSubject(userId)] : [userSubject(userId), applicationSubject(applicationId), authorizationSubject(userId, applicationId)];
  const cutoff = db
    .select({ at: sql<number | null>`max(${pendingChanges.createdAt})` })
    .from(pendingChanges)
    .where(and(inArray(pendingChanges.kind, GRANT_ENDING_KINDS), or(...subjects.map((s) => eq(pendingChanges.subject, s)))));
  const [row] = await db
    .select({ user: users, grantsEndedBefore: sql<number | null>`(${cutoff})` })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return row ? { user: row.user, grantsEndedBefore: row.grantsEndedBefore === null ? null : Number(row.grantsEndedBefore) } : null;
}

/** Whether a grant made at `grantCreatedAt` is ended by the holder's cutoff. */
export function grantEnded(grantCreatedAt: number, grantsEndedBefore: number | null | undefined): boolean {
  return grantsEndedBefore !== null && grantsEndedBefore !== undefined && grantCreatedAt <= grantsEndedBefore;
}

/**
 * For a listing of grants (`oauth_token_families` rows): true when no pending change ends the row's
 * grant, the same rule as findGrantHolder's cutoff in SQL, so a grant whose revocation is on the way
 * is not listed as live (the authorized-applications page while a revocation runs in slices).
 */
export function notEndedByPendingChange(): SQL {
  const f = oauthTokenFamilies;
  return sql`NOT EXISTS (SELECT 1 FROM ${pendingChanges} WHERE ${inArray(pendingChanges.kind, GRANT_ENDING_KINDS)}
    AND ${pendingChanges.subject} IN ('user:' || ${f.userId}, 'application:' || ${f.applicationId}, 'user:' || ${f.userId} || '/application:' || ${f.applicationId})
    AND ${pendingChanges.createdAt} >= ${f.createdAt})`;
}
