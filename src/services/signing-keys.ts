import { rotateKeys, type KeyInfo, type KeyPurpose } from "../credentials/signing-keys";
import { recordAudit, type AuditAction, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import type { Bindings } from "../env";

/** What a rotation of each ring is recorded as (docs/security.md, "Signing keys"). */
const ROTATION_AUDIT: Record<KeyPurpose, { action: AuditAction; entityType: string }> = {
  oidc: { action: "oidc_signing_key_rotated", entityType: "oidc_signing_key" },
  registry: { action: "registry_signing_key_rotated", entityType: "registry_signing_key" },
};

/** An administrator's rotation of a signing key ring, audited with the key that became active. */
export async function rotateSigningKeys(env: Bindings, actor: AuditActor, purpose: KeyPurpose): Promise<KeyInfo[]> {
  const ring = await rotateKeys(env, purpose);
  const audit = ROTATION_AUDIT[purpose];
  await recordAudit(getDb(env.DB), { action: audit.action, actor, entityType: audit.entityType, entityId: ring.find((k) => k.state === "active")!.kid, details: {} });
  return ring;
}
