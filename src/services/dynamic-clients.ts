import { getConfig } from "../config";
import { findApplicationByRegistrationTokenHash, REGISTRATION_ACCESS_TOKEN_PREFIX, sweepUnusedDynamicApplications, type ApplicationRow } from "../db/applications";
import { sha256Hex } from "../crypto/hash";
import { countBearerFailure } from "../credentials/bearer-throttle";
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

/**
 * RFC 7592 §2: the client a registration access token manages, when the token is current and the
 * request names that client. Found by the token's SHA-256 (its unique index), so a guess learns
 * nothing from timing; null for any other token, a token replaced by an update (§2.2) or a client
 * deleted (§2.3: the token dies with it). A client that does not exist therefore meets the same
 * 401 as a bad token, as §2.1 asks. Failures count in the failed-bearer throttle of the address.
 */
export async function clientOfRegistrationToken(
  env: Bindings,
  clientId: string,
  token: string | null,
  ip: string | null,
): Promise<{ app: ApplicationRow; tokenHash: string } | null> {
  if (!token) return null;
  if (token.startsWith(REGISTRATION_ACCESS_TOKEN_PREFIX) && token.length <= 200) {
    const tokenHash = await sha256Hex(token);
    const app = await findApplicationByRegistrationTokenHash(getDb(env.DB), tokenHash);
    if (app && app.uid === clientId) return { app, tokenHash };
  }
  await countBearerFailure(env, ip);
  return null;
}
