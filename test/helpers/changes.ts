import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { getDb } from "../../src/db/client";
import { pendingChanges } from "../../src/db/schema/changes";
import { sweepPendingChanges } from "../../src/services/changes/runner";

/** How many changes are pending for a subject (`user:12`, `application:7`, ...). */
export async function pendingFor(subject: string): Promise<number> {
  return (await getDb(env.DB).select().from(pendingChanges).where(eq(pendingChanges.subject, subject))).length;
}

/**
 * The cron's runs, as if a sweep period had passed, until nothing is pending for the subject: a
 * change of 1,000 records takes a few runs of one subrequest budget each (docs/operations.md, "How
 * changes finish"). Bounded; fails when the change is still pending after `runs` runs.
 */
export async function sweepUntilDone(subject: string, runs = 20): Promise<void> {
  for (let i = 0; i < runs && (await pendingFor(subject)) > 0; i++) await sweepPendingChanges(env, Date.now() + 120_000, { limit: 1000 });
  expect(await pendingFor(subject)).toBe(0);
}
