import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from "jose";
import { getConfig } from "../config";
import { sha256Base64Url, timingSafeEqual } from "../crypto/hash";
import type { Bindings } from "../env";
import { AuthError, type DpopErrorCode, type DpopRefusal } from "./errors";
import { currentNonce, isFreshNonce } from "./dpop-nonce";

/**
 * DPoP proofs (RFC 9449 §4.3): the checks every door and the token endpoint apply to the `DPoP`
 * header. Pure CPU apart from the nonce's memoised HMAC; the single use of `jti` is the replay
 * shard's (dpop-replay.ts), which the caller runs beside its own storage hop.
 */

/** The asymmetric algorithms accepted (dpop_signing_alg_values_supported; §7.1 `algs`). */
export const DPOP_SIGNING_ALGS = ["ES256", "ES384", "PS256", "RS256"] as const;

/** §4.3 step 11: how far a proof's iat may lie in the past, and ahead (clock skew). */
export const PROOF_MAX_AGE_MS = 5 * 60 * 1000;
export const PROOF_MAX_SKEW_MS = 60 * 1000;
/** A client-chosen jti is kept until its proof can no longer be accepted; bounded in length. */
const MAX_JTI_LENGTH = 256;


/**
 * A refusal for DPoP reasons: an AuthError carrying its DpopRefusal. At a resource door each family
 * renders it with a `WWW-Authenticate: DPoP` challenge (dpopChallenge); the token endpoint answers
 * it as the OAuth error of the same name (§5, §8).
 */
export type DpopError = AuthError & { readonly dpop: DpopRefusal };

export function dpopError(error: DpopErrorCode, description: string, nonce?: string): DpopError {
  return new AuthError("invalid", { error, description, nonce }) as DpopError;
}

export function isDpopError(err: unknown): err is DpopError {
  return err instanceof AuthError && err.dpop !== undefined;
}

/** What a valid proof establishes. */
export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's key: what a token is bound to. */
  jkt: string;
  jti: string;
  /** iat in milliseconds. */
  iatMs: number;
  /** The proof's own `exp` in seconds, when it has one (GitLab's PAT proofs must). */
  exp?: number;
}

/**
 * §7.1: the resource server's challenge; with an error for a refusal of a DPoP request, and the
 * algorithms it accepts. One challenge, so a client reads the error of the DPoP scheme.
 */
