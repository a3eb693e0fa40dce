import type { Bindings } from "../../env";
import { signWithOidcKey } from "../../credentials/oidc-jwt";

/** A compact JWS (RFC 7515 §7.1) over the claims, RS256 with the OIDC ring's active key and its kid (never the registry's). */
export function signJwt(env: Bindings, claims: Record<string, unknown>): Promise<string> {
  return signWithOidcKey(env, claims);
}
