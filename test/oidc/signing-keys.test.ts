import { env } from "cloudflare:test";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { decryptString } from "../../src/crypto/encrypt";
import { MIN_PUBLISHED_MS, RETIRE_AFTER_MS } from "../../src/credentials/signing-keys";
import { signJwt } from "../../src/oauth/oidc/jwt";
import { call, makeUserWithToken } from "../helpers/fixtures";

interface Jwk extends JsonWebKey {
  kid: string;
}

async function jwks(): Promise<{ keys: Jwk[] }> {
  const res = await call("/oauth/discovery/keys");
  expect(res.status).toBe(200);
  return res.json();
}

/** Makes the next key old enough to sign (MIN_PUBLISHED_MS), as time would. */
async function ageNextKey() {
  await env.DB.prepare("UPDATE oidc_signing_keys SET created_at = ? WHERE state = 'next' AND purpose = 'oidc'").bind(Date.now() - MIN_PUBLISHED_MS - 1000).run();
}

async function rotate(token: string) {
  return call("/api/v4/admin/oidc/signing_keys/rotate", { method: "POST", token });
}

/**
 * The kids the ring in D1 says are published: the active and the next key, and a retiring key
 * until its retire_at. The file shares its runtime with the other workers files (vitest.config.ts),
 * which sign and verify with this ring but never rotate it; the expectation is read from D1 all the
 * same, so a retiring key a rotation left is expected rather than assumed away.
 */
async function publishedInD1(): Promise<{ active: string[]; next: string[]; all: string[] }> {
  const { results } = await env.DB.prepare("SELECT kid, state, retire_at FROM oidc_signing_keys WHERE purpose = 'oidc'").all<{ kid: string; state: string; retire_at: number | null }>();
  const live = results.filter((r) => r.state !== "retiring" || (r.retire_at !== null && r.retire_at > Date.now()));
  const kids = (state: string) => live.filter((r) => r.state === state).map((r) => r.kid);
  return { active: kids("active"), next: kids("next"), all: live.map((r) => r.kid).sort() };
}

describe("OIDC signing keys (DESIGN, Identity provider: signing keys)", () => {
  it("RFC 7517 §5: the JWKS at /oauth/discovery/keys publishes the active and the next RS256 key with kid, and no private member", async () => {
    const { keys } = await jwks();
    const ring = await publishedInD1();
    expect(ring.active).toHaveLength(1);
    expect(ring.next).toHaveLength(1);
    expect(keys.map((k) => k.kid).sort()).toEqual(ring.all);
    for (const k of keys) {
      expect(k).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", e: "AQAB" });
      expect(k.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const priv of ["d", "p", "q", "dp", "dq", "qi"]) expect(k).not.toHaveProperty(priv);
    }
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
  });

  it("DESIGN convention 6: the private key is stored only encrypted under SECRET_KEY_BASE; no private JWK member appears in D1", async () => {
    await jwks();
    const { results } = await env.DB.prepare("SELECT * FROM oidc_signing_keys WHERE purpose = 'oidc'").all<Record<string, string>>();
    expect(results.length).toBeGreaterThanOrEqual(2);
    const dump = JSON.stringify((await env.DB.prepare("SELECT * FROM oidc_signing_keys WHERE purpose = 'oidc'").all()).results);
    for (const row of results) {
      const priv = JSON.parse(await decryptString(env.SECRET_KEY_BASE!, "oidc-signing-key", row.private_key_enc)) as JsonWebKey;
      for (const member of [priv.d, priv.p, priv.q, priv.dp, priv.dq, priv.qi]) {
        expect(member).toBeTruthy();
        expect(dump.includes(member!)).toBe(false);
      }
      expect(row.private_key_enc.startsWith("v1.")).toBe(true);
    }
  });

  it("rotation publishes the next key first, signs with it after, and keeps the old key published until its last token expired", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const before = await jwks();
    const oldToken = await signJwt(env, { sub: "1", exp: Math.floor(Date.now() / 1000) + 60 });
    const oldKid = JSON.parse(atob(oldToken.split(".")[0])).kid as string;
    const list = (await (await call("/api/v4/admin/oidc/signing_keys", { token })).json()) as { kid: string; state: string }[];
    const next = list.find((k) => k.state === "next")!;
    expect(list.find((k) => k.state === "active")!.kid).toBe(oldKid);
    // The key that will sign is in the JWKS before it signs anything.
    expect(before.keys.map((k) => k.kid)).toContain(next.kid);

    await ageNextKey();
    const res = await rotate(token);
    expect(res.status).toBe(201);
    const ring = (await res.json()) as { kid: string; state: string; retire_at: string }[];
    expect(ring.find((k) => k.state === "active")!.kid).toBe(next.kid);
    const retiring = ring.find((k) => k.state === "retiring")!;
    expect(retiring.kid).toBe(oldKid);
    expect(Date.parse(retiring.retire_at) - Date.now()).toBeGreaterThan(RETIRE_AFTER_MS - 5000);

    const after = await jwks();
    expect(after.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, next.kid]));
    // Exactly one key more than before: the new next key; none left.
    const newNext = ring.find((k) => k.state === "next")!.kid;
    expect(after.keys.map((k) => k.kid).sort()).toEqual([...before.keys.map((k) => k.kid), newNext].sort());
    // A token signed before the rotation still verifies against the published set; new ones use the new key.
    await expect(jwtVerify(oldToken, createLocalJWKSet(after))).resolves.toBeTruthy();
    const newToken = await signJwt(env, { sub: "1", exp: Math.floor(Date.now() / 1000) + 60 });
    expect(JSON.parse(atob(newToken.split(".")[0])).kid).toBe(next.kid);
    await expect(jwtVerify(newToken, createLocalJWKSet(after))).resolves.toBeTruthy();

    // Once its last token has expired the old key leaves the JWKS (at the next rotation's sweep).
    await env.DB.prepare("UPDATE oidc_signing_keys SET retire_at = ? WHERE kid = ?").bind(Date.now() - 1, oldKid).run();
    await ageNextKey();
    expect((await rotate(token)).status).toBe(201);
    const later = await jwks();
    expect(later.keys.map((k) => k.kid)).not.toContain(oldKid);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM oidc_signing_keys WHERE kid = ?").bind(oldKid).first<{ n: number }>())!.n).toBe(0);
  });

  it("rotation is refused (409) while the next key has not been published long enough, and is for administrators only (403)", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    await jwks();
    await env.DB.prepare("UPDATE oidc_signing_keys SET created_at = ? WHERE state = 'next' AND purpose = 'oidc'").bind(Date.now()).run();
    const early = await rotate(admin.token);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { message: string }).message).toMatch(/published long enough/);
    const user = await makeUserWithToken();
    expect((await rotate(user.token)).status).toBe(403);
    expect((await call("/api/v4/admin/oidc/signing_keys", { token: user.token })).status).toBe(403);
  });
});
