import { getConfig } from "../config";
import { decryptString, encryptString } from "../crypto/encrypt";
import { sha256Base64Url } from "../crypto/hash";
import { getDb } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { allSigningKeys, insertSigningKeysIfFree, rotateSigningKeys, type SigningKeyRow } from "../db/oidc-signing-keys";
import type { Bindings } from "../env";
import { AppError } from "../domain/errors";

/**
 * The signing key rings (docs/security.md, "Signing keys"): RS256 keys, generated on first use,
 * private parts encrypted under SECRET_KEY_BASE. One ring per purpose, each rotated on its own and
 * sharing no key with the other: `oidc` signs id_tokens (docs/oidc.md, Signing keys; JWKS at
 * /oauth/discovery/keys) and `registry` signs registry tokens (docs/registries.md; /jwt/keys and
 * /jwt/rootcertbundle), so a party that trusts one set of keys never accepts what the other signs.
 * A ring always holds an `active` key (signs) and a `next` key (published, not yet signing), so
 * verifiers have the next key in their cache long before anything is signed with it. Rotation
 * promotes next to active, turns the old active key into `retiring` (still published) and creates
 * a new next key.
 */
export type KeyState = "next" | "active" | "retiring";
export type KeyPurpose = "oidc" | "registry";
export const KEY_PURPOSES: readonly KeyPurpose[] = ["oidc", "registry"];
type KeyRow = SigningKeyRow;

export interface PublicJwk {
  kty: "RSA";
  n: string;
  e: string;
  alg: "RS256";
  use: "sig";
  kid: string;
}

export interface KeyInfo {
  kid: string;
  state: KeyState;
  createdAt: number;
  activatedAt: number | null;
  retireAt: number | null;
}

/** id_tokens live 120 seconds (doorkeeper-openid_connect's default expiration, as GitLab). */
export const ID_TOKEN_TTL_SECONDS = 120;
/** How long an isolate trusts its copy of the ring before reading D1 again. */
export const RING_CACHE_MS = 60_000;
/** The JWKS document's Cache-Control max-age: relying parties may hold a copy this long. */
export const JWKS_MAX_AGE_SECONDS = 300;
/**
 * A next key must have been published this long before it may sign: every relying party's JWKS
 * copy and every isolate's ring copy then includes it.
 */
export const MIN_PUBLISHED_MS = JWKS_MAX_AGE_SECONDS * 1000 + RING_CACHE_MS;
/**
 * A retired key stays published until every id_token it signed has expired: the token lifetime,
 * plus the time other isolates may still sign with their cached ring, plus relying parties' cache.
 */
export const RETIRE_AFTER_MS = ID_TOKEN_TTL_SECONDS * 1000 + RING_CACHE_MS;

/** How long a retired key of the ring stays: until the longest-lived token it signed has expired. */
function retireAfterMs(env: Bindings, purpose: KeyPurpose): number {
  if (purpose === "oidc") return RETIRE_AFTER_MS;
  return getConfig(env).registry.tokenTtlSeconds * 1000 + RING_CACHE_MS;
}

/** The encryption purpose of a ring's private keys (src/crypto/encrypt.ts): one ring's ciphertext never decrypts as the other's. */
const encryptionPurpose = (purpose: KeyPurpose) => `${purpose}-signing-key`;
const ALGORITHM = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/** A rotation refused for now (409 in REST): the next key is too young, or another rotation won. */
const rotationRefused = (message: string) => new AppError("conflict", message, { reason: "key_rotation" });

interface Ring {
  rows: KeyRow[];
  loadedAt: number;
}

/** Per isolate: each ring (short-lived) and imported private keys (by kid, for the isolate's life). */
const rings: Record<KeyPurpose, WeakMap<object, Promise<Ring>>> = { oidc: new WeakMap(), registry: new WeakMap() };
const signingKeys = new Map<string, Promise<CryptoKey>>();

/** RFC 7638 §3: the thumbprint of an RSA key is over {"e","kty","n"} in that order. */
async function thumbprint(jwk: JsonWebKey): Promise<string> {
  return sha256Base64Url(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }));
}

