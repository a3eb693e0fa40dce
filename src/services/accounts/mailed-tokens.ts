import { sha256Hex } from "../../crypto/hash";
import { randomToken } from "../../crypto/random";

/**
 * The single-use tokens mailed to a person (password reset, e-mail confirmation): 32 random bytes
 * in the link, only their SHA-256 stored (src/db/account-tokens.ts), each valid for its lifetime.
 */
export const RESET_PASSWORD_WITHIN_MS = 2 * 3600_000; // a reset link works for two hours
export const CONFIRM_WITHIN_MS = 3 * 86_400_000; // GitLab's confirm_within: three days

export async function newMailedToken(): Promise<{ token: string; hash: string }> {
  const token = randomToken();
  return { token, hash: await tokenHash(token) };
}

/** The stored form of a token from a link; null for anything that cannot be one (never looked up). */
export async function tokenHash(token: string): Promise<string>;
export async function tokenHash(token: unknown): Promise<string | null>;
export async function tokenHash(token: unknown): Promise<string | null> {
  if (typeof token !== "string" || !/^[0-9a-f]{64}$/.test(token)) return null;
  return sha256Hex(token);
}

export const stillValid = (sentAt: number | null, within: number, now: number): boolean => sentAt !== null && now - sentAt < within;
