import { Hono } from "hono";
import { recordAudit, type AuditAction } from "../../db/audit";
import { getDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { listKeys, rotateKeys, type KeyInfo, type KeyPurpose } from "../../credentials/signing-keys";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";

/**
 * The signing key rings (administrators; GitLab has no such API, docs/oidc.md says why ours looks
 * like this): the OpenID Connect ring at /admin/oidc/signing_keys and the registry token issuer's
 * at /admin/registry/signing_keys, each listed and rotated on its own (docs/security.md, "Signing
 * keys"). Only public facts: never key material.
 */
const keys = new Hono<AppEnv>();

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const entity = (k: KeyInfo) => ({
  kid: k.kid,
  state: k.state,
  created_at: iso(k.createdAt),
  activated_at: iso(k.activatedAt),
  retire_at: iso(k.retireAt),
});

const RINGS: { purpose: KeyPurpose; path: string; audit: { action: AuditAction; entityType: string } }[] = [
  { purpose: "oidc", path: "/admin/oidc/signing_keys", audit: { action: "oidc_signing_key_rotated", entityType: "oidc_signing_key" } },
  { purpose: "registry", path: "/admin/registry/signing_keys", audit: { action: "registry_signing_key_rotated", entityType: "registry_signing_key" } },
];

for (const { purpose, path, audit } of RINGS) {
  keys.use(path, requireAuth(WRITE_API), requireAdmin);
  keys.use(`${path}/*`, requireAuth(WRITE_API), requireAdmin);

  keys.get(path, async (c) => c.json((await listKeys(c.env, purpose)).map(entity)));

  keys.post(`${path}/rotate`, async (c) => {
    const ring: KeyInfo[] = await rotateKeys(c.env, purpose);
    await recordAudit(getDb(c.env.DB), {
      action: audit.action,
      actor: requestActor(c),
      entityType: audit.entityType,
      entityId: ring.find((k) => k.state === "active")!.kid,
      details: {},
    });
    return c.json(ring.map(entity), 201);
  });
}

export default keys;
