import { and, desc, eq, gte, inArray, lt, lte, sql, type Placeholder, type SQL } from "drizzle-orm";
import { batchesOf } from "./batches";
import type { Db } from "./client";
import { cappedCount } from "./listing";
import { pageCarryingTotal } from "./page";
import { rawRows, rowReader, shaped } from "./shaped-statement";
import { auditEvents, users } from "./schema/accounts";

export type AuditEventRow = typeof auditEvents.$inferSelect;

export type AuditAction =
  | "sign_in"
  | "failed_sign_in"
  | "lockout"
  | "account_unlocked"
  | "throttled"
  | "sign_out"
  /** A Back-Channel Logout delivery that failed MAX_ATTEMPTS times or whose URL the outbound guard refused (src/services/logout/backchannel.ts). */
  | "backchannel_logout_failed"
  | "token_issued"
  | "token_refreshed"
  | "refresh_reuse"
  | "code_reuse"
  | "token_revoked"
  | "application_created"
  | "application_updated"
  | "application_deleted"
  | "application_secret_renewed"
  | "personal_access_token_created"
  | "personal_access_token_revoked"
  | "ssh_key_added"
  | "ssh_key_removed"
  | "user_preferences_updated"
  | "deploy_token_created"
  | "deploy_token_revoked"
  | "two_factor_enabled"
  | "two_factor_disabled"
  | "password_changed"
  | "session_revoked"
  /** "Sign out everywhere" on /profile/active_sessions (src/services/accounts/sign-out-everywhere.ts), written with its intent. */
  | "signed_out_everywhere"
  | "user_blocked"
  | "user_unblocked"
  | "user_deactivated"
  | "user_activated"
  /** A user's deletion recorded (src/services/accounts/user-delete.ts); details say hard_delete. */
  | "user_destroyed"
  | "sudo"
  | "account_guarded"
  | "oidc_signing_key_rotated"
  | "registry_signing_key_rotated"
  | "device_authorization_approved"
  | "device_authorization_denied"
  | "dynamic_application_registered"
  /** An administrator ended a client's RFC 7592 registration access token (DELETE /api/v4/admin/token). */
  | "registration_access_token_revoked"
  /** A dynamically registered client that never received a grant, removed by the cron (src/services/dynamic-clients.ts). */
  | "dynamic_application_swept"
  /** The cron's integrity check found disagreements, or found none after a run that had (src/setup/integrity.ts). */
  | "integrity_check"
  | "metadata_document_application_created"
  | "project_created"
  | "project_updated"
  | "project_path_updated"
  | "project_destroyed"
  | "group_created"
  /** Direct memberships of projects and groups (src/services/memberships.ts). */
  | "member_created"
  | "member_updated"
  | "member_destroyed"
  /** src/services/registry-images.ts: from the REST API, GraphQL and the Container registry page alike. */
  | "container_repository_deleted"
  | "container_repository_tags_deleted"
  /** The git origin could not remove a deleted project's repository (src/git/provisioning.ts). */
  | "project_repository_removal_failed"
  /** Runners (src/services/runners.ts), GitLab's audit event names. */
  | "ci_runner_created"
  | "ci_runner_registered"
  | "ci_runner_updated"
  | "ci_runner_unregistered"
  | "ci_runner_assigned_to_project"
  | "ci_runner_unassigned_from_project"
  | "ci_runner_registration_token_reset"
  /** The account lifecycle (src/services/accounts/): an administrator's edit, mailed resets and confirmations. */
  | "user_updated"
  | "password_reset_requested"
  | "password_reset"
  | "email_confirmation_sent"
  | "email_confirmed"
  /** Written by the namespace migration only (drizzle/*_ns_namespace_collisions.sql). */
  | "namespace_path_renamed";

/**
 * Who takes an action, as an audit row records it: the user the request acts for, the client
 * address, and under Sudo the administrator behind it. Built from the acting principal in one
 * place (`actorOf`, src/credentials/principal.ts), so no call site can forget the administrator.
 */
