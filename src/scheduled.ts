import type { Bindings } from "./env";
import { sweepAbandonedUploads } from "./registry/uploads";
import { sweepPendingChanges } from "./services/changes/runner";

/**
 * The Worker's cron trigger (wrangler.toml `[triggers]`): storage upkeep that must never run
 * inside a client's request. The container registry's sweep of abandoned uploads and
 * unreferenced blobs (docs/registries.md, "Sweeping"), and the changes that fan out which no
 * request finished (docs/operations.md, "How changes finish"); each run does bounded work.
 */
export async function scheduled(_controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(
    sweepAbandonedUploads(env).then(
      (n) => console.log(`registry sweep: ${n.sessions} sessions, ${n.orphans} orphan objects, ${n.unreferenced} unreferenced blobs`),
      (e) => console.error("registry sweep failed", e instanceof Error ? e.message : e),
    ),
  );
  ctx.waitUntil(
    sweepPendingChanges(env).then(
      (n) => console.log(`change sweep: ${n.finished} finished, ${n.failed} failed`),
      (e) => console.error("change sweep failed", e instanceof Error ? e.message : e),
    ),
  );
}
