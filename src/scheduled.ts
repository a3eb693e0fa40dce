import type { Bindings } from "./env";
import { sweepAbandonedUploads } from "./registry/uploads";
import { sweepPendingChanges } from "./services/changes/runner";
import { sweepUnusedDynamicClients } from "./services/dynamic-clients";
import { sweepPackageOrphans } from "./services/packages";
import { checkIntegrityFromCron } from "./setup/integrity";
import { deleteExpiredAssertionJtis } from "./db/client-assertion-jtis";
import { sweepBackchannelLogouts } from "./services/logout/backchannel";

/** Expired client-assertion jtis removed per run (the table holds one row per assertion, each for minutes). */
const JTI_SWEEP_LIMIT = 5000;

/**
 * The Worker's cron trigger (wrangler.toml `[triggers]`): storage upkeep that must never run
 * inside a client's request. Each task does bounded work per run and is independent of the others
 * (one failing does not stop the rest): the container registry's sweep of abandoned uploads and
 * unreferenced blobs (docs/registries.md, "Sweeping"), the changes that fan out which no request
 * finished (docs/operations.md, "How changes finish"), what killed package uploads left, and
 * dynamic clients nobody received; then the integrity check (docs/operations.md, "Integrity check").
 */
const TASKS: { name: string; run: (env: Bindings) => Promise<Record<string, number>> }[] = [
  { name: "registry sweep", run: sweepAbandonedUploads },
  { name: "change sweep", run: sweepPendingChanges },
  // After the change sweep, which may have queued the logouts of a session's end it finished.
  { name: "back-channel logout delivery", run: (env) => sweepBackchannelLogouts(env) },
  { name: "package sweep", run: sweepPackageOrphans },
  { name: "dynamic client sweep", run: sweepUnusedDynamicClients },
  { name: "assertion jti sweep", run: async (env) => ({ "expired jtis": await deleteExpiredAssertionJtis(env.DB, Date.now(), JTI_SWEEP_LIMIT) }) },
  // Last, after the sweeps: what remains is a finding (audit log, /-/readiness).
  { name: "integrity check", run: checkIntegrityFromCron },
];

export async function runScheduledUpkeep(env: Bindings): Promise<void> {
  for (const task of TASKS) {
    try {
      const counts = await task.run(env);
      console.log(`${task.name}: ${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(", ")}`);
    } catch (e) {
      console.error(`${task.name} failed`, e instanceof Error ? e.message : e);
    }
  }
}

export async function scheduled(_controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(runScheduledUpkeep(env));
}
