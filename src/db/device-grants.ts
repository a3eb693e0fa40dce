import { sha256Hex } from "../crypto/hash";
import { formatScopes } from "../domain/scopes";

/**
 * Device grants in D1 (src/db/schema/oidc.ts), by the SHA-256 of their device and user codes. Every transition is one conditional UPDATE whose
 * change count says whether this request made it: pending -> approved | denied by the person,
 * approved -> redeemed by exactly one poll, and the poll-rate gate of RFC 8628 §3.5.
 */
export interface DeviceGrantRow {
  id: number;
  application_id: number;
  scopes: string;
  status: "pending" | "approved" | "denied" | "redeemed";
  user_id: number | null;
  auth_time: number | null;
  interval_seconds: number;
  last_polled_at: number | null;
  expires_at: number;
  /** The redeeming poll's token response, sealed under a key derived from the device code. */
  sealed_response: string | null;
  redeemed_at: number | null;
}

export async function insertDeviceGrant(
  d1: D1Database,
  g: { deviceCode: string; userCode: string; applicationId: number; scopes: string[]; intervalSeconds: number; expiresAt: number; now: number },
): Promise<void> {
  const [deviceHash, userHash] = await Promise.all([sha256Hex(g.deviceCode), sha256Hex(g.userCode)]);
  await d1.batch([
    // Expired grants are swept as new ones arrive, so the table does not grow without bound.
    d1.prepare("DELETE FROM oauth_device_grants WHERE expires_at < ?").bind(g.now - 3600_000),
    d1.prepare(
      "INSERT INTO oauth_device_grants (device_code_hash, user_code_hash, application_id, scopes, status, interval_seconds, expires_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
    ).bind(deviceHash, userHash, g.applicationId, formatScopes(g.scopes), g.intervalSeconds, g.expiresAt, g.now),
  ]);
}

const COLUMNS = "id, application_id, scopes, status, user_id, auth_time, interval_seconds, last_polled_at, expires_at, sealed_response, redeemed_at";

export async function findDeviceGrantByUserCode(d1: D1Database, userCode: string): Promise<DeviceGrantRow | null> {
  return d1.prepare(`SELECT ${COLUMNS} FROM oauth_device_grants WHERE user_code_hash = ?`).bind(await sha256Hex(userCode)).first<DeviceGrantRow>();
}

export async function findDeviceGrantByDeviceCode(d1: D1Database, deviceCode: string): Promise<DeviceGrantRow | null> {
  return d1.prepare(`SELECT ${COLUMNS} FROM oauth_device_grants WHERE device_code_hash = ?`).bind(await sha256Hex(deviceCode)).first<DeviceGrantRow>();
}

/** The person's decision; false when the grant was no longer pending or has expired. */
export async function decideDeviceGrant(d1: D1Database, id: number, d: { approve: boolean; userId: number; authTime: number; now: number }): Promise<boolean> {
  const res = await d1.prepare("UPDATE oauth_device_grants SET status = ?, user_id = ?, auth_time = ? WHERE id = ? AND status = 'pending' AND expires_at > ?")
    .bind(d.approve ? "approved" : "denied", d.userId, d.authTime, id, d.now)
    .run();
  return res.meta.changes === 1;
}

/**
 * RFC 8628 §3.5: a poll sooner than the interval after the previous one is slow_down, and the
 * interval grows by 5 seconds for this grant. True when the poll may go on.
 */
export async function admitDevicePoll(d1: D1Database, g: DeviceGrantRow, now: number): Promise<boolean> {
  const res = await d1.prepare(
    "UPDATE oauth_device_grants SET last_polled_at = ?1 WHERE id = ?2 AND (last_polled_at IS NULL OR last_polled_at <= ?1 - interval_seconds * 1000)",
  )
    .bind(now, g.id)
    .run();
  if (res.meta.changes === 1) return true;
  await d1.prepare("UPDATE oauth_device_grants SET interval_seconds = interval_seconds + 5, last_polled_at = ? WHERE id = ?").bind(now, g.id).run();
  return false;
}

/**
 * approved -> redeemed, keeping the redeeming poll's sealed token response in the same statement:
 * of concurrent polls exactly one gets true, and the approval is never spent without the answer
 * that a retried poll can get again.
 */
export async function redeemDeviceGrant(d1: D1Database, id: number, sealed: string, now: number): Promise<boolean> {
  const res = await d1
    .prepare("UPDATE oauth_device_grants SET status = 'redeemed', sealed_response = ?, redeemed_at = ? WHERE id = ? AND status = 'approved'")
    .bind(sealed, now, id)
    .run();
  return res.meta.changes === 1;
}

/**
 * Ends the device codes the user approved that no client has redeemed yet (they become denied);
 * answers how many.
 */
export async function denyApprovedDeviceGrantsOfUser(d1: D1Database, userId: number): Promise<number> {
  const res = await d1.prepare("UPDATE oauth_device_grants SET status = 'denied' WHERE user_id = ? AND status = 'approved'").bind(userId).run();
  return res.meta.changes;
}
