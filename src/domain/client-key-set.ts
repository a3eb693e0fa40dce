import { checkOutboundUri, MAX_OUTBOUND_URI_LENGTH } from "./outbound-uri";

/**
 * An application's public keys (RFC 7591 §2 `jwks` / `jwks_uri`; OIDC Registration §2) and how it
 * authenticates at the token endpoint (`token_endpoint_auth_method`). The keys verify the client's
 * own signatures: `private_key_jwt` client assertions (RFC 7523 §2.2) and request objects (JAR).
 * Pure rules, shared by the API, the pages, dynamic registration and metadata documents
 * (src/domain/application-input.ts calls them).
 */

/** The methods this server serves (discovery advertises exactly these). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** Asymmetric algorithms accepted for a client's signatures (never `none`, never HMAC: the server holds no shared key). */
export const CLIENT_SIGNING_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

/** Bounds of a key set: a few keys (rotation needs two), a few kilobytes. */
export const MAX_KEYS = 10;
export const MAX_KEY_SET_BYTES = 16 * 1024;
export const MAX_KEY_SET_URI_LENGTH = MAX_OUTBOUND_URI_LENGTH;

/** A public JSON Web Key as stored (RFC 7517 §4). */
export type PublicJwk = Record<string, unknown> & { kty: string };
export interface PublicKeySet {
  keys: PublicJwk[];
}

/** Members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
const KEY_TYPES: Record<string, readonly string[]> = { RSA: ["n", "e"], EC: ["crv", "x", "y"], OKP: ["crv", "x"] };

export type KeySetCheck = { ok: true; keySet: PublicKeySet } | { ok: false; reason: string };

/** A JWK Set given inline: an object or its JSON text, with public asymmetric keys only. */
export function checkKeySet(value: unknown): KeySetCheck {
  let parsed = value;
  if (typeof value === "string") {
    if (value.length > MAX_KEY_SET_BYTES) return { ok: false, reason: `is larger than ${MAX_KEY_SET_BYTES} bytes` };
    try {
      parsed = JSON.parse(value);
    } catch {
      return { ok: false, reason: "is not valid JSON" };
    }
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { ok: false, reason: "must be a JSON object with a keys array" };
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return { ok: false, reason: "must hold at least one key in keys" };
  if (keys.length > MAX_KEYS) return { ok: false, reason: `holds more than ${MAX_KEYS} keys` };
  if (JSON.stringify(parsed).length > MAX_KEY_SET_BYTES) return { ok: false, reason: `is larger than ${MAX_KEY_SET_BYTES} bytes` };
  for (const key of keys) {
    if (!key || typeof key !== "object" || Array.isArray(key)) return { ok: false, reason: "holds a key that is not an object" };
    const k = key as Record<string, unknown>;
    const needed = typeof k.kty === "string" ? KEY_TYPES[k.kty] : undefined;
    if (!needed) return { ok: false, reason: "holds a key whose kty is not RSA, EC or OKP" };
    if (PRIVATE_MEMBERS.some((m) => m in k)) return { ok: false, reason: "must hold public keys only (a private key member was sent)" };
    if (!needed.every((m) => typeof k[m] === "string")) return { ok: false, reason: `holds a ${k.kty} key without ${needed.join(", ")}` };
    if (k.use !== undefined && k.use !== "sig") return { ok: false, reason: "holds a key whose use is not sig" };
    if (k.alg !== undefined && !(CLIENT_SIGNING_ALGS as readonly unknown[]).includes(k.alg)) return { ok: false, reason: "holds a key with an unsupported alg" };
  }
  return { ok: true, keySet: { keys: keys as PublicJwk[] } };
}

/**
 * A `jwks_uri`: https on a public host (the server fetches it, so the guard of every URL it is
 * handed applies, src/domain/public-host.ts), no credentials, no fragment. `allowLoopback` admits
 * http on 127.0.0.1 or [::1] (ALLOW_LOOPBACK_CLIENT_METADATA, development only).
 */
export function checkKeySetUri(value: string, allowLoopback: boolean): { ok: true; uri: string } | { ok: false; reason: string } {
  return checkOutboundUri(value, allowLoopback);
}

export function isTokenEndpointAuthMethod(value: unknown): value is TokenEndpointAuthMethod {
  return typeof value === "string" && (TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(value);
}

/**
 * The method an application authenticates with: the one it declared, else what its kind implies
 * (applications from before the column: a confidential one uses its secret, a public one none).
 */
export function authMethodOf(app: { tokenEndpointAuthMethod: string | null; confidential: boolean }): TokenEndpointAuthMethod {
  if (isTokenEndpointAuthMethod(app.tokenEndpointAuthMethod)) return app.tokenEndpointAuthMethod;
  return app.confidential ? "client_secret_basic" : "none";
}

/** Secret methods are interchangeable (RFC 6749 §2.3.1 lets a client use either place); the others are not. */
export function usesSecret(method: TokenEndpointAuthMethod): boolean {
  return method === "client_secret_basic" || method === "client_secret_post";
}
