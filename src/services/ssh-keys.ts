import { userChanged, userLostAccess } from "./accounts/user-changed";
import { md5Fingerprint, parseSshPublicKey, sha256Fingerprint } from "../credentials/ssh-public-key";
import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { setUserDpopEnabled } from "../db/users";
import { deleteSshKey, findSshKeyByFingerprint, insertSshKey, type SshKeyRow, type SshKeyUsageType } from "../db/ssh-keys";
import type { Bindings } from "../env";

/**
 * A user's SSH keys and the DPoP preference as use cases (GitLab's /user/keys and user
 * preferences): what binds the user's personal access tokens to their signing keys
 * (src/credentials/pat-key-proof.ts). Who may act on whose keys is the caller's check.
 */

export type AddKeyResult = { ok: true; row: SshKeyRow } | { ok: false; errors: Record<string, string[]> };

export async function addSshKey(
  env: Bindings,
  actor: AuditActor,
  input: { userId: number; title: string; key: string; usageType: SshKeyUsageType; expiresAt: number | null },
): Promise<AddKeyResult> {
  const parsed = parseSshPublicKey(input.key);
  // GitLab's validation messages for a key it cannot read and for one already registered.
  if (!parsed) return { ok: false, errors: { key: ["type is forbidden. Must be RSA (2048 bits or more), ECDSA (nistp256) or ED25519"] } };
  if (input.expiresAt !== null && input.expiresAt <= Date.now()) return { ok: false, errors: { expires_at: ["must be in the future"] } };
  const fingerprintSha256 = await sha256Fingerprint(parsed);
  const db = getDb(env.DB);
  if (await findSshKeyByFingerprint(db, fingerprintSha256)) return { ok: false, errors: { fingerprint_sha256: ["has already been taken"] } };
  const row = await insertSshKey(db, {
    userId: input.userId,
    title: input.title,
    key: input.key.trim(),
    fingerprint: await md5Fingerprint(parsed),
    fingerprintSha256,
    usageType: input.usageType,
    createdAt: Date.now(),
    expiresAt: input.expiresAt,
  });
  await recordAudit(db, { action: "ssh_key_added", actor, entityType: "key", entityId: row.id, details: { user_id: row.userId, title: row.title, fingerprint_sha256: row.fingerprintSha256, usage_type: row.usageType } });
  return { ok: true, row };
}

/**
 * Removes the key: a proof it signs is refused from the next request on (the key is looked up in
 * D1 on every proof, nothing remembers it). False when there is no such key of that user.
 */
export async function removeSshKey(env: Bindings, actor: AuditActor, key: SshKeyRow): Promise<boolean> {
  const db = getDb(env.DB);
  if (!(await deleteSshKey(db, key.userId, key.id))) return false;
  await recordAudit(db, { action: "ssh_key_removed", actor, entityType: "key", entityId: key.id, details: { user_id: key.userId, title: key.title, fingerprint_sha256: key.fingerprintSha256 } });
  return true;
}

/**
 * Turns GitLab's `dpop_enabled` on or off for the user. Turning it on takes bearer use of the
 * user's PATs away, so this answers only once no isolate can still remember one of them without
 * the flag (userLostAccess); turning it off only drops the users' snapshots.
 */
export async function setDpopEnabled(env: Bindings, actor: AuditActor, userId: number, enabled: boolean): Promise<void> {
  const db = getDb(env.DB);
  await setUserDpopEnabled(db, userId, enabled);
  await recordAudit(db, { action: "user_preferences_updated", actor, entityType: "user", entityId: userId, details: { dpop_enabled: enabled } });
  if (enabled) await userLostAccess(env, userId);
  else await userChanged(env, userId);
}
