import { getDb } from "../../db/client";
import { deletePendingChange, pendingChangesOf, recordChangeFailure, recordChangeProgress, recordIntent, unfinishedChanges, type ChangeGuard, type ChangeIntent, type PendingChangeRow } from "../../db/pending-changes";
import type { Bindings } from "../../env";
import { GRANT_ENDING_KINDS } from "../../db/grant-holder";
import { USER_SNAPSHOT_TTL_MS } from "../../credentials/oauth-access-token";
import { validationCacheMs } from "../../credentials/validation-cache";
import { EFFECTS, type ChangeKind, type ChangePayloads } from "./effects";
import { FINISH_COST, SubrequestBudget, type ChangeRun, type Progress } from "./slices";

/**
 * The one mechanism for changes that fan out over many records (DESIGN, "Changes that finish";
 * docs/operations.md, "How changes finish"):
 *
 * 1. `recordChange`: the change's guard (its state transition), its intent and its audit row in
 *    one D1 batch. From then on the change has happened, whatever crashes.
 * 2. `finishChangesOf`: applies the pending changes of a subject (effects.ts, each idempotent)
 *    within the invocation's subrequest budget (slices.ts), deletes the intent of each that
 *    finished and records where an unfinished one stopped. The request that recorded the change calls it at once; a retried
 *    request, or a request that must see the change done first (unblock), calls it too.
 * 3. `sweepPendingChanges`: the cron (src/scheduled.ts) finishes what no request did.
 */

/** Subjects: one pending change of a kind per subject (the first three are read by a grant's cutoff too). */
export { applicationSubject, authorizationSubject, userSubject } from "../../db/grant-holder";
export const projectSubject = (projectId: number) => `project:${projectId}`;

export type Change<K extends ChangeKind> = Omit<ChangeIntent, "kind" | "payload"> & { kind: K; payload: ChangePayloads[K] };

/** Records the change (guard, intent and audit row in one batch); true when this call made it (false: the guard changed nothing, or the same change is already pending). */
export async function recordChange<K extends ChangeKind>(env: Bindings, change: Change<K>, guard: ChangeGuard | null = null): Promise<boolean> {
  return recordIntent(getDb(env.DB), change, guard);
}

/** Where a change's effects stopped last (null before its first slice). */
function progressOf(row: PendingChangeRow): Progress {
  return row.progress ? (JSON.parse(row.progress) as Progress) : { step: 0, after: "" };
}

/** Runs one change's effects within the budget: true when they all finished (the intent is deleted), false when the run stopped with its progress recorded. */
async function run(env: Bindings, row: PendingChangeRow, budget: SubrequestBudget): Promise<{ done: boolean; affected: number }> {
  const db = getDb(env.DB);
  // The row write that ends this run (deletion, progress or failure) is paid for before it starts.
  if (!budget.take(FINISH_COST)) return { done: false, affected: 0 };
  const r: ChangeRun = { attempts: row.attempts, recordedAt: row.createdAt, budget, progress: progressOf(row), stopped: false };
  try {
    const effects = EFFECTS[row.kind as ChangeKind] as ((env: Bindings, payload: unknown, run: ChangeRun) => Promise<number>) | undefined;
    if (!effects) throw new Error(`no effects for change kind ${row.kind}`);
    const affected = await effects(env, JSON.parse(row.payload), r);
    if (r.stopped) {
      await recordChangeProgress(db, row.id, JSON.stringify(r.progress));
      return { done: false, affected };
    }
    await deletePendingChange(db, row.id);
    return { done: true, affected };
  } catch (e) {
    // Ids and kinds only: an effect's error names no secret (drizzle's messages list no bound values here).
    // What the run did before it failed is kept (the next run continues from there).
    await recordChangeFailure(db, row.id, e instanceof Error ? e.message : String(e), JSON.stringify(r.progress));
    throw e;
  }
}

/**
 * Runs every change pending for the subject, oldest first, within `budget` (one per invocation:
 * pass the request's own when it runs several); answers how many finished, which kinds were
 * pending (finished or not), how many are still pending (the budget ran out: the retried request
 * or the cron sweep continues them) and how many records their effects changed. Throws (the change
 * stays pending) when an effect fails.
 */
