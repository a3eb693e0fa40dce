import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import { sha256Base64Url } from "../../src/crypto/hash";
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
