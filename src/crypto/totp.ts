import { timingSafeEqual } from "./hash";
import { randomBytes } from "./random";

/**
 * TOTP (RFC 6238) over HOTP (RFC 4226), as authenticator apps implement it: HMAC-SHA1, 30-second
 * steps, 6 digits, secrets shared in base32 (RFC 4648) inside an otpauth:// URI.
 */
export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";

export interface TotpOptions {
  algorithm?: TotpAlgorithm;
  digits?: number;
  stepSeconds?: number;
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(s: string): Uint8Array {
  const clean = s.toUpperCase().replace(/[\s=-]/g, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) throw new Error("invalid base32");
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

/** A new 160-bit secret (RFC 4226 §4 recommends 160 bits), base32-encoded. */
export function generateTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** HOTP (RFC 4226 §5.3): dynamic truncation of HMAC(key, counter). */
export async function hotp(key: Uint8Array, counter: number, opts: TotpOptions = {}): Promise<string> {
  const digits = opts.digits ?? 6;
  const msg = new Uint8Array(8);
  // The counter is a 64-bit big-endian integer; JavaScript numbers are exact up to 2^53.
  let c = counter;
  for (let i = 7; i >= 0; i--) {
    msg[i] = c % 256;
    c = Math.floor(c / 256);
  }
  // A copy typed as backed by an ArrayBuffer, which WebCrypto's types require.
  const k = await crypto.subtle.importKey("raw", new Uint8Array(key), { name: "HMAC", hash: opts.algorithm ?? "SHA-1" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", k, msg));
  const offset = mac[mac.length - 1] & 0x0f;
  const bin =
    ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, "0");
}

/** TOTP (RFC 6238 §4): HOTP with T = floor(unix time / step). */
export function totp(key: Uint8Array, unixSeconds: number, opts: TotpOptions = {}): Promise<string> {
  return hotp(key, Math.floor(unixSeconds / (opts.stepSeconds ?? 30)), opts);
}

/**
 * Checks a code against the current step and one step either side (RFC 6238 §5.2 allows for
 * clock drift). Returns the matching time step, so callers can refuse a code already used
 * (§5.2: "the verifier MUST NOT accept the second attempt of the same OTP").
 */
export async function verifyTotp(
  secretBase32: string,
  code: string,
  nowMs = Date.now(),
  opts: TotpOptions & { window?: number } = {},
): Promise<number | null> {
  const digits = opts.digits ?? 6;
  const clean = code.replace(/\s/g, "");
  if (!new RegExp(`^\\d{${digits}}$`).test(clean)) return null;
  const key = base32Decode(secretBase32);
  const step = Math.floor(nowMs / 1000 / (opts.stepSeconds ?? 30));
  const window = opts.window ?? 1;
  let match: number | null = null;
  // Every candidate is computed, so the time taken does not tell which step matched.
  for (let d = -window; d <= window; d++) {
    if (timingSafeEqual(await hotp(key, step + d, opts), clean) && match === null) match = step + d;
  }
  return match;
}

/** The URI authenticator apps read from the QR code (Google Authenticator's Key Uri Format). */
export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret: secretBase32, issuer, algorithm: "SHA1", digits: "6", period: "30" });
  return `otpauth://totp/${label}?${params.toString()}`;
}
