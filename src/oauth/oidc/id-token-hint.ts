import { compactVerify, createLocalJWKSet, errors } from "jose";
import type { Bindings } from "../../env";
import { publishedKeys } from "../../credentials/signing-keys";

/**
 * RP-Initiated Logout 1.0 §2 `id_token_hint`: an ID token this server issued, "as evidence of the
 * End-User's current authenticated session". Its signature is checked against the OIDC ring's
 * published keys and its `iss` must be ours; its expiry is not checked (§2: "The OP SHOULD accept
 * ID Tokens when the RP identified by the ID Token's aud claim ... has a current session ... even
 * when the exp time has passed"). A hint signed by a key that has left the ring (a rotation since)
 * cannot be checked: it is `unverifiable` and gives no evidence, which only means the person is
 * asked before being signed out (docs/oidc.md, "Signing out").
 */
export type IdTokenHint =
  | { ok: true; sub: string; aud: string[]; sid: string | null }
  | { ok: false; reason: "invalid" | "unverifiable" };

export async function checkIdTokenHint(env: Bindings, issuer: string, token: string): Promise<IdTokenHint> {
  if (token.length > 8192) return { ok: false, reason: "invalid" };
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(token, createLocalJWKSet({ keys: await publishedKeys(env, "oidc") }), { algorithms: ["RS256"] }));
  } catch (e) {
    if (e instanceof errors.JWKSNoMatchingKey) return { ok: false, reason: "unverifiable" };
    return { ok: false, reason: "invalid" };
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: "invalid" };
  }
  const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === "string") : [];
  if (claims.iss !== issuer || typeof claims.sub !== "string" || aud.length === 0) return { ok: false, reason: "invalid" };
  return { ok: true, sub: claims.sub, aud, sid: typeof claims.sid === "string" ? claims.sid : null };
}
