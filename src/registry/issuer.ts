// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { Hono } from "hono";
import type { AppEnv, Bindings } from "../env";
import { registryVerifyKeys, REGISTRY_AUDIENCE, type RegistryVerifyKey } from "../credentials/registry-token";
import { issuerOf } from "../oauth/issuer";
import { renderRegistryError, tokenRealm } from "./errors";

/**
 * What a Docker distribution registry's `auth.token` configuration needs to trust /jwt/auth as its
 * token server (GitLab's own model; docs/registries.md, "An external registry"): the issuer, the
 * service, a root certificate bundle (distribution 2.8 wants X.509 certificates: one self-signed
 * certificate per signing key, whose libtrust key id is the `kid` of the tokens), and the JWKS.
 */
x509.cryptoProvider.set(crypto);

const SIGNING = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;
/** Certificates outlive any key (rotation replaces keys long before): ten years. */
const CERT_LIFETIME_MS = 10 * 365 * 86400_000;

/** Per isolate, by key id: the PEM certificate (deterministic: RSA PKCS#1 v1.5 over fixed fields). */
const certificates = new Map<string, Promise<string>>();

async function certificateOf(key: RegistryVerifyKey): Promise<string> {
  let p = certificates.get(key.kid);
  if (!p) {
    p = (async () => {
      const serial = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key.ring.kid))).slice(0, 16);
      serial[0] &= 0x7f; // a positive INTEGER
      const cert = await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: [...serial].map((b) => b.toString(16).padStart(2, "0")).join(""),
        name: `CN=container registry token issuer, OU=${key.ring.kid}`,
        notBefore: new Date(key.ring.createdAt),
        notAfter: new Date(key.ring.createdAt + CERT_LIFETIME_MS),
        signingAlgorithm: SIGNING,
        keys: { publicKey: key.publicKey, privateKey: await key.ring.privateKey() },
        extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign, true)],
      });
      return cert.toString("pem");
    })();
    certificates.set(key.kid, p);
    p.catch(() => certificates.delete(key.kid));
  }
  return p;
}

/** The PEM bundle of every signing key's certificate (active, next, and retiring ones). */
export async function rootCertBundle(env: Bindings): Promise<string> {
  const keys = await registryVerifyKeys(env);
  return `${(await Promise.all(keys.map(certificateOf))).join("\n")}\n`;
}

/** The same keys as a JWKS (RFC 7517), with the registry's key ids. */
export async function registryJwks(env: Bindings) {
  return Promise.all(
    (await registryVerifyKeys(env)).map(async (k) => {
      const jwk = (await crypto.subtle.exportKey("jwk", k.publicKey)) as JsonWebKey;
      return { kty: jwk.kty, n: jwk.n, e: jwk.e, alg: "RS256", use: "sig", kid: k.kid };
    }),
  );
}

const issuerRoutes = new Hono<AppEnv>();
issuerRoutes.onError(renderRegistryError);
/** Keys are public; external registries read these when they are configured (and after a rotation). */
const PUBLIC_CACHE = "public, max-age=300";

issuerRoutes.get("/rootcertbundle", async (c) => {
  c.header("Cache-Control", PUBLIC_CACHE);
  c.header("Content-Type", "application/x-pem-file");
  return c.body(await rootCertBundle(c.env));
});

issuerRoutes.get("/keys", async (c) => {
  c.header("Cache-Control", PUBLIC_CACHE);
  return c.json({ keys: await registryJwks(c.env) });
});

/** The values of distribution's `auth.token` section, for this deployment. */
issuerRoutes.get("/configuration", (c) => {
  const base = issuerOf(c);
  return c.json({
    realm: tokenRealm(c),
    service: REGISTRY_AUDIENCE,
    issuer: base,
    rootcertbundle_uri: `${base}/jwt/rootcertbundle`,
    jwks_uri: `${base}/jwt/keys`,
    signing_alg_values_supported: ["RS256"],
  });
});

export default issuerRoutes;
