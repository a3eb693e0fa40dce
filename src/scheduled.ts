import type { Bindings } from "./env";
import { sweepAbandonedUploads } from "./registry/uploads";
import { deleteExpiredAssertionJtis } from "./db/client-assertion-jtis";

/** Expired client-assertion jtis removed per run (the table holds one row per assertion, each for minutes). */
const JTI_SWEEP_LIMIT = 5000;

/**
 * The Worker's cron trigger (wrangler.toml `[triggers]`): storage upkeep that must never run
 * inside a client's request. Today the container registry's sweep of abandoned uploads and
 * unreferenced blobs (docs/registries.md, "Sweeping") and the expired jtis of client assertions
 * (docs/oauth.md, "Key-based client authentication"); each run does bounded work.
 */
export async function scheduled(_controller: ScheduledController, env: Bindings, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(
    sweepAbandonedUploads(env).then(
      (n) => console.log(`registry sweep: ${n.sessions} sessions, ${n.orphans} orphan objects, ${n.unreferenced} unreferenced blobs`),
      (e) => console.error("registry sweep failed", e instanceof Error ? e.message : e),
    ),
  );
  ctx.waitUntil(
    deleteExpiredAssertionJtis(env.DB, Date.now(), JTI_SWEEP_LIMIT).catch((e) => console.error("assertion jti sweep failed", e instanceof Error ? e.message : e)),
  );
}
