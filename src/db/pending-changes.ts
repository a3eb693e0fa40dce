import { asc, eq, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { AuditAction, AuditActor } from "./audit";
import type { Db } from "./client";
import { auditEvents } from "./schema/accounts";
import { pendingChanges } from "./schema/changes";

/**
 * The durable intents of changes that fan out (DESIGN, "Changes that finish"; the runner is
 * src/services/changes/). A row exists from the D1 batch that makes the change until every effect
 * is applied.
 */
export type PendingChangeRow = typeof pendingChanges.$inferSelect;

/** The conditional write that makes a change (a state transition, a new password), run first in the intent's batch. */
export type ChangeGuard = BatchItem<"sqlite">;

export interface ChangeIntent {
  kind: string;
  subject: string;
  payload: Record<string, unknown>;
  /** The change's own audit row, written in the same batch as the intent (none: the effects audit each record). */
  audit: { action: AuditAction; actor: AuditActor | null; entityType: string; entityId: string | number; details?: Record<string, unknown> } | null;
}

/**
 * Records a change in one D1 batch: `guard` (the conditional write that makes the change: a state
 * transition, a new password), then the intent, then its audit row. The intent is written only when
 * the guard changed a row and no change of its kind is pending for the subject, and the audit row
 * only when the intent was written (SQLite's changes() counts the rows of the statement before), so
 * two racing requests record, and audit, one change. Answers whether this call recorded it.
 */
export async function recordIntent(db: Db, intent: ChangeIntent, guard: ChangeGuard | null, now = Date.now()): Promise<boolean> {
  const when = guard ? sql`changes() > 0` : sql`1`;
  const insertIntent = db
    .insert(pendingChanges)
    .select(sql`SELECT NULL, ${intent.kind}, ${intent.subject}, ${JSON.stringify(intent.payload)}, ${now}, 0, NULL, NULL, NULL WHERE ${when}`)
    .onConflictDoNothing()
    .returning({ id: pendingChanges.id });
  const statements: BatchItem<"sqlite">[] = guard ? [guard, insertIntent] : [insertIntent];
  const a = intent.audit;
  if (a) {
    statements.push(
      db
        .insert(auditEvents)
        .select(
          sql`SELECT NULL, ${a.action}, ${a.actor?.id ?? null}, ${a.actor?.impersonatorId ?? null}, ${a.entityType}, ${String(a.entityId)},
            ${JSON.stringify(a.details ?? {})}, ${a.actor?.ip ?? null}, ${now} WHERE changes() = 1`,
        ),
    );
  }
  const results = (await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return (results[guard ? 1 : 0] as unknown[]).length > 0;
}

/** The changes pending for a subject, oldest first. */
export async function pendingChangesOf(db: Db, subject: string): Promise<PendingChangeRow[]> {
  return db.select().from(pendingChanges).where(eq(pendingChanges.subject, subject)).orderBy(asc(pendingChanges.id));
}

/**
 * Unfinished changes recorded before `createdBefore`, oldest first, at most `limit`: what the cron
 * sweep finishes and what the integrity check reports (a change older than a sweep's period is stuck).
 */
export async function unfinishedChanges(db: Db, o: { createdBefore: number; limit: number }): Promise<PendingChangeRow[]> {
  return db.select().from(pendingChanges).where(lt(pendingChanges.createdAt, o.createdBefore)).orderBy(asc(pendingChanges.createdAt)).limit(o.limit);
}

/** Every effect is applied: the change is finished. */
export async function deletePendingChange(db: Db, id: number): Promise<void> {
  await db.delete(pendingChanges).where(eq(pendingChanges.id, id));
}

/** A run failed; the change stays for the next request or sweep. */
export async function recordChangeFailure(db: Db, id: number, message: string, progress: string | null = null, now = Date.now()): Promise<void> {
  await db
    .update(pendingChanges)
    .set({ attempts: sql`${pendingChanges.attempts} + 1`, lastError: message.slice(0, 500), lastAttemptAt: now, ...(progress ? { progress } : {}) })
    .where(eq(pendingChanges.id, id));
}

/** A run spent its budget before the effects finished: where they stopped, for the next run (no attempt counted: nothing failed). */
export async function recordChangeProgress(db: Db, id: number, progress: string, now = Date.now()): Promise<void> {
  await db.update(pendingChanges).set({ progress, lastAttemptAt: now }).where(eq(pendingChanges.id, id));
}