async function newKeyRow(secretKeyBase: string, purpose: KeyPurpose, state: "next" | "active", now: number): Promise<KeyRow> {
  const pair = (await crypto.subtle.generateKey({ ...ALGORITHM, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const [pub, priv] = (await Promise.all([crypto.subtle.exportKey("jwk", pair.publicKey), crypto.subtle.exportKey("jwk", pair.privateKey)])) as [
    JsonWebKey,
    JsonWebKey,
  ];
  return {
    kid: await thumbprint(pub),
    purpose,
    alg: "RS256",
    publicJwk: JSON.stringify({ kty: pub.kty, n: pub.n, e: pub.e }),
    privateKeyEnc: await encryptString(secretKeyBase, encryptionPurpose(purpose), JSON.stringify(priv)),
    state,
    createdAt: now,
    activatedAt: state === "active" ? now : null,
    retireAt: null,
  };
}

/**
 * First start: an active and a next key, each inserted only when its slot is empty (the partial
 * unique indexes make a concurrent first start in another isolate harmless).
 */
async function ensureKeys(env: Bindings, purpose: KeyPurpose, rows: KeyRow[]): Promise<boolean> {
  const missing = (["active", "next"] as const).filter((s) => !rows.some((r) => r.state === s));
  if (missing.length === 0) return false;
  const secretKeyBase = getConfig(env).secretKeyBase;
  const now = Date.now();
  const fresh = await Promise.all(missing.map((s) => newKeyRow(secretKeyBase, purpose, s, now)));
  await insertSigningKeysIfFree(getDb(env.DB), fresh);
  return true;
}

async function readRing(env: Bindings, purpose: KeyPurpose): Promise<Ring> {
  const db = getDb(env.DB);
  let rows = await allSigningKeys(db, purpose);
  if (await ensureKeys(env, purpose, rows)) rows = await allSigningKeys(db, purpose);
  return { rows, loadedAt: Date.now() };
}

async function ring(env: Bindings, purpose: KeyPurpose): Promise<KeyRow[]> {
  const key = env.DB as object;
  const cache = rings[purpose];
  let p = cache.get(key);
  if (p) {
    const hit = await p.catch(() => null);
    if (hit && Date.now() - hit.loadedAt < RING_CACHE_MS) return hit.rows;
  }
  p = readRing(env, purpose);
  cache.set(key, p);
  p.catch(() => cache.delete(key));
  return (await p).rows;
}

/** First start (src/setup/first-start.ts): both rings exist before anything asks for them. */
export async function ensureSigningKeys(env: Bindings): Promise<void> {
  for (const purpose of KEY_PURPOSES) await ring(env, purpose);
}

const published = (r: KeyRow, now: number) => r.state !== "retiring" || (r.retireAt !== null && r.retireAt > now);

/** The JWKS (RFC 7517 §5) of a ring: every key that signs, will sign, or signed a token still alive. */
export async function publishedKeys(env: Bindings, purpose: KeyPurpose): Promise<PublicJwk[]> {
  const now = Date.now();
  return (await ring(env, purpose)).filter((r) => published(r, now)).map((r) => ({ ...JSON.parse(r.publicJwk), alg: "RS256", use: "sig", kid: r.kid }));
}

/** A ring key's private part, imported once per isolate (decrypting it is the only costly step). */
function privateKeyOf(env: Bindings, purpose: KeyPurpose, row: KeyRow): Promise<CryptoKey> {
  let key = signingKeys.get(row.kid);
  if (!key) {
    key = (async () => {
      const jwk = JSON.parse(await decryptString(getConfig(env).secretKeyBase, encryptionPurpose(purpose), row.privateKeyEnc)) as JsonWebKey;
      return crypto.subtle.importKey("jwk", jwk, ALGORITHM, false, ["sign"]);
    })();
    signingKeys.set(row.kid, key);
    key.catch(() => signingKeys.delete(row.kid));
  }
  return key;
}

/** The key of the ring that signs now. */
export async function activeSigningKey(env: Bindings, purpose: KeyPurpose): Promise<{ kid: string; key: CryptoKey }> {
  const active = (await ring(env, purpose)).find((r) => r.state === "active");
  if (!active) throw new Error(`no active ${purpose} signing key`);
  return { kid: active.kid, key: await privateKeyOf(env, purpose, active) };
}

export interface RingKey {
  kid: string;
  state: KeyState;
  createdAt: number;
  /** The public JWK ({kty, n, e}). */
  publicJwk: JsonWebKey;
  /** The private key, for a key's self-signed certificate (registry token issuer). */
  privateKey: () => Promise<CryptoKey>;
}

/**
 * Every key of the ring, retiring ones included until the next rotation removes them (at least
 * MIN_PUBLISHED_MS after they stopped signing): the registry's ring is read this way (its
 * verifier, its certificates and its JWKS, docs/registries.md).
 */
export async function ringKeys(env: Bindings, purpose: KeyPurpose): Promise<RingKey[]> {
  return (await ring(env, purpose)).map((r) => ({
    kid: r.kid,
    state: r.state as KeyState,
    createdAt: r.createdAt,
    publicJwk: JSON.parse(r.publicJwk) as JsonWebKey,
    privateKey: () => privateKeyOf(env, purpose, r),
  }));
}

export async function listKeys(env: Bindings, purpose: KeyPurpose): Promise<KeyInfo[]> {
  const now = Date.now();
  return (await ring(env, purpose))
    .filter((r) => published(r, now))
    .map((r) => ({ kid: r.kid, state: r.state as KeyState, createdAt: r.createdAt, activatedAt: r.activatedAt, retireAt: r.retireAt }));
}

/**
 * Rotation of one ring (the other is untouched): next becomes active, active becomes retiring until
 * its last token has expired, and a new next key is published. Refused while the next key is
 * younger than MIN_PUBLISHED_MS. One D1 batch (a transaction): a concurrent rotation fails on the
 * one-next-key index and changes nothing.
 */
export async function rotateKeys(env: Bindings, purpose: KeyPurpose): Promise<KeyInfo[]> {
  const db = getDb(env.DB);
  const now = Date.now();
  let rows = await allSigningKeys(db, purpose);
  if (await ensureKeys(env, purpose, rows)) rows = await allSigningKeys(db, purpose);
  const active = rows.find((r) => r.state === "active")!;
  const next = rows.find((r) => r.state === "next")!;
  if (now - next.createdAt < MIN_PUBLISHED_MS) {
    const at = new Date(next.createdAt + MIN_PUBLISHED_MS).toISOString();
    throw rotationRefused(`The next key ${next.kid} has not been published long enough; it may sign from ${at}.`);
  }
  const fresh = await newKeyRow(getConfig(env).secretKeyBase, purpose, "next", now);
  try {
    await rotateSigningKeys(db, { purpose, now, activeKid: active.kid, nextKid: next.kid, retireAt: now + retireAfterMs(env, purpose), fresh });
  } catch (e) {
    if (isUniqueViolation(e)) throw rotationRefused("Another rotation happened at the same time; list the keys and try again.");
    throw e;
  }
  rings[purpose].delete(env.DB as object);
  return listKeys(env, purpose);
}
