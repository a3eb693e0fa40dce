import { fromBase64Url, randomBytes, toBase64Url } from "./random";

/**
 * AES-256-GCM for the few values that must be read back (TOTP secrets), under a key derived
 * with HKDF from SECRET_KEY_BASE and a purpose label, so each purpose has its own key.
 * Format: v1.<iv b64url>.<ciphertext+tag b64url>. The purpose is also bound as associated data.
 */
const keys = new Map<string, Promise<CryptoKey>>();

/** A key for one purpose, derived with HKDF from SECRET_KEY_BASE (cached per isolate). */
export function derivedKey(
  secretKeyBase: string,
  purpose: string,
  algorithm: AesKeyGenParams | HmacImportParams = { name: "AES-GCM", length: 256 },
  usages: KeyUsage[] = ["encrypt", "decrypt"],
): Promise<CryptoKey> {
  const id = `${purpose}\u0000${algorithm.name}\u0000${secretKeyBase}`;
  let k = keys.get(id);
  if (!k) {
    k = (async () => {
      const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(secretKeyBase), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new TextEncoder().encode("edge-auth-encrypt-v1"), info: new TextEncoder().encode(purpose) },
        base,
        algorithm,
        false,
        usages,
      );
    })();
    keys.set(id, k);
  }
  return k;
}

const keyFor = (secretKeyBase: string, purpose: string) => derivedKey(secretKeyBase, purpose);

export async function encryptString(secretKeyBase: string, purpose: string, plaintext: string): Promise<string> {
  const iv = randomBytes(12);
  const key = await keyFor(secretKeyBase, purpose);
  const ct = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: new Uint8Array(iv), additionalData: new TextEncoder().encode(purpose) },
    key,
    new TextEncoder().encode(plaintext),
  );
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ct))}`;
}

/** Throws when the value was not made by encryptString under this key and purpose. */
export async function decryptString(secretKeyBase: string, purpose: string, sealed: string): Promise<string> {
  const [version, iv, ct] = sealed.split(".");
  if (version !== "v1" || !iv || !ct) throw new Error("unsupported ciphertext");
  const key = await keyFor(secretKeyBase, purpose);
  const pt = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: new Uint8Array(fromBase64Url(iv)), additionalData: new TextEncoder().encode(purpose) },
    key,
    new Uint8Array(fromBase64Url(ct)),
  );
  return new TextDecoder().decode(pt);
}

/**
 * Decrypts under the current key, else under each previous one (a SECRET_KEY_BASE rotation:
 * values sealed before it stay readable until they are sealed again under the new key).
 */
export async function decryptWithAny(secretKeyBases: readonly string[], purpose: string, sealed: string): Promise<string> {
  let last: unknown = new Error("no key");
  for (const key of secretKeyBases) {
    try {
      return await decryptString(key, purpose, sealed);
    } catch (err) {
      last = err;
    }
  }
  throw last;
}
