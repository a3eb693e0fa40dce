import type { FamilyView } from "../../durable/token-family";
import type { Bindings } from "../../env";
import { subjectClaims } from "./claims";
import { signJwt } from "./jwt";
import { ID_TOKEN_TTL_SECONDS } from "../../credentials/signing-keys";

/**
 * The id_token of a code exchange or a refresh whose grant holds `openid` (OIDC Core §3.1.3.3,
 * §12.2), or null without that scope. On refresh the nonce is left out and auth_time stays the
 * original authentication's (§12.2); sub is always the user id. The code grant uses the claims
 * recorded when the person approved (so the exchange reads nothing from D1); a refresh and the
 * device grant read them afresh. `sid` names the authorising browser session when the client asked
 * for it (backchannel_logout_session_required; docs/oidc.md, "Signing out").
 */
export async function idTokenFor(
  env: Bindings,
  issuer: string,
  family: Pick<FamilyView, "scopes" | "userId" | "applicationUid" | "oidc">,
  opts: { withNonce: boolean; recorded?: boolean },
): Promise<string | null> {
  if (!family.scopes.includes("openid") || !family.applicationUid) return null;
  const about = (opts.recorded ? family.oidc?.claims : null) ?? (await subjectClaims(env, issuer, family.userId, family.scopes));
  if (!about) return null;
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: issuer,
    aud: family.applicationUid,
    exp: now + ID_TOKEN_TTL_SECONDS,
    iat: now,
    auth_time: Math.floor((family.oidc?.authTime ?? Date.now()) / 1000),
    ...about,
  };
  if (opts.withNonce && family.oidc?.nonce) claims.nonce = family.oidc.nonce;
  if (family.oidc?.sid) claims.sid = family.oidc.sid;
  return signJwt(env, claims);
}

/** Adds the id_token to a token response when there is one. */
export function withIdToken<T extends { id_token?: string }>(body: T, idToken: string | null): T {
  if (idToken) body.id_token = idToken;
  return body;
}