export async function finishChangesOf(
  env: Bindings,
  subject: string,
  budget = new SubrequestBudget(),
  o: { answersAccessEnded?: boolean } = {},
): Promise<{ finished: number; pending: number; kinds: string[]; affected: number }> {
  let affected = 0;
  let finished = 0;
  budget.take(1); // the listing
  const rows = await pendingChangesOf(getDb(env.DB), subject);
  for (const row of rows) {
    const r = await run(env, row, budget);
    affected += r.affected;
    if (!r.done) break; // oldest first: a later change of the subject waits for the earlier one
    finished++;
  }
  if (o.answersAccessEnded !== false) await outlastStaleSnapshots(env, rows.slice(finished));
  return { finished, pending: rows.length - finished, kinds: rows.map((r) => r.kind), affected };
}

/** Kinds whose pending effects leave credentials that must be refused by the time the request answers. */
const ACCESS_ENDING_KINDS: readonly string[] = [...GRANT_ENDING_KINDS, "user_deactivated", "user_access_narrowed"];

/**
 * A change still pending when its request's budget ran out has credentials it has not reached yet.
 * Each is refused by what the change wrote in its intent's batch: the user's state (block,
 * deactivation, deletion) or the change's cutoff (src/db/grant-holder.ts), as soon as the
 * credential's object reads the user again. An object reads the user at most USER_SNAPSHOT_TTL_MS
 * after its last read, and an isolate remembers a positive answer for at most L after that
 * (validation-cache.ts). So the request answers once both have passed since the intent was
 * recorded: from then on every credential the change ends is refused everywhere, with no call per
 * credential. A change finished within the budget answers at once (each revocation waited itself).
 */
async function outlastStaleSnapshots(env: Bindings, pending: PendingChangeRow[]): Promise<void> {
  const recorded = pending.filter((row) => ACCESS_ENDING_KINDS.includes(row.kind)).map((row) => row.createdAt);
  if (recorded.length === 0) return;
  const wait = Math.max(...recorded) + USER_SNAPSHOT_TTL_MS + validationCacheMs(env) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Records the change and finishes it (and anything else pending for its subject) in this request. */
export async function makeChange<K extends ChangeKind>(
  env: Bindings,
  change: Change<K>,
  guard: ChangeGuard | null = null,
): Promise<{ recorded: boolean; finished: number; pending: number; kinds: string[]; affected: number }> {
  const budget = new SubrequestBudget();
  budget.take(1); // the record's batch
  const recorded = await recordChange(env, change, guard);
  return { recorded, ...(await finishChangesOf(env, change.subject, budget)) };
}

/** A change younger than this is left to the request that is running it. */
export const SWEEP_MIN_AGE_MS = 60_000;
/** Each cron run looks at most at this many changes; all of them share one subrequest budget (slices.ts). */
export const SWEEP_LIMIT = 20;

/**
 * The cron's part: continues changes older than SWEEP_MIN_AGE_MS, oldest first, until the run's
 * budget is spent; one failing change does not stop the others. `stopped`: changes left pending
 * because the budget ran out (the next run continues them).
 */
export async function sweepPendingChanges(
  env: Bindings,
  now = Date.now(),
  o: { minAgeMs?: number; limit?: number; budget?: SubrequestBudget } = {},
): Promise<{ finished: number; failed: number; stopped: number }> {
  const budget = o.budget ?? new SubrequestBudget();
  budget.take(1); // the listing
  const rows = await unfinishedChanges(getDb(env.DB), { createdBefore: now - (o.minAgeMs ?? SWEEP_MIN_AGE_MS), limit: o.limit ?? SWEEP_LIMIT });
  let finished = 0;
  let failed = 0;
  let stopped = 0;
  for (const row of rows) {
    if (budget.left <= FINISH_COST) {
      stopped++;
      continue;
    }
    try {
      if ((await run(env, row, budget)).done) finished++;
      else stopped++;
    } catch {
      failed++;
    }
  }
  return { finished, failed, stopped };
}
