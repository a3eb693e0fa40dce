import { Hono } from "hono";
import { recordAudit } from "../../db/audit";
import { getDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { listKeys, rotateKeys, type KeyInfo } from "../../credentials/signing-keys";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";

/**
 * The OpenID Connect signing keys (administrators; GitLab has no such API, docs/oidc.md says why
 * ours looks like this). Only public facts: never key material.
 */
const keys = new Hono<AppEnv>();
keys.use("/admin/oidc/signing_keys", requireAuth(WRITE_API), requireAdmin);
keys.use("/admin/oidc/signing_keys/*", requireAuth(WRITE_API), requireAdmin);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const entity = (k: KeyInfo) => ({
  kid: k.kid,
  state: k.state,
  created_at: iso(k.createdAt),
  activated_at: iso(k.activatedAt),
  retire_at: iso(k.retireAt),
});

keys.get("/admin/oidc/signing_keys", async (c) => c.json((await listKeys(c.env)).map(entity)));

keys.post("/admin/oidc/signing_keys/rotate", async (c) => {
  const ring: KeyInfo[] = await rotateKeys(c.env);
  await recordAudit(getDb(c.env.DB), {
    action: "oidc_signing_key_rotated",
    actor: requestActor(c),
    entityType: "oidc_signing_key",
    entityId: ring.find((k) => k.state === "active")!.kid,
    details: {},
  });
  return c.json(ring.map(entity), 201);
});

export default keys;
