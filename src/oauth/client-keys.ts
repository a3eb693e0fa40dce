import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { ApplicationRow } from "../db/applications";
import { checkKeySet, checkKeySetUri, MAX_KEY_SET_BYTES } from "../domain/client-key-set";
import { ExpiringMap } from "../domain/expiring-map";
import { fetchPublicJson } from "./client-metadata/fetch-document";
import { OAuthError } from "./errors";

/**
 * The public keys of a client (its `jwks`, or the key set at its `jwks_uri`) as jose key
 * material: what verifies a client's own signatures, `private_key_jwt` assertions (src/oauth/
 * client-assertion.ts) and request objects (JAR) alike. One module, so every verifier reads the
 * same keys with the same guards.
 *
 * A `jwks_uri` is fetched through the guard of every URL the server is handed (public host, https,
 * no redirect, bounded size and time: src/oauth/client-metadata/fetch-document.ts) and kept in the
 * isolate for its Cache-Control max-age within [MIN_KEYS_CACHE_SECONDS, MAX_KEYS_CACHE_SECONDS]. A
 * signature whose key is not in the cached set fetches the set again (the client rotated), at most
 * once per MIN_KEYS_CACHE_SECONDS per URL, so a stream of unknown key ids cannot make the server
 * fetch in a loop.
 */
export const MIN_KEYS_CACHE_SECONDS = 60;
export const MAX_KEYS_CACHE_SECONDS = 60 * 60;
const CACHE_CAPACITY = 256;

type KeyClient = Pick<ApplicationRow, "uid" | "jwks" | "jwksUri">;

interface CachedSet {
  keys: JWTVerifyGetKey;
  fetchedAt: number;
}

const remote = new ExpiringMap<CachedSet>(CACHE_CAPACITY);
const inline = new ExpiringMap<JWTVerifyGetKey>(CACHE_CAPACITY);

const refuse = (why: string) => new OAuthError("invalid_client", `The client's key set was refused: ${why}`);

/**
 * The verification keys of `client`, or null when it registered none. `allowLoopback` admits an
 * http jwks_uri on a loopback address (ALLOW_LOOPBACK_CLIENT_METADATA, development). Throws
 * OAuthError invalid_client when the remote set cannot be fetched or is not a valid public set.
 */
export function clientVerificationKeys(client: KeyClient, allowLoopback: boolean): JWTVerifyGetKey | null {
  if (client.jwks) return inlineKeys(client.jwks);
  if (client.jwksUri) return remoteKeys(client.jwksUri, allowLoopback);
  return null;
}

/** Whether the client has keys to verify its signatures with. */
export function hasVerificationKeys(client: KeyClient): boolean {
  return Boolean(client.jwks || client.jwksUri);
}

function inlineKeys(stored: string): JWTVerifyGetKey {
  const known = inline.get(stored, 0);
  if (known) return known;
  // Stored sets were checked when saved (src/domain/application-input.ts).
  const keys = createLocalJWKSet(JSON.parse(stored) as JSONWebKeySet);
  inline.set(stored, keys, Number.POSITIVE_INFINITY);
  return keys;
}

/**
 * The key set published at `uri`, fetched through the same guard and cache: a client's jwks_uri,
 * or a trusted identity provider's (the jwt-bearer grant, src/oauth/grants/jwt-bearer.ts).
 */
export function remoteKeys(uri: string, allowLoopback: boolean): JWTVerifyGetKey {
  return async (header, token) => {
    const now = Date.now();
    let set = remote.get(uri, now) ?? (await fetchKeySet(uri, allowLoopback, now));
    try {
      return await set.keys(header, token);
    } catch (e) {
      if (!(e instanceof errors.JWKSNoMatchingKey) || now - set.fetchedAt < MIN_KEYS_CACHE_SECONDS * 1000) throw e;
      set = await fetchKeySet(uri, allowLoopback, now);
      return set.keys(header, token);
    }
  };
}

async function fetchKeySet(uri: string, allowLoopback: boolean, now: number): Promise<CachedSet> {
  const url = checkKeySetUri(uri, allowLoopback);
  if (!url.ok) throw refuse(`jwks_uri ${url.reason}.`);
  const { document, cacheSeconds } = await fetchPublicJson(new URL(url.uri), { maxBytes: MAX_KEY_SET_BYTES, refuse });
  const checked = checkKeySet(document);
  if (!checked.ok) throw refuse(`the set at jwks_uri ${checked.reason}.`);
  const seconds = Math.min(MAX_KEYS_CACHE_SECONDS, Math.max(MIN_KEYS_CACHE_SECONDS, cacheSeconds));
  const set = { keys: createLocalJWKSet(checked.keySet as JSONWebKeySet), fetchedAt: now };
  remote.set(uri, set, now + seconds * 1000);
  return set;
}

/** Tests: forget every fetched set (a test serves a new set at the same URL). */
export function forgetFetchedKeySets(): void {
  remote.clear();
}