export function dpopChallenge(err: DpopError): string {
  const description = err.dpop.description.replace(/["\\]/g, "");
  return `DPoP error="${err.dpop.error}", error_description="${description}", algs="${DPOP_SIGNING_ALGS.join(" ")}"`;
}

/** The headers a door adds to its refusal of a DPoP request. */
export function dpopRefusalHeaders(err: DpopError): Record<string, string> {
  return { "WWW-Authenticate": dpopChallenge(err), ...(err.dpop.nonce ? { "DPoP-Nonce": err.dpop.nonce } : {}) };
}

/**
 * The URI a proof names (§4.3 step 9): without query and fragment, after the syntax- and
 * scheme-based normalisation of RFC 3986 §6.2.2 and §6.2.3 (the URL parser lowercases scheme and
 * host, drops a default port, resolves dot segments; percent-encodings are uppercased here and
 * unreserved characters decoded). null when not an absolute http(s) URI.
 */
export function normalizedHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const path = url.pathname.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
  return `${url.protocol}//${url.host}${path}`;
}

/** The URIs a request may be named by: as received, and at the configured issuer's origin (behind a proxy). */
function requestHtus(env: Bindings, req: Request): string[] {
  const url = new URL(req.url);
  const issuer = getConfig(env).issuer;
  const names = [url.href];
  if (issuer) names.push(new URL(url.pathname, issuer).href);
  return names.map(normalizedHtu).filter((u): u is string => u !== null);
}

export interface ProofCheck {
  /** The access token presented with the proof (resource doors: §4.3 step 12, `ath`). */
  accessToken?: string;
  /**
   * The key the proof must be signed with, known beforehand (a personal access token's proof is
   * signed by one of the user's SSH signing keys, src/credentials/pat-key-proof.ts): the header's
   * `alg` must be this key's and its `jwk` this key, instead of any key under DPOP_SIGNING_ALGS.
   */
  pinned?: { jwk: JWK; alg: string };
  /**
   * Whether the server nonce (§8, §9) is asked for; default true. GitLab's PAT proofs (glab) carry
   * none, and their single use is the replay check's alone.
   */
  nonce?: boolean;
}

/**
 * A client signs every proof with the same key: its import (the costliest step after the signature
 * check itself, bench/RESULTS.md) is done once per isolate, key and alg. Keyed by the RFC 7638
 * thumbprint, a hash of exactly the members that make the public key, so one entry is one key; a
 * public key is not a secret, and every proof's signature is still verified. Bounded: cleared when
 * full (a busy isolate sees far fewer live client keys).
 */
const importedKeys = new Map<string, Promise<CryptoKey | Uint8Array>>();
const IMPORTED_KEYS_MAX = 1024;
function proofKey(jwk: JWK, alg: string, jkt: string): Promise<CryptoKey | Uint8Array> {
  const id = `${alg}:${jkt}`;
  let key = importedKeys.get(id);
  if (!key) {
    if (importedKeys.size >= IMPORTED_KEYS_MAX) importedKeys.clear();
    // As jose's EmbeddedJWK imports it: the header's key under the header's alg.
    key = importJWK({ ...jwk, ext: true }, alg).then((k) => {
      if (k instanceof Uint8Array || k.type !== "public") throw new Error("the jwk is not a public key");
      return k;
    });
    importedKeys.set(id, key);
    key.catch(() => importedKeys.delete(id));
  }
  return key;
}

/**
 * §4.3: exactly one DPoP header holding a JWT with typ dpop+jwt, an accepted asymmetric alg and a
 * public `jwk`, a valid signature, `jti`, `htm` equal to the method, `htu` equal to the request's
 * URI, `iat` within the window, the server's current nonce (§8, §9: otherwise use_dpop_nonce with
 * the nonce to use), and with an access token its `ath`. Throws DpopError.
 */
export async function verifyProof(env: Bindings, req: Request, check: ProofCheck = {}): Promise<VerifiedProof> {
  const header = req.headers.get("dpop");
  const bad = (why: string) => dpopError("invalid_dpop_proof", why);
  if (header === null) throw bad("DPoP proof missing");
  // Headers joined by the platform: more than one DPoP field (§4.3 step 1).
  if (header.includes(",")) throw bad("more than one DPoP header");
  let protectedHeader;
  try {
    protectedHeader = decodeProtectedHeader(header);
  } catch {
    throw bad("DPoP proof is not a JWT");
  }
  if (protectedHeader.typ !== "dpop+jwt") throw bad("typ must be dpop+jwt");
  const algs: readonly string[] = check.pinned ? [check.pinned.alg] : DPOP_SIGNING_ALGS;
  if (!algs.includes(protectedHeader.alg ?? "")) throw bad("unsupported DPoP proof algorithm");
  const jwk = protectedHeader.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== "object") throw bad("jwk header missing");
  // A private member in the header would be a published private key (§4.3 step 7).
  if (["d", "p", "q", "dp", "dq", "qi", "k", "oth"].some((m) => m in jwk)) throw bad("jwk must be a public key");
  let payload;
  let jkt: string;
  try {
    jkt = await calculateJwkThumbprint(jwk, "sha256");
    if (check.pinned && jkt !== (await calculateJwkThumbprint(check.pinned.jwk, "sha256"))) throw new Error("not the pinned key");
    const key = await proofKey(jwk, protectedHeader.alg!, jkt);
    ({ payload } = await jwtVerify(header, key, { typ: "dpop+jwt", algorithms: [...algs] }));
  } catch {
    throw bad("DPoP proof signature or claims are invalid");
  }
  const { jti, htm, htu, iat, nonce, ath } = payload as Record<string, unknown>;
  if (typeof jti !== "string" || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw bad("jti missing or invalid");
  if (htm !== req.method) throw bad("htm does not match the request method");
  const named = typeof htu === "string" ? normalizedHtu(htu) : null;
  if (named === null || !requestHtus(env, req).includes(named)) throw bad("htu does not match the request URI");
  const now = Date.now();
  if (typeof iat !== "number" || iat * 1000 < now - PROOF_MAX_AGE_MS || iat * 1000 > now + PROOF_MAX_SKEW_MS) throw bad("iat outside the acceptable window");
  if (check.accessToken !== undefined) {
    if (typeof ath !== "string" || !timingSafeEqual(ath, await sha256Base64Url(check.accessToken))) throw bad("ath does not match the access token");
  }
  if (check.nonce !== false && (typeof nonce !== "string" || !(await isFreshNonce(env, nonce, now)))) {
    throw dpopError("use_dpop_nonce", "A DPoP nonce is required: retry with the DPoP-Nonce value sent", await currentNonce(env, now));
  }
  return { jkt, jti, iatMs: iat * 1000, exp: typeof payload.exp === "number" ? payload.exp : undefined };
}
