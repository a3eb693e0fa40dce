import { getConfig } from "../config";
import { timingSafeEqual } from "../crypto/hash";
import { toBase64Url } from "../crypto/random";
import type { Bindings } from "../env";

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without shared state: a nonce is the HMAC of a
 * time window's number under a key derived from SECRET_KEY_BASE, so every isolate in every
 * location computes the same nonce for the same window and checks one without a lookup. A nonce
 * is accepted during its own window and the next one, so a client holding the nonce it was just
 * given is never refused at a window's edge; after that it gets `use_dpop_nonce` and the new one.
 * The token endpoint, PAR and every resource door share it (one origin, one nonce: RFC 9449 §8.2).
 */
export const NONCE_WINDOW_MS = 5 * 60 * 1000;

const keys = new Map<string, Promise<CryptoKey>>();
function nonceKey(secretKeyBase: string): Promise<CryptoKey> {
  let k = keys.get(secretKeyBase);
  if (!k) {
    k = (async () => {
      // A key of its own, derived so it never equals the key of anything else.
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`dpop-nonce-v1:${secretKeyBase}`));
      return crypto.subtle.importKey("raw", digest, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    })();
    keys.set(secretKeyBase, k);
  }
  return k;
}

/** One window's nonce, computed once per isolate and window. */
const memo = new Map<string, Promise<string>>();
function nonceOf(env: Bindings, window: number): Promise<string> {
  const secretKeyBase = getConfig(env).secretKeyBase;
  const id = `${window}:${secretKeyBase}`;
  let n = memo.get(id);
  if (!n) {
    if (memo.size > 8) memo.clear();
    n = (async () => {
      const sig = await crypto.subtle.sign("HMAC", await nonceKey(secretKeyBase), new TextEncoder().encode(`window:${window}`));
      return toBase64Url(new Uint8Array(sig).slice(0, 24));
    })();
    memo.set(id, n);
  }
  return n;
}

const windowAt = (now: number) => Math.floor(now / NONCE_WINDOW_MS);

/** The nonce a client should use now (sent as `DPoP-Nonce`). */
export function currentNonce(env: Bindings, now = Date.now()): Promise<string> {
  return nonceOf(env, windowAt(now));
}

/** True when `nonce` is this window's or the previous window's. */
export async function isFreshNonce(env: Bindings, nonce: string, now = Date.now()): Promise<boolean> {
  const w = windowAt(now);
  const [current, previous] = await Promise.all([nonceOf(env, w), nonceOf(env, w - 1)]);
  return timingSafeEqual(nonce, current) || timingSafeEqual(nonce, previous);
}
