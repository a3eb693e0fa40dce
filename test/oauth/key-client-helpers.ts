import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose";
import type { NewApplication } from "../../src/db/applications";
import { CLIENT_ASSERTION_TYPE } from "../../src/oauth/client-assertion";
import { makeApp } from "./helpers";

/**
 * A client that authenticates with private_key_jwt (RFC 7523 §2.2): an ES256 key pair whose public
 * half is the application's `jwks`, and assertions signed with the private half.
 */
export const ISSUER = "http://localhost";
export const TOKEN_ENDPOINT = `${ISSUER}/oauth/token`;

export async function keyPair(kid = crypto.randomUUID()) {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return { privateKey, jwk, kid };
}

export async function makeKeyClient(opts: Partial<NewApplication> = {}) {
  const key = await keyPair();
  const { app } = await makeApp({ jwks: JSON.stringify({ keys: [key.jwk] }), tokenEndpointAuthMethod: "private_key_jwt", ...opts });
  return { app, ...key };
}

export interface AssertionClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  /** Seconds from now; null leaves exp out. */
  expiresIn?: number | null;
  jti?: string | null;
}

export async function signAssertion(clientId: string, privateKey: CryptoKey, kid: string, claims: AssertionClaims = {}, alg = "ES256"): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { iss: claims.iss ?? clientId, sub: claims.sub ?? clientId, aud: claims.aud ?? TOKEN_ENDPOINT, iat: now };
  if (claims.expiresIn !== null) payload.exp = now + (claims.expiresIn ?? 60);
  if (claims.jti !== null) payload.jti = claims.jti ?? crypto.randomUUID();
  return new SignJWT(payload).setProtectedHeader({ alg, kid }).sign(privateKey);
}

/** The body fields of RFC 7523 §2.2 client authentication. */
export function assertionFields(assertion: string): Record<string, string> {
  return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion };
}
