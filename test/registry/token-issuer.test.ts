import { env } from "cloudflare:test";
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { createLocalJWKSet, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { libtrustKeyId } from "../../src/credentials/registry-token";
import { MIN_PUBLISHED_MS, rotateKeys } from "../../src/credentials/signing-keys";
import { toBase64Url } from "../../src/crypto/random";
import { pushableProject, registryCall, registryToken, tokenResponse } from "./helpers";

/**
 * DESIGN.md "Registries", tokens an external registry can verify: /jwt/auth signs RS256 with the
 * registry's own key ring (rotation included; never an OIDC key) and publishes what Docker distribution's `auth.token` needs
 * (issuer, service, rootcertbundle: X.509 certificates whose libtrust key id is the token's kid;
 * and a JWKS). distribution 2.8 (registry/auth/token/token.go) decodes `aud` as one string.
 */
x509.cryptoProvider.set(crypto);
const decode = (part: string) => JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (part.length % 4)) % 4)));
const headerOf = (token: string) => decode(token.split(".")[0]) as { alg: string; typ: string; kid: string };

async function bundle(): Promise<x509.X509Certificate[]> {
  const res = await registryCall("/jwt/rootcertbundle");
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/x-pem-file");
  const pem = await res.text();
  return pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)!.map((p) => new x509.X509Certificate(p));
}

/** Verifies the token's RS256 signature with a certificate's public key, as distribution's libtrust does. */
async function verifiesWith(cert: x509.X509Certificate, token: string): Promise<boolean> {
  const [h, p, s] = token.split(".");
  const key = await cert.publicKey.export({ name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, ["verify"]);
  const sig = Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
  return crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, sig, new TextEncoder().encode(`${h}.${p}`));
}

describe("registry tokens are signed with an asymmetric key of the registry's own ring", () => {
  it("the JWT header is RS256 with a kid in libtrust's key-id format; aud is the one string container_registry", async () => {
    const { token } = await pushableProject();
    const header = headerOf(token);
    expect(header.alg).toBe("RS256");
    expect(header.typ).toBe("JWT");
    expect(header.kid).toMatch(/^([A-Z2-7]{4}:){11}[A-Z2-7]{4}$/);
    const claims = decode(token.split(".")[1]);
    expect(claims.aud).toBe("container_registry");
    expect(claims.iss).toBe("http://localhost");
  });
  it("rootcertbundle: self-signed X.509 certificates, one per ring key; the token's kid is the libtrust id of one of them, whose key verifies it", async () => {
    const { token } = await pushableProject();
    const certs = await bundle();
    expect(certs.length).toBeGreaterThanOrEqual(2); // active and next
    const ids = await Promise.all(certs.map((c) => libtrustKeyId(c.publicKey.rawData)));
    const signer = certs[ids.indexOf(headerOf(token).kid)];
    expect(signer).toBeDefined();
    expect(await signer.verify({ signatureOnly: true })).toBe(true);
    expect(signer.subject).toBe(signer.issuer);
    expect(await verifiesWith(signer, token)).toBe(true);
    const other = certs.find((c) => c !== signer)!;
    expect(await verifiesWith(other, token)).toBe(false);
  });
  it("the JWKS at /jwt/keys verifies the token with the issuer and audience an external registry is configured with", async () => {
    const { token } = await pushableProject();
    const jwks = (await (await registryCall("/jwt/keys")).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(headerOf(token).kid);
    const config = (await (await registryCall("/jwt/configuration")).json()) as Record<string, string>;
    expect(config).toMatchObject({ realm: "http://localhost/jwt/auth", service: "container_registry", issuer: "http://localhost", rootcertbundle_uri: "http://localhost/jwt/rootcertbundle", jwks_uri: "http://localhost/jwt/keys" });
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as never), { issuer: config.issuer, audience: config.service });
    expect(payload.sub).toBeTruthy();
  });
  it("/v2/ refuses a token signed by anything else: an HS256 token, alg none, an unknown kid", async () => {
    const { name, token } = await pushableProject();
    const [h, p, s] = token.split(".");
    const enc = (o: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(o)));
    const hs = await crypto.subtle.importKey("raw", new TextEncoder().encode("k".repeat(32)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const hsHeader = enc({ alg: "HS256", typ: "JWT", kid: headerOf(token).kid });
    const hsSig = toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", hs, new TextEncoder().encode(`${hsHeader}.${p}`))));
    const forged = [`${hsHeader}.${p}.${hsSig}`, `${enc({ alg: "none", typ: "JWT" })}.${p}.`, `${enc({ ...headerOf(token), kid: "AAAA:AAAA" })}.${p}.${s}`, `${h}.${p}.${s.slice(0, -4)}AAAA`];
    for (const t of forged) expect((await registryCall(`/v2/${name}/tags/list`, { bearer: t })).status).toBe(401);
    expect((await registryCall(`/v2/${name}/tags/list`, { bearer: token })).status).toBe(404); // NAME_UNKNOWN: accepted, no images yet
  });
  it("rotation: a token signed before still works at /v2/, new tokens carry the new key's kid, and the bundle names both", async () => {
    const { name, token, auth } = await pushableProject();
    await env.DB.prepare("UPDATE oidc_signing_keys SET created_at = ? WHERE state = 'next' AND purpose = 'registry'").bind(Date.now() - MIN_PUBLISHED_MS - 1000).run();
    await rotateKeys(env, "registry");
    const fresh = await registryToken([`repository:${name}:pull`], auth);
    expect(headerOf(fresh).kid).not.toBe(headerOf(token).kid);
    const ids = await Promise.all((await bundle()).map((c) => libtrustKeyId(c.publicKey.rawData)));
    expect(ids).toEqual(expect.arrayContaining([headerOf(token).kid, headerOf(fresh).kid]));
    for (const t of [token, fresh]) expect((await registryCall(`/v2/${name}/tags/list`, { bearer: t })).status).toBe(404);
  });
});

describe("/jwt/auth parameters (Docker token protocol; GitLab's JwtController)", () => {
  it("service is required: missing or another service is 404, as GitLab answers", async () => {
    const { name, auth } = await pushableProject();
    const missing = await registryCall(`/jwt/auth?scope=repository:${name}:pull`, { headers: { Authorization: auth } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { errors: { message: string }[] }).errors[0].message).toContain("service");
    expect((await registryCall(`/jwt/auth?service=other&scope=repository:${name}:pull`, { headers: { Authorization: auth } })).status).toBe(404);
  });
  it("offline_token=true: the answer carries no refresh_token (we issue none; the protocol allows one only when asked)", async () => {
    const { name, auth } = await pushableProject();
    for (const offline of ["true", "false"]) {
      const res = await registryCall(`/jwt/auth?service=container_registry&offline_token=${offline}&scope=repository:${name}:pull`, { headers: { Authorization: auth } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.token).toBeTruthy();
      expect(body).not.toHaveProperty("refresh_token");
    }
    expect((await tokenResponse([`repository:${name}:pull`], auth)).status).toBe(200);
  });
});
