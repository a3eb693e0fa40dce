import type { JWK } from "jose";
import { fromBase64, toBase64Url as base64UrlEncode } from "../crypto/random";

/**
 * OpenSSH public keys (RFC 4253 §6.6, RFC 5656 §3.1, RFC 8709 §4) as uploaded to GitLab's SSH keys
 * API: the types glab can sign a DPoP proof with, their JWK (to compare with a proof's `jwk` and to
 * verify its signature with WebCrypto) and their fingerprints. No native dependency: the wire format
 * is length-prefixed strings.
 */

export type SshKeyType = "ssh-rsa" | "ssh-ed25519" | "ecdsa-sha2-nistp256";

export interface SshPublicKey {
  type: SshKeyType;
  jwk: JWK;
  /** The JWS algorithm a proof signed by this key uses (glab: RS512 for RSA, EdDSA, ES256). */
  alg: "RS512" | "EdDSA" | "ES256";
  /** The key blob: what fingerprints hash. */
  blob: Uint8Array<ArrayBuffer>;
  /** `type base64` without the comment: one key, however it was labelled. */
  canonical: string;
}

/** Smallest RSA modulus accepted (GitLab's default minimum for RSA keys is 1024; glab's examples use 4096). */
const MIN_RSA_BITS = 2048;

function readStrings(blob: Uint8Array): Uint8Array[] | null {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) return null;
    const len = ((blob[at]! << 24) | (blob[at + 1]! << 16) | (blob[at + 2]! << 8) | blob[at + 3]!) >>> 0;
    at += 4;
    if (at + len > blob.length) return null;
    parts.push(blob.subarray(at, at + len));
    at += len;
  }
  return parts;
}

/** An SSH mpint as a JWK's unsigned big-endian integer (the sign byte dropped). */
function unsigned(mpint: Uint8Array): Uint8Array {
  let i = 0;
  while (i < mpint.length - 1 && mpint[i] === 0) i++;
  return mpint.subarray(i);
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  try {
    return fromBase64(text);
  } catch {
    return null;
  }
}

/** Parses one `type base64 [comment]` line; null when it is not a supported, well-formed key. */
export function parseSshPublicKey(line: string): SshPublicKey | null {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 2) return null;
  const [type, data] = fields as [string, string];
  const blob = decodeBase64(data);
  if (!blob) return null;
  const parts = readStrings(blob);
  if (!parts || parts.length === 0 || new TextDecoder().decode(parts[0]) !== type) return null;
  const canonical = `${type} ${data}`;
  if (type === "ssh-rsa" && parts.length === 3) {
    const e = unsigned(parts[1]!);
    const n = unsigned(parts[2]!);
    if (n.length * 8 < MIN_RSA_BITS) return null;
    return { type, alg: "RS512", blob, canonical, jwk: { kty: "RSA", n: base64UrlEncode(n), e: base64UrlEncode(e) } };
  }
  if (type === "ssh-ed25519" && parts.length === 2 && parts[1]!.length === 32) {
    return { type, alg: "EdDSA", blob, canonical, jwk: { kty: "OKP", crv: "Ed25519", x: base64UrlEncode(parts[1]!) } };
  }
  if (type === "ecdsa-sha2-nistp256" && parts.length === 3 && new TextDecoder().decode(parts[1]) === "nistp256") {
    const q = parts[2]!;
    if (q.length !== 65 || q[0] !== 4) return null;
    return { type, alg: "ES256", blob, canonical, jwk: { kty: "EC", crv: "P-256", x: base64UrlEncode(q.subarray(1, 33)), y: base64UrlEncode(q.subarray(33)) } };
  }
  return null;
}

/** `ssh-keygen -l -E sha256` without its "SHA256:" label: unpadded standard base64 of SHA-256(blob). */
export async function sha256Fingerprint(key: SshPublicKey): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", key.blob));
  return btoa(String.fromCharCode(...digest)).replace(/=+$/, "");
}

/** GitLab's legacy `fingerprint`: MD5 of the blob, colon-separated hex (workerd's digest has MD5). */
export async function md5Fingerprint(key: SshPublicKey): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("MD5", key.blob));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join(":");
}
