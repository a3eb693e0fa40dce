import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import { sha256Base64Url } from "../../src/crypto/hash";
import { toBase64Url } from "../../src/crypto/random";
import { TEST_PASSWORD, call, makeUser } from "./fixtures";

/** A client's DPoP key pair and proofs (RFC 9449 §4.2), as a real client builds them. */
export interface DpopKey {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
  alg: string;
}

export async function dpopKey(alg: "ES256" | "RS256" | "PS256" | "ES384" = "ES256"): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256"), alg };
}

export interface ProofOptions {
  htm?: string;
  nonce?: string | null;
  accessToken?: string;
  /** Overrides, to build a proof that breaks one rule. */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  iat?: number;
  jti?: string;
}

export async function proof(key: DpopKey, htu: string, opts: ProofOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: opts.jti ?? crypto.randomUUID(),
    htm: opts.htm ?? "POST",
    htu: /^https?:/i.test(htu) ? htu : `http://localhost${htu}`,
    iat: opts.iat ?? Math.floor(Date.now() / 1000),
  };
  if (opts.nonce) claims.nonce = opts.nonce;
  if (opts.accessToken) claims.ath = await sha256Base64Url(opts.accessToken);
  return new SignJWT({ ...claims, ...opts.claims }).setProtectedHeader({ alg: key.alg, typ: "dpop+jwt", jwk: key.jwk, ...opts.header }).sign(key.privateKey);
}

/**
 * A proof signed exactly as given (header and payload unchecked), for the malformed proofs jose
 * refuses to sign: a `crit` header, a payload that is not an object, a short RSA key.
 */
export async function rawProof(key: DpopKey, header: Record<string, unknown>, payload: unknown): Promise<string> {
  const segment = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${segment({ alg: key.alg, typ: "dpop+jwt", jwk: key.jwk, ...header })}.${segment(payload)}`;
  const params = key.alg.startsWith("ES")
    ? { name: "ECDSA", hash: `SHA-${key.alg.slice(2)}` }
    : key.alg.startsWith("PS")
      ? { name: "RSA-PSS", saltLength: 32 }
      : { name: "RSASSA-PKCS1-v1_5" };
  const signature = await crypto.subtle.sign(params, key.privateKey, new TextEncoder().encode(input));
  return `${input}.${toBase64Url(new Uint8Array(signature))}`;
}

/** An RS256 key of `bits` bits (jose generates none under 2048). */
export async function rsaKey(bits: number): Promise<DpopKey> {
  const pair = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = await exportJWK(pair.publicKey);
  return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256"), alg: "RS256" };
}

/** The server's current nonce, learnt as a client learns it: from a refusal asking for one (§8). */
export async function serverNonce(key: DpopKey): Promise<string> {
  const res = await call("/oauth/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password" }),
    headers: { DPoP: await proof(key, "/oauth/token") },
  });
  const nonce = res.headers.get("DPoP-Nonce");
  if (!nonce) throw new Error(`no DPoP-Nonce: ${res.status}`);
  return nonce;
}

/** A DPoP-bound access token of a new user (the password grant with a proof), as a client holds it. */
export interface Bound {
  key: DpopKey;
  token: string;
  nonce: string;
  username: string;
  userId: number;
}

export async function boundToken(scope = "api openid read_user"): Promise<Bound> {
  const key = await dpopKey();
  const nonce = await serverNonce(key);
  const user = await makeUser();
  const res = await call("/oauth/token", {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope }),
    headers: { DPoP: await proof(key, "/oauth/token", { nonce }) },
  });
  const body = (await res.json()) as { access_token: string; token_type: string };
  if (body.token_type !== "DPoP") throw new Error(`not bound: ${JSON.stringify(body)}`);
  return { key, token: body.access_token, nonce, username: user.username, userId: user.id };
}
