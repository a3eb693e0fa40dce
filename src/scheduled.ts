import type { Bindings } from "./env";
import { sweepAbandonedUploads } from "./registry/uploads";

/**
 * The Worker's cron trigger (wrangler.toml `[triggers]`): storage upkeep that must never run
 * inside a client's request. Today the container registry's sweep of abandoned uploads and
 * unreferenced blobs (docs/registries.md, "Sweeping"); each run does bounded work.
 */
export async function scheduled(_controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(
    sweepAbandonedUploads(env).then(
      (n) => console.log(`registry sweep: ${n.sessions} sessions, ${n.orphans} orphan objects, ${n.unreferenced} unreferenced blobs`),
      (e) => console.error("registry sweep failed", e instanceof Error ? e.message : e),
    ),
  );
}
