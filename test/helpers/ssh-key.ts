import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { sha256Base64Url } from "../../src/crypto/hash";

/**
 * An SSH key pair as a user holds it (the private half signs, the public half is uploaded as an
 * OpenSSH line) and a PAT DPoP proof built the way glab's `auth dpop-gen` builds it: typ dpop+jwt,
 * the key's alg (RS512 for RSA), the public jwk, kid "SHA256:<fingerprint>", and claims iat, exp
 * (iat + 5 minutes), jti, ath, htm, htu.
 */
export interface SshTestKey {
  privateKey: CryptoKey;
  jwk: JWK;
  alg: "RS512" | "EdDSA" | "ES256";
  /** `type base64 comment`, as ~/.ssh/id_*.pub. */
  publicLine: string;
  /** ssh-keygen -l's "SHA256:..." */
  kid: string;
}

const b64u = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
function sshString(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}
/** RFC 4251 mpint: a positive integer with its high bit set gets a leading zero byte. */
const mpint = (bytes: Uint8Array) => sshString(bytes[0]! & 0x80 ? Uint8Array.of(0, ...bytes) : bytes);
const text = (s: string) => sshString(new TextEncoder().encode(s));
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

export async function sshTestKey(type: "ssh-rsa" | "ssh-ed25519" | "ecdsa-sha2-nistp256" = "ssh-ed25519"): Promise<SshTestKey> {
  const alg = type === "ssh-rsa" ? "RS512" : type === "ssh-ed25519" ? "EdDSA" : "ES256";
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
  const jwk = await exportJWK(publicKey);
  const blob =
    type === "ssh-rsa"
      ? concat(text(type), mpint(b64u(jwk.e!)), mpint(b64u(jwk.n!)))
      : type === "ssh-ed25519"
        ? concat(text(type), sshString(b64u(jwk.x!)))
        : concat(text(type), text("nistp256"), sshString(concat(Uint8Array.of(4), b64u(jwk.x!), b64u(jwk.y!))));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", blob));
  const kid = `SHA256:${btoa(String.fromCharCode(...digest)).replace(/=+$/, "")}`;
  return { privateKey, jwk, alg, kid, publicLine: `${type} ${btoa(String.fromCharCode(...blob))} test@example.com` };
}

export async function glabProof(
  key: SshTestKey,
  pat: string,
  htu: string,
  opts: { htm?: string; iat?: number; lifetime?: number; jti?: string; header?: Record<string, unknown> } = {},
): Promise<string> {
  const iat = opts.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ iat, exp: iat + (opts.lifetime ?? 300), jti: opts.jti ?? crypto.randomUUID(), ath: await sha256Base64Url(pat), htm: opts.htm ?? "GET", htu })
    .setProtectedHeader({ alg: key.alg, typ: "dpop+jwt", jwk: key.jwk, kid: key.kid, ...opts.header })
    .sign(key.privateKey);
}
