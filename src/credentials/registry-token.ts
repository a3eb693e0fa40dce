import { fromBase64Url, randomToken, toBase64Url } from "../crypto/random";
import type { Bindings } from "../env";
import { activeSigningKey, ringKeys, type RingKey } from "./signing-keys";

/**
 * Registry tokens of the Docker token protocol: compact JWS (RFC 7515) signed RS256 with the
 * registry's own key ring (src/credentials/signing-keys.ts, purpose "registry", rotated on its own;
 * never an OpenID Connect key), so a registry this service does not run can verify them too, and a
 * registry that trusts these keys accepts nothing the identity provider signs (docs/registries.md,
 * "Token format", "An external registry"; docs/security.md, "Signing keys").
 * The `access` claim names exactly the granted actions; /v2/ verifies the token on every request.
 */
export const REGISTRY_AUDIENCE = "container_registry";

export type RegistryAction = "pull" | "push" | "delete";

export interface AccessEntry {
  type: "repository";
  name: string;
  actions: RegistryAction[];
  /** Our addition: which project the name resolved to when the token was issued. */
  meta?: { project_id: number; project_path: string };
}

export interface RegistryClaims {
  iss: string;
  /** A string, not an array: Docker distribution 2.8 decodes `aud` as one string. */
  aud: string;
  sub: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  access: AccessEntry[];
}

const encoder = new TextEncoder();
const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/**
 * The key id Docker distribution (libtrust) computes for a public key: SHA-256 of its DER
 * SubjectPublicKeyInfo, the first 240 bits in base32 without padding, in groups of four joined by
 * ":". distribution 2.8 looks a token's `kid` up among the keys of its rootcertbundle by this id.
 */
export async function libtrustKeyId(spki: ArrayBuffer): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", spki)).slice(0, 30);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of hash) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.match(/.{4}/g)!.join(":");
}

export interface RegistryVerifyKey {
  /** The registry's key id (libtrust format). */
  kid: string;
  ring: RingKey;
  publicKey: CryptoKey;
}

/** Per isolate, by the ring's kid: the imported public key and its libtrust id (computed once). */
const verifyKeys = new Map<string, Promise<RegistryVerifyKey>>();

function verifyKeyOf(ring: RingKey): Promise<RegistryVerifyKey> {
  let p = verifyKeys.get(ring.kid);
  if (!p) {
    p = (async () => {
      const publicKey = await crypto.subtle.importKey("jwk", { ...ring.publicJwk, alg: "RS256", ext: true }, ALGORITHM, true, ["verify"]);
      return { kid: await libtrustKeyId((await crypto.subtle.exportKey("spki", publicKey)) as ArrayBuffer), ring, publicKey };
    })();
    verifyKeys.set(ring.kid, p);
    p.catch(() => verifyKeys.delete(ring.kid));
  }
  return p;
}

/** Every key that signs, will sign or signed a registry token still alive, with registry key ids. */
export async function registryVerifyKeys(env: Bindings): Promise<RegistryVerifyKey[]> {
  return Promise.all((await ringKeys(env, "registry")).map(verifyKeyOf));
}

export async function signRegistryToken(env: Bindings, claims: Omit<RegistryClaims, "jti">): Promise<string> {
  const { kid: ringKid, key } = await activeSigningKey(env, "registry");
  const ring = (await ringKeys(env, "registry")).find((k) => k.kid === ringKid)!;
  const { kid } = await verifyKeyOf(ring);
  const header = toBase64Url(encoder.encode(JSON.stringify({ typ: "JWT", alg: "RS256", kid })));
  const payload = toBase64Url(encoder.encode(JSON.stringify({ ...claims, jti: randomToken().slice(0, 32) })));
  const signature = await crypto.subtle.sign(ALGORITHM, key, encoder.encode(`${header}.${payload}`));
  return `${header}.${payload}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The claims of a valid, unexpired token for this audience signed by a key of the registry's ring; null for anything else. */
export async function verifyRegistryToken(env: Bindings, token: string, now = Date.now()): Promise<RegistryClaims | null> {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  let claims: RegistryClaims;
  try {
    const header = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[0]))) as { alg?: unknown; kid?: unknown };
    if (header.alg !== "RS256" || typeof header.kid !== "string") return null;
    const key = (await registryVerifyKeys(env)).find((k) => k.kid === header.kid);
    if (!key) return null;
    const ok = await crypto.subtle.verify(ALGORITHM, key.publicKey, fromBase64Url(parts[2]), encoder.encode(`${parts[0]}.${parts[1]}`));
    if (!ok) return null;
    claims = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[1])));
  } catch {
    return null;
  }
  const seconds = Math.floor(now / 1000);
  if (claims.aud !== REGISTRY_AUDIENCE || typeof claims.exp !== "number" || claims.exp <= seconds || claims.nbf > seconds + 5) return null;
  if (!Array.isArray(claims.access)) return null;
  return claims;
}

/** The actions a token grants on one repository (empty when it names none). */
export function grantedActions(claims: RegistryClaims, name: string): RegistryAction[] {
  return claims.access.filter((a) => a.type === "repository" && a.name === name).flatMap((a) => a.actions);
}