export interface AuditActor {
  id: number;
  ip: string | null;
  /** The administrator whose token acted as `id` through Sudo; absent otherwise. */
  impersonatorId?: number | null;
  /** RFC 8693 §4.1: who acts for `id` with a delegated token (token exchange); written into the row's details. */
  act?: Record<string, unknown> | null;
}

/**
 * Audit events: who did what to which entity. Details never carry a token, secret or password.
 * An action a signed-in principal takes passes `actor` (author, address and Sudo's administrator
 * come from it); `authorId`/`ip` are for events without one (sign-in attempts, system changes).
 */
export type AuditEvent = {
  action: AuditAction;
  entityType: string;
  /** A value, or a subquery for a row written in the same batch (its id is not known before). */
  entityId: string | number | SQL;
  details?: Record<string, unknown>;
} & ({ actor: AuditActor | null; authorId?: never; ip?: never } | { actor?: never; authorId?: number | null; ip?: string | null });

/** The audit row an event is written as, dated now. */
function auditRow(event: AuditEvent) {
  const actor = event.actor;
  return {
    action: event.action,
    authorId: actor ? actor.id : (event.authorId ?? null),
    impersonatorId: actor?.impersonatorId ?? null,
    entityType: event.entityType,
    entityId: typeof event.entityId === "object" ? event.entityId : String(event.entityId),
    details: JSON.stringify(actor?.act ? { ...event.details, act: actor.act } : (event.details ?? {})),
    ipAddress: actor ? actor.ip : (event.ip ?? null),
    createdAt: Date.now(),
  };
}

/** The audit row's insert, not yet run: for a D1 batch that writes it together with the change it records. */
export function auditStatement(db: Db, event: AuditEvent) {
  return db.insert(auditEvents).values(auditRow(event));
}

/**
 * Many audit rows' inserts, not yet run (a bulk write, src/services/token-families.ts
 * recordIssuedFamilies): statements of at most 12 rows (8 bound values each, the id being the next
 * rowid: under D1's 100 bound parameters), for one D1 batch with the rows they record.
 */
export function auditStatements(db: Db, events: readonly AuditEvent[]) {
  return [...batchesOf(events, 12)].map((slice) => db.insert(auditEvents).values(slice.map(auditRow)));
}

export async function recordAudit(db: Db, event: AuditEvent): Promise<void> {
  await auditStatement(db, event);
}

/**
 * Events written earlier and recorded now, each with its own time (a token family's routine
 * rotations, queued in its Durable Object and flushed by its alarm). One D1 batch: all or none.
 */
export async function recordQueuedAudits(
  db: Db,
  events: { action: AuditAction; entityType: string; entityId: string; details: Record<string, unknown>; authorId: number | null; ip: string | null; createdAt: number }[],
): Promise<void> {
  const [first, ...rest] = events.map((e) =>
    db.insert(auditEvents).values({
      action: e.action,
      authorId: e.authorId,
      entityType: e.entityType,
      entityId: e.entityId,
      details: JSON.stringify(e.details),
      ipAddress: e.ip,
      createdAt: e.createdAt,
    }),
  );
  if (first) await db.batch([first, ...rest]);
}

interface Person {
  username: string;
  name: string;
}

export interface AuditQuery {
  offset: number;
  limit: number;
  /** Milliseconds since the epoch, inclusive. */
  createdAfter?: number;
  createdBefore?: number;
  entityType?: string;
  entityId?: string;
  actions?: readonly AuditAction[];
  id?: number;
  /**
   * GitLab's keyset of audit events (order id desc): the page is read by id, below `beforeId` when
   * a cursor gave one, and has no total.
   */
  keyset?: { beforeId?: number };
}

/**
 * A page of audit events, newest first, with each author's username and name, and the total for
 * the pagination headers. Used by GET /api/v4/audit_events and the authentication log page.
 */
