import { env } from "cloudflare:test";
import { eq, max } from "drizzle-orm";
import { expect } from "vitest";
import { getDb } from "../../src/db/client";
import { pendingChanges } from "../../src/db/schema/changes";
import { sweepPendingChanges, SWEEP_MIN_AGE_MS } from "../../src/services/changes/runner";

/** How many changes are pending for a subject (`user:12`, `application:7`, ...). */
export async function pendingFor(subject: string): Promise<number> {
  return (await getDb(env.DB).select().from(pendingChanges).where(eq(pendingChanges.subject, subject))).length;
}

/**
 * The cron's run a sweep period after the subject's change was recorded: the `now` that makes
 * `sweepPendingChanges` take it and every change recorded before it, and none recorded after it
 * (a change younger than SWEEP_MIN_AGE_MS is left to the request running it). So a test running
 * beside others (`describe.concurrent`) never sweeps a change another test's request is still
 * applying, which that test then asserts on (pending when it answers, what its own slice did).
 * Date.now() when nothing is pending for the subject.
 */
export async function aSweepPeriodAfter(subject: string): Promise<number> {
  const [row] = await getDb(env.DB).select({ at: max(pendingChanges.createdAt) }).from(pendingChanges).where(eq(pendingChanges.subject, subject));
  return row?.at == null ? Date.now() : row.at + SWEEP_MIN_AGE_MS + 1;
}

/** The last sweep run started here: the cron's runs never overlap (one every 10 minutes), so tests running side by side take turns. */
let lastSweep: Promise<unknown> = Promise.resolve();

/**
 * The cron's runs, as if a sweep period had passed since the subject's change (aSweepPeriodAfter),
 * until nothing is pending for the subject: a change of 1,000 records takes a few runs of one
 * subrequest budget each (docs/operations.md, "How changes finish"). One run at a time in this
 * runtime, as the cron does: a run started beside another would redo the pages the other is
 * revoking. Bounded; fails when the change is still pending after `runs` runs.
 */
export async function sweepUntilDone(subject: string, runs = 20): Promise<void> {
  for (let i = 0; i < runs && (await pendingFor(subject)) > 0; i++) {
    const run = lastSweep.then(async () => sweepPendingChanges(env, await aSweepPeriodAfter(subject), { limit: 1000 }));
    lastSweep = run.catch(() => undefined);
    await run;
  }
  expect(await pendingFor(subject)).toBe(0);
}
