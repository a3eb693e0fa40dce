import { sha256Hex } from "../crypto/hash";
import { fromBase64Url, randomBytes, toBase64Url } from "../crypto/random";

/**
 * Token formats (docs/oauth.md, Token format). Every token names its family, so the Worker can
 * address the family's Durable Object directly: validating an access token is one storage hop.
 * Tokens and codes also name their user, so the user row can be read in parallel with that hop
 * and a rotation or exchange can mint the new tokens before its one call to the family.
 * The random part carries 256 bits; the whole string is hashed (SHA-256) for storage, so changing
 * the visible ids of a token makes it unknown.
 *
 *   access token   gloat-<user id, base 36>.<family id>.<secret>
 *   refresh token  glort-<user id, base 36>.<family id>.<secret>
 *   code           <user id, base 36>.<family id>.<secret>
 */
export const ACCESS_PREFIX = "gloat-";
export const REFRESH_PREFIX = "glort-";

const ID = "[A-Za-z0-9_-]{22}";
const SECRET = "[A-Za-z0-9_-]{43}";
const BODY = `([0-9a-z]{1,12})\\.(${ID})\\.${SECRET}$`;
const ACCESS_RE = new RegExp(`^${ACCESS_PREFIX}${BODY}`);
const REFRESH_RE = new RegExp(`^${REFRESH_PREFIX}${BODY}`);
const CODE_RE = new RegExp(`^${BODY}`);

/**
 * The user id written in the tokens of a family that acts for no user (client_credentials, RFC
 * 6749 §4.4): user ids start at 1, so 0 names nobody.
 */
export const NO_USER_ID = 0;

export function newFamilyId(): string {
  return toBase64Url(randomBytes(16));
}

const secret = () => toBase64Url(randomBytes(32));

const body = (userId: number, fid: string) => `${userId.toString(36)}.${fid}.${secret()}`;
export const mintAccessToken = (userId: number, fid: string) => ACCESS_PREFIX + body(userId, fid);
export const mintRefreshToken = (userId: number, fid: string) => REFRESH_PREFIX + body(userId, fid);
export const mintCode = (userId: number, fid: string) => body(userId, fid);

export interface ParsedToken {
  userId: number;
  fid: string;
}

function parse(re: RegExp, value: string): ParsedToken | null {
  const m = re.exec(value);
  return m ? { userId: parseInt(m[1], 36), fid: m[2] } : null;
}

export const parseAccessToken = (token: string) => parse(ACCESS_RE, token);
export const parseRefreshToken = (token: string) => parse(REFRESH_RE, token);
export const parseCode = (code: string) => parse(CODE_RE, code);

/** Either kind of token (revocation and introspection accept both, RFC 7009 §2.1). */
export function familyOfToken(token: string): string | null {
  return parseAccessToken(token)?.fid ?? parseRefreshToken(token)?.fid ?? null;
}

export const hashToken = sha256Hex;

/**
 * The grace record (DESIGN, Refresh tokens 3): the new pair encrypted with AES-256-GCM under a key
 * derived from the replaced refresh token: SHA-256 over a domain-separation label, the family id
 * and the token. The stored hash is SHA-256 of the token alone; a hash with a prefix cannot be
 * computed from it (length extension only appends), so storage holds nothing that opens the record.
 */
const GRACE_LABEL = "token-family grace v1\u0000";

async function graceKey(refreshToken: string, fid: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${GRACE_LABEL}${fid}\u0000${refreshToken}`));
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

export async function sealPair(refreshToken: string, fid: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await graceKey(refreshToken, fid), new TextEncoder().encode(JSON.stringify(value)));
  const out = new Uint8Array(12 + ct.byteLength);
  out.set(iv);
  out.set(new Uint8Array(ct), 12);
  return toBase64Url(out);
}

export async function openPair<T>(refreshToken: string, fid: string, sealed: string): Promise<T> {
  const bytes = fromBase64Url(sealed);
  const iv = new Uint8Array(bytes.subarray(0, 12));
  const ct = new Uint8Array(bytes.subarray(12));
  const pt = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, await graceKey(refreshToken, fid), ct);
  return JSON.parse(new TextDecoder().decode(pt)) as T;
}
