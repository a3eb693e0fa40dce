import { getConfig } from "../config";
import { sweepUnusedDynamicApplications } from "../db/applications";
import { getDb } from "../db/client";
import type { Bindings } from "../env";

/**
 * Clients nobody received (DESIGN, "Changes that finish"): a registration killed after its batch
 * committed leaves a client whose answer never reached anyone. Such a client never receives a
 * grant, so the cron removes dynamically registered clients that have none once they are
 * ORPHAN_SWEEP_SECONDS old (1 hour: far past an authorization code's 10 minutes and a pending
 * authorization's, so a client in the middle of its first authorization is kept). Bounded: 100 a run.
 */
export async function sweepUnusedDynamicClients(env: Bindings, now = Date.now()): Promise<{ clients: number }> {
  const before = now - getConfig(env).orphanSweepSeconds * 1000;
  return { clients: await sweepUnusedDynamicApplications(getDb(env.DB), before, 100) };
}
