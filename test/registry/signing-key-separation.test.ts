import { env } from "cloudflare:test";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { libtrustKeyId } from "../../src/credentials/registry-token";
import { MIN_PUBLISHED_MS, activeSigningKey } from "../../src/credentials/signing-keys";
import { decryptString } from "../../src/crypto/encrypt";
import { toBase64Url } from "../../src/crypto/random";
import { signJwt } from "../../src/oauth/oidc/jwt";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { pushableProject, registryCall } from "./helpers";

/**
 * docs/security.md, "Signing keys": the identity provider's id_tokens and the registry token
 * issuer's tokens are signed by two key rings that never share a key, each rotated on its own. A
 * registry that trusts /jwt/rootcertbundle (aud=container_registry) therefore accepts nothing the
 * OpenID provider signs, and a relying party that trusts /oauth/discovery/keys accepts no registry
 * token.
 */
type Jwk = { kid: string; n: string; e: string };
const jwks = async (path: string) => ((await (await call(path)).json()) as { keys: Jwk[] }).keys;
const enc = (o: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(o)));
const headerOf = (token: string) => JSON.parse(atob(token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))) as { kid: string };

/**
 * The real registry token's header and claims, re-signed with the OIDC ring's active key under that
 * key's libtrust id (what a registry looks keys up by): the token an attacker holding an id_token
 * signer would make.
 */
async function resignedWithOidcKey(token: string): Promise<string> {
  const { key } = await activeSigningKey(env, "oidc");
  const activeKid = headerOf(await signJwt(env, { sub: "x" })).kid;
  const active = (await jwks("/oauth/discovery/keys")).find((k) => k.kid === activeKid)!;
  expect(active).toBeTruthy();
  const publicKey = await importRsa(active);
  const kid = await libtrustKeyId((await crypto.subtle.exportKey("spki", publicKey)) as ArrayBuffer);
  const input = `${enc({ ...headerOf(token), kid })}.${token.split(".")[1]}`;
  const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(input));
  return `${input}.${toBase64Url(new Uint8Array(sig))}`;
}

const importRsa = (k: Jwk) => crypto.subtle.importKey("jwk", { kty: "RSA", n: k.n, e: k.e, ext: true }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]);

/** Whether any of the keys verifies the token's signature, whatever the kid says. */
async function verifiesWithAny(token: string, keys: Jwk[]): Promise<boolean> {
  const [h, p, sig] = token.split(".");
  const bytes = Uint8Array.from(atob(sig.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (sig.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
  for (const k of keys) if (await crypto.subtle.verify("RSASSA-PKCS1-v1_5", await importRsa(k), bytes, new TextEncoder().encode(`${h}.${p}`))) return true;
  return false;
}

describe("two signing key rings: id_tokens and registry tokens never share a key", () => {
  it("/jwt/keys and /oauth/discovery/keys publish no common modulus and no common key id; D1 holds each key in one ring", async () => {
    const oidc = await jwks("/oauth/discovery/keys");
    const registry = await jwks("/jwt/keys");
    expect(oidc.length).toBeGreaterThanOrEqual(2);
    expect(registry.length).toBeGreaterThanOrEqual(2);
    const oidcModuli = new Set(oidc.map((k) => k.n));
    expect(registry.filter((k) => oidcModuli.has(k.n))).toEqual([]);
    const { results } = await env.DB.prepare("SELECT kid, purpose, private_key_enc FROM oidc_signing_keys").all<{ kid: string; purpose: string; private_key_enc: string }>();
    expect(new Set(results.map((r) => r.purpose))).toEqual(new Set(["oidc", "registry"]));
    // Stored like the OIDC keys: encrypted under SECRET_KEY_BASE, each ring under its own purpose.
    for (const r of results.filter((x) => x.purpose === "registry")) {
      expect(r.private_key_enc.startsWith("v1.")).toBe(true);
      await expect(decryptString(env.SECRET_KEY_BASE!, "registry-signing-key", r.private_key_enc)).resolves.toContain('"d"');
      await expect(decryptString(env.SECRET_KEY_BASE!, "oidc-signing-key", r.private_key_enc)).rejects.toThrow();
    }
  });

  it("a registry token re-signed by an OIDC key (its libtrust id as kid, aud=container_registry) is refused at /v2/ (401)", async () => {
    const { name, token } = await pushableProject();
    expect((await registryCall(`/v2/${name}/tags/list`, { bearer: token })).status).toBe(404); // the real token is accepted
    const forged = await resignedWithOidcKey(token);
    expect((await registryCall(`/v2/${name}/tags/list`, { bearer: forged })).status).toBe(401);
  });

  it("no OIDC key verifies a registry token, and no registry key verifies an id_token (signatures checked against every published key, whatever the kid)", async () => {
    const { token } = await pushableProject();
    const oidcKeys = await jwks("/oauth/discovery/keys");
    const registryKeys = await jwks("/jwt/keys");
    expect(await verifiesWithAny(token, registryKeys)).toBe(true);
    expect(await verifiesWithAny(token, oidcKeys)).toBe(false);
    const idToken = await signJwt(env, { sub: "1", aud: "container_registry", exp: Math.floor(Date.now() / 1000) + 60 });
    expect(await verifiesWithAny(idToken, oidcKeys)).toBe(true);
    expect(await verifiesWithAny(idToken, registryKeys)).toBe(false);
    await expect(jwtVerify(idToken, createLocalJWKSet({ keys: registryKeys as never }))).rejects.toThrow();
  });

  it("each ring rotates on its own: rotating the registry's keys (admin API, audited) leaves the OIDC keys as they were", async () => {
    const { token: admin } = await makeUserWithToken({ isAdmin: true });
    const oidcBefore = (await jwks("/oauth/discovery/keys")).map((k) => k.kid).sort();
    const list = (await (await call("/api/v4/admin/registry/signing_keys", { token: admin })).json()) as { kid: string; state: string }[];
    expect(list.map((k) => k.state)).toEqual(expect.arrayContaining(["active", "next"]));
    await env.DB.prepare("UPDATE oidc_signing_keys SET created_at = ? WHERE state = 'next' AND purpose = 'registry'").bind(Date.now() - MIN_PUBLISHED_MS - 1000).run();
    const res = await call("/api/v4/admin/registry/signing_keys/rotate", { method: "POST", token: admin });
    expect(res.status).toBe(201);
    const ring = (await res.json()) as { kid: string; state: string }[];
    expect(ring.find((k) => k.state === "active")!.kid).toBe(list.find((k) => k.state === "next")!.kid);
    expect((await jwks("/oauth/discovery/keys")).map((k) => k.kid).sort()).toEqual(oidcBefore);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'registry_signing_key_rotated' AND entity_id = ?").bind(ring.find((k) => k.state === "active")!.kid).first<{ n: number }>();
    expect(audit!.n).toBe(1);
    // Rotation of the registry's ring is for administrators only, like the OIDC ring's.
    const { token: user } = await makeUserWithToken();
    expect((await call("/api/v4/admin/registry/signing_keys/rotate", { method: "POST", token: user })).status).toBe(403);
  });
});
