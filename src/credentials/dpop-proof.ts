import { calculateJwkThumbprint, importJWK, type JWK } from "jose";
import { getConfig } from "../config";
import { sha256Base64Url, timingSafeEqual } from "../crypto/hash";
import { fromBase64Url } from "../crypto/random";
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

/** What a proof's protected header establishes (§4.3 steps 2-7, the key's import and thumbprint). */
interface ProofHeader {
  alg: string;
  /** RFC 7638 SHA-256 thumbprint of the header's `jwk`. */
  jkt: string;
  key: CryptoKey;
}

/**
 * A client signs every proof under the same protected header (its typ, alg and public key), so the
 * header's checks, the key's thumbprint and its import (the costliest steps after the signature
 * check itself, bench/RESULTS.md) are done once per isolate and header. Keyed by the header's exact
 * base64url text: the same bytes are the same header. A public key is not a secret, and every
 * proof's signature is still verified against it. Only headers that passed are kept; bounded:
 * cleared when full (a busy isolate sees far fewer live client keys).
 */
const proofHeaders = new Map<string, ProofHeader>();
const PROOF_HEADERS_MAX = 1024;

/**
 * WebCrypto's parameters for verifying a JWS signature (RFC 7518 §3) with a key imported for `alg`:
 * the key's algorithm, and for ECDSA and RSA-PSS the hash (and salt length) the alg names. Covers
 * DPOP_SIGNING_ALGS and the pinned algs of SSH signing keys (RS512, EdDSA; pat-key-proof.ts).
 */
function verifyParams(alg: string, key: CryptoKey): AlgorithmIdentifier | EcdsaParams | RsaPssParams {
  const bits = alg.slice(2);
  switch (key.algorithm.name) {
    case "ECDSA":
      return { name: "ECDSA", hash: `SHA-${bits}` };
    case "RSA-PSS":
      return { name: "RSA-PSS", saltLength: Number(bits) / 8 };
    default:
      return { name: key.algorithm.name };
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const bad = (why: string) => dpopError("invalid_dpop_proof", why);

/** A base64url JSON object of a compact JWS; null when it is not one. */
function jsonSegment(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(decoder.decode(fromBase64Url(segment)));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The protected header's checks, from this isolate's memory when it has seen the header (throws DpopError). */
async function proofHeader(segment: string, algs: readonly string[]): Promise<ProofHeader> {
  const known = proofHeaders.get(segment);
  if (known) {
    if (!algs.includes(known.alg)) throw bad("unsupported DPoP proof algorithm");
    return known;
  }
  const header = jsonSegment(segment);
  if (!header) throw bad("DPoP proof is not a JWT");
  if (header.typ !== "dpop+jwt") throw bad("typ must be dpop+jwt");
  const alg = header.alg;
  if (typeof alg !== "string" || !algs.includes(alg)) throw bad("unsupported DPoP proof algorithm");
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== "object" || Array.isArray(jwk)) throw bad("jwk header missing");
  // A private member in the header would be a published private key (§4.3 step 7).
  if (["d", "p", "q", "dp", "dq", "qi", "k", "oth"].some((m) => m in jwk)) throw bad("jwk must be a public key");
  let entry: ProofHeader;
  try {
    // No extension is understood (RFC 7515 §4.1.11), so a header naming one is refused.
    if ("crit" in header) throw new Error("crit");
    const [jkt, key] = await Promise.all([calculateJwkThumbprint(jwk, "sha256"), importJWK({ ...jwk, ext: true }, alg)]);
    if (key instanceof Uint8Array || key.type !== "public") throw new Error("the jwk is not a public key");
    // RFC 7518 §3.3, §3.5: an RSA key of at least 2048 bits.
    const modulus = (key.algorithm as Partial<RsaHashedKeyAlgorithm>).modulusLength;
    const rsa = alg.startsWith("RS") || alg.startsWith("PS");
    if (rsa && (typeof modulus !== "number" || modulus < 2048)) throw new Error("short RSA key");
    entry = { alg, jkt, key };
  } catch {
    throw bad("DPoP proof signature or claims are invalid");
  }
  if (proofHeaders.size >= PROOF_HEADERS_MAX) proofHeaders.clear();
  proofHeaders.set(segment, entry);
  return entry;
}

/**
 * §4.3: exactly one DPoP header holding a JWT with typ dpop+jwt, an accepted asymmetric alg and a
 * public `jwk`, a valid signature, `jti`, `htm` equal to the method, `htu` equal to the request's
 * URI, `iat` within the window, the server's current nonce (§8, §9: otherwise use_dpop_nonce with
 * the nonce to use), and with an access token its `ath`. Throws DpopError.
 */
export async function verifyProof(env: Bindings, req: Request, check: ProofCheck = {}): Promise<VerifiedProof> {
  const proof = req.headers.get("dpop");
  if (proof === null) throw bad("DPoP proof missing");
  // Headers joined by the platform: more than one DPoP field (§4.3 step 1).
  if (proof.includes(",")) throw bad("more than one DPoP header");
  const parts = proof.split(".");
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) throw bad("DPoP proof is not a JWT");
  const algs: readonly string[] = check.pinned ? [check.pinned.alg] : DPOP_SIGNING_ALGS;
  const { alg, jkt, key } = await proofHeader(parts[0], algs);
  const now = Date.now();
  let payload: Record<string, unknown> | null;
  try {
    if (check.pinned && jkt !== (await calculateJwkThumbprint(check.pinned.jwk, "sha256"))) throw new Error("not the pinned key");
    const signed = encoder.encode(`${parts[0]}.${parts[1]}`);
    if (!(await crypto.subtle.verify(verifyParams(alg, key), key, fromBase64Url(parts[2]), signed))) throw new Error("signature");
    payload = jsonSegment(parts[1]);
    // The JWT claims every JWT consumer checks when present (RFC 7519 §4.1.4, §4.1.5).
    const seconds = Math.floor(now / 1000);
    if (payload === null) throw new Error("claims");
    if (payload.exp !== undefined && (typeof payload.exp !== "number" || payload.exp <= seconds)) throw new Error("exp");
    if (payload.nbf !== undefined && (typeof payload.nbf !== "number" || payload.nbf > seconds)) throw new Error("nbf");
  } catch {
    throw bad("DPoP proof signature or claims are invalid");
  }
  const { jti, htm, htu, iat, nonce, ath } = payload as Record<string, unknown>;
  if (typeof jti !== "string" || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw bad("jti missing or invalid");
  if (htm !== req.method) throw bad("htm does not match the request method");
  const named = typeof htu === "string" ? normalizedHtu(htu) : null;
  if (named === null || !requestHtus(env, req).includes(named)) throw bad("htu does not match the request URI");
  if (typeof iat !== "number" || iat * 1000 < now - PROOF_MAX_AGE_MS || iat * 1000 > now + PROOF_MAX_SKEW_MS) throw bad("iat outside the acceptable window");
  if (check.accessToken !== undefined) {
    if (typeof ath !== "string" || !timingSafeEqual(ath, await sha256Base64Url(check.accessToken))) throw bad("ath does not match the access token");
  }
  if (check.nonce !== false && (typeof nonce !== "string" || !(await isFreshNonce(env, nonce, now)))) {
    throw dpopError("use_dpop_nonce", "A DPoP nonce is required: retry with the DPoP-Nonce value sent", await currentNonce(env, now));
  }
  return { jkt, jti, iatMs: iat * 1000, exp: typeof payload.exp === "number" ? payload.exp : undefined };
}
