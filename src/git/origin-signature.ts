/**
 * The signature on every request the Worker sends to the git origin (docs/git.md, "Signed
 * requests"): HMAC-SHA256 with the shared GIT_ORIGIN_SECRET over the method, the request target,
 * the time, a nonce, the user the request acts for, and the body's SHA-256. The Worker signs
 * (src/git/origin-client.ts) and the origin verifies (scripts/git-origin.mjs imports this file), so
 * the canonical form lives here once.
 *
 * Pack data streams through the Worker and cannot be hashed before it is sent, so git's own
 * requests carry UNSIGNED_PAYLOAD as their body hash (as S3's streaming uploads do); the
 * signature still fixes the repository, the operation and the pushing user, and the nonce makes it
 * single-use. Provisioning requests are small JSON and always hash their body.
 *
 * This file must stay plain (no imports, erasable TypeScript only) so Node loads it as is.
 */

export const SIGNATURE_HEADERS = {
  date: "x-origin-date",
  nonce: "x-origin-nonce",
  contentSha256: "x-origin-content-sha256",
  signature: "x-origin-signature",
} as const;

export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

/** How far the origin's clock and the signing time may differ, in seconds, either way. */
export const MAX_CLOCK_SKEW_SECONDS = 60;

export interface SignedParts {
  method: string;
  /** Path and query exactly as sent on the request line. */
  target: string;
  /** Unix seconds. */
  date: number;
  nonce: string;
  /** The user a git request acts for (X-Remote-User), empty when none. */
  remoteUser: string;
  /** Lower-case hex SHA-256 of the body, or UNSIGNED_PAYLOAD. */
  contentSha256: string;
}

export function canonicalString(p: SignedParts): string {
  return ["EDGE-AUTH-GIT-ORIGIN-V1", p.method.toUpperCase(), p.target, String(p.date), p.nonce, p.remoteUser, p.contentSha256].join("\n");
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256HexOf(body: Uint8Array | string): Promise<string> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return hex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

export async function signParts(secret: string, p: SignedParts): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(canonicalString(p))));
}

/** Compares without leaking where the first difference is. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** Null when the signature is valid and fresh; else why not (the origin answers 401 with it). */
export async function signatureProblem(secret: string, p: SignedParts, signature: string, nowSeconds: number): Promise<string | null> {
  if (!Number.isSafeInteger(p.date)) return "missing or malformed x-origin-date";
  if (Math.abs(nowSeconds - p.date) > MAX_CLOCK_SKEW_SECONDS) return "stale x-origin-date (clocks more than 60 s apart, or a replay)";
  if (!/^[0-9a-f]{32,64}$/.test(p.nonce)) return "missing or malformed x-origin-nonce";
  if (p.contentSha256 !== UNSIGNED_PAYLOAD && !/^[0-9a-f]{64}$/.test(p.contentSha256)) return "missing or malformed x-origin-content-sha256";
  if (!sameText(signature, await signParts(secret, p))) return "bad x-origin-signature (is GIT_ORIGIN_SECRET the same on both sides?)";
  return null;
}
