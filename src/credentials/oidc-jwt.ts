import { toBase64Url } from "../crypto/random";
import type { Bindings } from "../env";
import { activeSigningKey } from "./signing-keys";

const encoder = new TextEncoder();
const b64json = (value: unknown) => toBase64Url(encoder.encode(JSON.stringify(value)));

/**
 * A compact JWS (RFC 7515 §7.1) over the claims, RS256 with the OIDC ring's active key and its kid
 * (never the registry's): id_tokens (`typ` JWT) and Back-Channel Logout tokens (`logout+jwt`, §2.4).
 */
export async function signWithOidcKey(env: Bindings, claims: Record<string, unknown>, typ = "JWT"): Promise<string> {
  const { kid, key } = await activeSigningKey(env, "oidc");
  const input = `${b64json({ alg: "RS256", typ, kid })}.${b64json(claims)}`;
  const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, encoder.encode(input));
  return `${input}.${toBase64Url(new Uint8Array(sig))}`;
}
