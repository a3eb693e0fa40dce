import { getConfig } from "../../config";
import { claimLogout, deleteFinishedLogouts, dueLogouts, markLogoutAttemptFailed, markLogoutDelivered, type DueLogout } from "../../db/backchannel-logouts";
import { getDb } from "../../db/client";
import { checkOutboundUri } from "../../domain/outbound-uri";
import type { Bindings } from "../../env";
import { signWithOidcKey } from "../../credentials/oidc-jwt";

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oidc.md, "Signing out"): the sending of the
 * deliveries that a session's end queued (src/db/backchannel-logouts.ts). Each attempt signs a
 * logout token (§2.4) and POSTs it as `logout_token` (§2.5) to the client's
 * backchannel_logout_uri as it is now, through the outbound-URL guard (public https hosts; loopback
 * http only under ALLOW_LOOPBACK_CLIENT_METADATA, as for metadata documents and jwks_uri), with no
 * redirect followed and a time limit. A 2xx delivers it (§2.8); anything else is retried with
 * exponential backoff, from the request that ended the session and then from the cron, until
 * MAX_ATTEMPTS have failed: then the delivery is `failed` with an audit row
 * (`backchannel_logout_failed`) an administrator sees in the audit log. A URL the guard refuses
 * fails at once (it will not become public by waiting).
 */
export const LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
export const MAX_ATTEMPTS = 6;
/** The first retry waits this long, each next one twice as long, at most MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 60_000;
export const MAX_BACKOFF_MS = 60 * 60_000;
export const SEND_TIMEOUT_MS = 5_000;
/** An attempt holds its delivery this long, so a concurrent sweep does not send it twice. */
const LEASE_MS = 2 * SEND_TIMEOUT_MS;
/** Deliveries sent per run (the request's kick and each cron run do bounded work). */
export const DELIVERY_BATCH = 25;
/** Delivered and failed rows are kept a day (a re-run of the session's end queues nothing twice), then removed. */
export const KEEP_FINISHED_MS = 24 * 60 * 60_000;

/** The wait before attempt number `failed + 1`, after `failed` failures. */
export function backoffMs(failed: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failed - 1));
}

/** §2.4: iss, aud, iat, exp, jti, events, sub and (when the client asked for it) sid; never a nonce. */
export function logoutTokenClaims(d: DueLogout, now: number): Record<string, unknown> {
  const iat = Math.floor(now / 1000);
  return {
    iss: d.row.issuer,
    aud: d.app.uid,
    iat,
    exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
    jti: d.row.jti,
    sub: String(d.row.userId),
    ...(d.app.backchannelLogoutSessionRequired ? { sid: d.row.sid } : {}),
    events: { [LOGOUT_EVENT]: {} },
  };
}

type Attempt = { ok: true } | { ok: false; error: string; final: boolean };

async function send(env: Bindings, d: DueLogout, now: number): Promise<Attempt> {
  if (!d.app.backchannelLogoutUri) return { ok: false, error: "the client no longer has a backchannel_logout_uri", final: true };
  const target = checkOutboundUri(d.app.backchannelLogoutUri, getConfig(env).allowLoopbackClientMetadata);
  if (!target.ok) return { ok: false, error: `backchannel_logout_uri ${target.reason}`, final: true };
  const token = await signWithOidcKey(env, logoutTokenClaims(d, now), "logout+jwt");
  try {
    const res = await fetch(target.uri, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Cache-Control": "no-store" },
      body: new URLSearchParams({ logout_token: token }).toString(),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    return { ok: false, error: `the client answered ${res.status}`, final: false };
  } catch (e) {
    const timeout = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
    return { ok: false, error: timeout ? `no answer within ${SEND_TIMEOUT_MS / 1000} seconds` : "the client could not be reached", final: false };
  }
}

/**
 * Sends the deliveries due at `now` (at most `limit`); answers how many were delivered, will be
 * retried, and failed for good. Called after a sign-out (waitUntil) and by the cron.
 */
export async function deliverDueLogouts(env: Bindings, now = Date.now(), limit = DELIVERY_BATCH): Promise<{ delivered: number; retrying: number; failed: number }> {
  const db = getDb(env.DB);
  const counts = { delivered: 0, retrying: 0, failed: 0 };
  for (const d of await dueLogouts(db, now, limit)) {
    if (!(await claimLogout(db, d.row.id, d.row.nextAttemptAt, now + LEASE_MS))) continue;
    const attempt = await send(env, d, now);
    const attempts = d.row.attempts + 1;
    if (attempt.ok) {
      await markLogoutDelivered(db, d.row.id, attempts);
      counts.delivered++;
      continue;
    }
    const gaveUp = attempt.final || attempts >= MAX_ATTEMPTS;
    await markLogoutAttemptFailed(db, d.row.id, {
      attempts,
      nextAttemptAt: now + backoffMs(attempts),
      lastError: attempt.error,
      gaveUp: gaveUp
        ? {
            action: "backchannel_logout_failed",
            authorId: null,
            entityType: "oauth_application",
            entityId: d.row.applicationId,
            details: { application_id: d.app.uid, name: d.app.name, user_id: d.row.userId, attempts, reason: attempt.error },
          }
        : null,
    });
    if (gaveUp) counts.failed++;
    else counts.retrying++;
  }
  return counts;
}

/** The cron's part: the due deliveries, then finished rows older than KEEP_FINISHED_MS. */
export async function sweepBackchannelLogouts(env: Bindings, now = Date.now()): Promise<Record<string, number>> {
  const counts = await deliverDueLogouts(env, now);
  const removed = await deleteFinishedLogouts(getDb(env.DB), now - KEEP_FINISHED_MS, 1000);
  return { ...counts, "finished rows removed": removed };
}
