import { getDb } from "../../db/client";
import { deletePendingChange, pendingChangesOf, recordChangeFailure, recordIntent, unfinishedChanges, type ChangeGuard, type ChangeIntent, type PendingChangeRow } from "../../db/pending-changes";
import type { Bindings } from "../../env";
import { EFFECTS, type ChangeKind, type ChangePayloads } from "./effects";

/**
 * The one mechanism for changes that fan out over many records (DESIGN, "Changes that finish";
 * docs/operations.md, "How changes finish"):
 *
 * 1. `recordChange`: the change's guard (its state transition), its intent and its audit row in
 *    one D1 batch. From then on the change has happened, whatever crashes.
 * 2. `finishChangesOf`: applies every pending change of a subject (effects.ts, each idempotent)
 *    and deletes its intent. The request that recorded the change calls it at once; a retried
 *    request, or a request that must see the change done first (unblock), calls it too.
 * 3. `sweepPendingChanges`: the cron (src/scheduled.ts) finishes what no request did.
 */

/** Subjects: one pending change of a kind per subject. */
export const userSubject = (userId: number) => `user:${userId}`;
export const applicationSubject = (applicationId: number) => `application:${applicationId}`;
export const authorizationSubject = (userId: number, applicationId: number) => `user:${userId}/application:${applicationId}`;
export const projectSubject = (projectId: number) => `project:${projectId}`;

export type Change<K extends ChangeKind> = Omit<ChangeIntent, "kind" | "payload"> & { kind: K; payload: ChangePayloads[K] };

/** Records the change (guard, intent and audit row in one batch); true when this call made it (false: the guard changed nothing, or the same change is already pending). */
export async function recordChange<K extends ChangeKind>(env: Bindings, change: Change<K>, guard: ChangeGuard | null = null): Promise<boolean> {
  return recordIntent(getDb(env.DB), change, guard);
}

async function run(env: Bindings, row: PendingChangeRow): Promise<number> {
  const db = getDb(env.DB);
  try {
    const effects = EFFECTS[row.kind as ChangeKind] as ((env: Bindings, payload: unknown, run: { attempts: number }) => Promise<number>) | undefined;
    if (!effects) throw new Error(`no effects for change kind ${row.kind}`);
    const n = await effects(env, JSON.parse(row.payload), { attempts: row.attempts });
    await deletePendingChange(db, row.id);
    return n;
  } catch (e) {
    // Ids and kinds only: an effect's error names no secret (drizzle's messages list no bound values here).
    await recordChangeFailure(db, row.id, e instanceof Error ? e.message : String(e));
    throw e;
  }
}

/**
 * Finishes every change pending for the subject, oldest first; answers how many there were and
 * how many records their effects changed. Throws (the change stays pending) when an effect fails.
 */
export async function finishChangesOf(env: Bindings, subject: string): Promise<{ finished: number; kinds: string[]; affected: number }> {
  let affected = 0;
  const rows = await pendingChangesOf(getDb(env.DB), subject);
  for (const row of rows) affected += await run(env, row);
  return { finished: rows.length, kinds: rows.map((r) => r.kind), affected };
}

/** Records the change and finishes it (and anything else pending for its subject) in this request. */
export async function makeChange<K extends ChangeKind>(
  env: Bindings,
  change: Change<K>,
  guard: ChangeGuard | null = null,
): Promise<{ recorded: boolean; finished: number; kinds: string[]; affected: number }> {
  const recorded = await recordChange(env, change, guard);
  return { recorded, ...(await finishChangesOf(env, change.subject)) };
}

/** A change younger than this is left to the request that is running it. */
export const SWEEP_MIN_AGE_MS = 60_000;
/** Each cron run finishes at most this many changes (bounded work per invocation). */
export const SWEEP_LIMIT = 20;

/** The cron's part: finishes changes older than SWEEP_MIN_AGE_MS; one failing change does not stop the others. */
export async function sweepPendingChanges(env: Bindings, now = Date.now(), o: { minAgeMs?: number; limit?: number } = {}): Promise<{ finished: number; failed: number }> {
  const rows = await unfinishedChanges(getDb(env.DB), { createdBefore: now - (o.minAgeMs ?? SWEEP_MIN_AGE_MS), limit: o.limit ?? SWEEP_LIMIT });
  let finished = 0;
  let failed = 0;
  for (const row of rows) {
    try {
      await run(env, row);
      finished++;
    } catch {
      failed++;
    }
  }
  return { finished, failed };
}
