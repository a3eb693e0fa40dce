import { and, asc, eq, isNotNull, lt, lte, ne, sql } from "drizzle-orm";
import { auditStatement, type AuditEvent } from "./audit";
import type { Db } from "./client";
import { sessions } from "./schema/accounts";
import { applications } from "./schema/applications";
import { oauthTokenFamilies, oidcBackchannelLogouts } from "./schema/oauth";

/**
 * Back-Channel Logout 1.0 deliveries (the rules, the token and the sending are
 * src/services/logout/backchannel.ts's; this module only stores). A row is queued for each client
 * with a `backchannel_logout_uri` that holds a grant authorised in the ended session (the
 * directory's `sid`), at most one per client and session (the unique key: a retried queueing adds
 * nothing). Each statement is one INSERT ... SELECT, whatever the number of grants.
 */
export type BackchannelLogoutRow = typeof oidcBackchannelLogouts.$inferSelect;

/** The columns of a queued row, in the table's order after `id`, as one SELECT list over families `f` and applications `a`. */
const queuedColumns = (issuer: unknown, now: number) =>
  sql`${oauthTokenFamilies.applicationId}, ${oauthTokenFamilies.userId}, ${oauthTokenFamilies.sid}, ${issuer}, lower(hex(randomblob(16))), 'pending', 0, ${now}, NULL, ${now}`;

const notifiable = and(isNotNull(applications.backchannelLogoutUri), isNotNull(oauthTokenFamilies.userId));

/** Queues the logouts of one ended session, by its sid (the session row may already be gone). */
export function queueLogoutsOfSid(db: Db, sid: string, issuer: string, now: number) {
  return db
    .insert(oidcBackchannelLogouts)
    .select(
      sql`SELECT DISTINCT NULL, ${queuedColumns(issuer, now)} FROM ${oauthTokenFamilies}
        INNER JOIN ${applications} ON ${applications.id} = ${oauthTokenFamilies.applicationId}
        WHERE ${oauthTokenFamilies.sid} = ${sid} AND ${notifiable}`,
    )
    .onConflictDoNothing();
}

/**
 * Queues the logouts of every session of the user that is about to be deleted (all, or all but
 * `keepIdHash`): run in the same batch before the deletion, so the sessions' sids and issuers are
 * still there to read.
 */
export function queueLogoutsOfUserSessions(db: Db, userId: number, keepIdHash: string | null, now: number) {
  const keep = keepIdHash === null ? sql`1` : ne(sessions.idHash, keepIdHash);
  return db
    .insert(oidcBackchannelLogouts)
    .select(
      sql`SELECT DISTINCT NULL, ${queuedColumns(sessions.issuer, now)} FROM ${sessions}
        INNER JOIN ${oauthTokenFamilies} ON ${oauthTokenFamilies.sid} = ${sessions.sid}
        INNER JOIN ${applications} ON ${applications.id} = ${oauthTokenFamilies.applicationId}
        WHERE ${sessions.userId} = ${userId} AND ${sessions.issuer} IS NOT NULL AND ${keep} AND ${notifiable}`,
    )
    .onConflictDoNothing();
}

/** Ids of the live grants authorised in the session `sid` that end with it (not those that asked for offline_access). */
export async function familiesEndingWithSid(db: Db, sid: string): Promise<string[]> {
  const rows = await db
    .select({ id: oauthTokenFamilies.id })
    .from(oauthTokenFamilies)
    .where(and(eq(oauthTokenFamilies.sid, sid), eq(oauthTokenFamilies.endsWithSession, true), ne(oauthTokenFamilies.status, "revoked")));
  return rows.map((r) => r.id);
}

export interface DueLogout {
  row: BackchannelLogoutRow;
  app: { uid: string; name: string; backchannelLogoutUri: string | null; backchannelLogoutSessionRequired: boolean };
}

/** Pending deliveries due at `now`, oldest first, at most `limit`, with their client's settings as they are now. */
export async function dueLogouts(db: Db, now: number, limit: number): Promise<DueLogout[]> {
  return db
    .select({
      row: oidcBackchannelLogouts,
      app: {
        uid: applications.uid,
        name: applications.name,
        backchannelLogoutUri: applications.backchannelLogoutUri,
        backchannelLogoutSessionRequired: applications.backchannelLogoutSessionRequired,
      },
    })
    .from(oidcBackchannelLogouts)
    .innerJoin(applications, eq(applications.id, oidcBackchannelLogouts.applicationId))
    .where(and(eq(oidcBackchannelLogouts.status, "pending"), lte(oidcBackchannelLogouts.nextAttemptAt, now)))
    .orderBy(asc(oidcBackchannelLogouts.nextAttemptAt))
    .limit(limit);
}

/**
 * Claims a due delivery for one attempt: its next attempt moves to `leaseUntil`, only if nobody
 * moved it since it was read (`seenNextAttemptAt`). Two isolates sweeping at once send it once.
 */
export async function claimLogout(db: Db, id: number, seenNextAttemptAt: number, leaseUntil: number): Promise<boolean> {
  const claimed = await db
    .update(oidcBackchannelLogouts)
    .set({ nextAttemptAt: leaseUntil })
    .where(and(eq(oidcBackchannelLogouts.id, id), eq(oidcBackchannelLogouts.status, "pending"), eq(oidcBackchannelLogouts.nextAttemptAt, seenNextAttemptAt)))
    .returning({ id: oidcBackchannelLogouts.id });
  return claimed.length > 0;
}

export async function markLogoutDelivered(db: Db, id: number, attempts: number): Promise<void> {
  await db.update(oidcBackchannelLogouts).set({ status: "delivered", attempts, lastError: null }).where(eq(oidcBackchannelLogouts.id, id));
}

/** A failed attempt: retried at `nextAttemptAt`, or, with `gaveUp`, failed for good with its audit row in the same batch. */
export async function markLogoutAttemptFailed(
  db: Db,
  id: number,
  o: { attempts: number; nextAttemptAt: number; lastError: string; gaveUp: AuditEvent | null },
): Promise<void> {
  const update = db
    .update(oidcBackchannelLogouts)
    .set({ attempts: o.attempts, nextAttemptAt: o.nextAttemptAt, lastError: o.lastError.slice(0, 500), status: o.gaveUp ? "failed" : "pending" })
    .where(eq(oidcBackchannelLogouts.id, id));
  if (o.gaveUp) await db.batch([update, auditStatement(db, o.gaveUp)]);
  else await update;
}

/** Finished deliveries (delivered or failed) created before `before`, at most `limit` of them, removed (the cron keeps the table small). */
export async function deleteFinishedLogouts(db: Db, before: number, limit: number): Promise<number> {
  const gone = await db
    .delete(oidcBackchannelLogouts)
    .where(
      sql`${oidcBackchannelLogouts.id} IN (SELECT ${oidcBackchannelLogouts.id} FROM ${oidcBackchannelLogouts}
        WHERE ${oidcBackchannelLogouts.status} != 'pending' AND ${lt(oidcBackchannelLogouts.createdAt, before)} LIMIT ${limit})`,
    )
    .returning({ id: oidcBackchannelLogouts.id });
  return gone.length;
}
