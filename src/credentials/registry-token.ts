import { derivedKey } from "../crypto/encrypt";
import { fromBase64Url, randomToken, toBase64Url } from "../crypto/random";

/**
 * Registry tokens of the Docker token protocol: compact JWS (RFC 7515) signed HS256 with a key
 * derived from SECRET_KEY_BASE for this purpose only (docs/registries.md, "Token format").
 * The `access` claim names exactly the granted actions; /v2/ verifies the token on every request.
 */
export const REGISTRY_AUDIENCE = "container_registry";

export type RegistryAction = "pull" | "push" | "delete";

export interface AccessEntry {
  type: "repository";
  name: string;
  actions: RegistryAction[];
  /** Our addition: which project the name resolved to when the token was issued. */
  meta?: { project_id: number; project_path: string };
}

export interface RegistryClaims {
  iss: string;
  aud: string;
  sub: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  access: AccessEntry[];
}

const encoder = new TextEncoder();
const PURPOSE = "container-registry-jwt-hs256";
const hmacKey = (secretKeyBase: string) => derivedKey(secretKeyBase, PURPOSE, { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]);
const HEADER = toBase64Url(encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));

export async function signRegistryToken(secretKeyBase: string, claims: Omit<RegistryClaims, "jti">): Promise<string> {
  const payload = toBase64Url(encoder.encode(JSON.stringify({ ...claims, jti: randomToken().slice(0, 32) })));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secretKeyBase), encoder.encode(`${HEADER}.${payload}`));
  return `${HEADER}.${payload}.${toBase64Url(new Uint8Array(signature))}`;
}

/** The claims of a valid, unexpired token for this audience; null for anything else. */
export async function verifyRegistryToken(secretKeyBase: string, token: string, now = Date.now()): Promise<RegistryClaims | null> {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== HEADER) return null;
  let signature: Uint8Array<ArrayBuffer>;
  let claims: RegistryClaims;
  try {
    signature = fromBase64Url(parts[2]);
    const ok = await crypto.subtle.verify("HMAC", await hmacKey(secretKeyBase), signature, encoder.encode(`${parts[0]}.${parts[1]}`));
    if (!ok) return null;
    claims = JSON.parse(new TextDecoder().decode(fromBase64Url(parts[1])));
  } catch {
    return null;
  }
  const seconds = Math.floor(now / 1000);
  if (claims.aud !== REGISTRY_AUDIENCE || typeof claims.exp !== "number" || claims.exp <= seconds || claims.nbf > seconds + 5) return null;
  if (!Array.isArray(claims.access)) return null;
  return claims;
}

/** The actions a token grants on one repository (empty when it names none). */
export function grantedActions(claims: RegistryClaims, name: string): RegistryAction[] {
  return claims.access.filter((a) => a.type === "repository" && a.name === name).flatMap((a) => a.actions);
}
