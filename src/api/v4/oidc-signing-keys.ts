import { Hono } from "hono";
import { rotateSigningKeys } from "../../services/signing-keys";
import type { AppEnv } from "../../env";
import { listKeys, type KeyInfo, type KeyPurpose } from "../../credentials/signing-keys";
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

const RINGS: { purpose: KeyPurpose; path: string }[] = [
  { purpose: "oidc", path: "/admin/oidc/signing_keys" },
  { purpose: "registry", path: "/admin/registry/signing_keys" },
];

for (const { purpose, path } of RINGS) {
  keys.use(path, requireAuth(WRITE_API), requireAdmin);
  keys.use(`${path}/*`, requireAuth(WRITE_API), requireAdmin);

  keys.get(path, async (c) => c.json((await listKeys(c.env, purpose)).map(entity)));

  keys.post(`${path}/rotate`, async (c) => {
    const ring: KeyInfo[] = await rotateSigningKeys(c.env, requestActor(c), purpose);
    return c.json(ring.map(entity), 201);
  });
}

export default keys;