export async function listAuditEvents(
  db: Db,
  q: AuditQuery,
): Promise<{ rows: { event: AuditEventRow; author: Person | null; impersonator: Person | null }[]; total: number | null; hasNext: boolean }> {
  // The statement is built once per shape (src/db/shaped-statement.ts): which filters are present
  // and whether the page is by keyset; their values are bound to placeholders.
  const conds: SQL[] = [];
  const values: Record<string, unknown> = { limit: q.limit + 1, offset: q.keyset ? 0 : q.offset };
  let key = q.keyset ? "audit|keyset|" : "audit|offset|";
  const filter = (name: string, value: unknown, cond: (p: Placeholder) => SQL) => {
    key += `${name},`;
    values[name] = value;
    conds.push(cond(sql.placeholder(name)));
  };
  if (q.createdAfter !== undefined) filter("createdAfter", q.createdAfter, (p) => gte(auditEvents.createdAt, p));
  if (q.createdBefore !== undefined) filter("createdBefore", q.createdBefore, (p) => lte(auditEvents.createdAt, p));
  if (q.entityType !== undefined) filter("entityType", q.entityType, (p) => eq(auditEvents.entityType, p));
  if (q.entityId !== undefined) filter("entityId", q.entityId, (p) => eq(auditEvents.entityId, p));
  if (q.id !== undefined) filter("id", q.id, (p) => eq(auditEvents.id, p));
  if (q.keyset?.beforeId !== undefined) filter("beforeId", q.keyset.beforeId, (p) => lt(auditEvents.id, p));
  if (q.actions) {
    // One placeholder an action: the number of actions is part of the shape.
    const actionPlaceholders = q.actions.map((a, i) => {
      values[`action${i}`] = a;
      return sql.placeholder(`action${i}`);
    });
    key += `actions${actionPlaceholders.length},`;
    conds.push(inArray(auditEvents.action, actionPlaceholders));
  }
  const where = conds.length ? and(...conds) : undefined;
  // Counted no further than GitLab's 10,000 (above it the headers carry no total), in the page's
  // own statement (pageCarryingTotal); a keyset page has no total.
  const count = cappedCount(sql`${auditEvents}`, where);
  const page = shaped(key, () =>
    db
      .select({
        event: auditEvents,
        authorUsername: users.username,
        authorName: users.name,
        impersonatorUsername: sql<string | null>`(SELECT username FROM users AS i WHERE i.id = ${auditEvents.impersonatorId})`,
        impersonatorName: sql<string | null>`(SELECT name FROM users AS i WHERE i.id = ${auditEvents.impersonatorId})`,
        listTotal: q.keyset ? sql<number>`0` : count,
      })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.authorId))
      .where(where)
      .orderBy(...(q.keyset ? [desc(auditEvents.id)] : [desc(auditEvents.createdAt), desc(auditEvents.id)]))
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset")),
  );
  const event = rowReader<AuditEventRow>(auditEvents);
  const at = event.width;
  const found = (await rawRows<unknown[]>(db, page, values)).map((r) => ({
    event: event.read(r),
    author: { username: r[at] as string | null, name: r[at + 1] as string | null },
    impersonatorUsername: r[at + 2] as string | null,
    impersonatorName: r[at + 3] as string | null,
    listTotal: r[at + 4] as number,
  }));
  const { rows, total, hasNext } = q.keyset
    ? { rows: found.slice(0, q.limit), total: null, hasNext: found.length > q.limit }
    : await pageCarryingTotal(found, q, async () => (await rawRows<[number]>(db, shaped(`${key}|count`, () => sql`SELECT ${count}`), values))[0][0]);
  const person = (p: { username: string | null; name: string | null } | null) => (p?.username ? (p as Person) : null);
  return {
    rows: rows.map((r) => ({ event: r.event, author: person(r.author), impersonator: person({ username: r.impersonatorUsername, name: r.impersonatorName }) })),
    total,
    hasNext,
  };
}
