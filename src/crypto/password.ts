import { fromBase64Url, randomBytes, toBase64Url } from "./random";
import { timingSafeEqual } from "./hash";

/**
 * Passwords are stored as PBKDF2-SHA256 (WebCrypto). workerd caps PBKDF2 at 100,000 iterations,
 * which is also OWASP's floor for PBKDF2-SHA256 in 2023 (600,000 preferred; not possible here).
 * Format: pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>.
 */
const ITERATIONS = 100_000;

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

/**
 * The service always hashes with ITERATIONS. `iterations` is for test fixtures only, which store
 * one cheap hash for thousands of users (test/helpers/fixtures.ts); verification reads the count
 * from the stored hash, so it runs the same code either way.
 */
export async function hashPassword(password: string, iterations = ITERATIONS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iter || !salt || !hash) return false;
  const derived = await derive(password, fromBase64Url(salt), Number(iter));
  return timingSafeEqual(toBase64Url(derived), hash);
}

/** A password hash to compare against when the user does not exist, so timing does not tell. */
export const DUMMY_PASSWORD_HASH = `pbkdf2-sha256$${ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

/** GitLab's rule for new passwords: at least 8 characters; we also refuse the most common ones. */
const COMMON = new Set(["password", "12345678", "123456789", "1234567890", "qwertyuiop", "password1", "iloveyou", "abcdefgh", "11111111", "00000000"]);
export function passwordWeakness(password: string): string | null {
  if (password.length < 8) return "Password is too short (minimum is 8 characters)";
  if (password.length > 128) return "Password is too long (maximum is 128 characters)";
  if (COMMON.has(password.toLowerCase())) return "Password must not be a commonly used password";
  return null;
}
