import { toBase64Url, toHex } from "./random";

const encoder = new TextEncoder();

export async function sha256(data: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** The only form in which tokens, codes and client secrets are stored (DESIGN, convention 6). */
export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  return toHex(await sha256(data));
}

export async function sha256Base64Url(data: string): Promise<string> {
  return toBase64Url(await sha256(data));
}

/** Compares without leaking where the first difference is. */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  // Compare the full length of the longer value so the time does not depend on where they differ.
  const len = Math.max(ab.length, bb.length);
  let diff = ab.length ^ bb.length;
  for (let i = 0; i < len; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}
