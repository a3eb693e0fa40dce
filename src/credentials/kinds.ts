import type { CredentialKind } from "./kind";
import { oauthAccessToken } from "./oauth-access-token";
import { personalAccessToken } from "./personal-access-token";
import { refreshToken } from "./refresh-token";

/**
 * The table from token prefix to credential kind (DESIGN, Credentials). Every bearer credential a
 * request may carry is routed here by its visible prefix, without a lookup; a token matching no
 * row is unknown. Deploy tokens (`gldt-`, deploy-token.ts) and registry JWTs (registry-token.ts) live
 * in this layer too but are not rows: neither acts for a user, so neither yields a Principal; the
 * families that accept them (git, the registry's token service and /v2/, generic packages) ask
 * those modules directly.
 */
export const CREDENTIAL_KINDS: readonly CredentialKind[] = [personalAccessToken, oauthAccessToken, refreshToken];

export function kindOf(token: string): CredentialKind | null {
  for (const kind of CREDENTIAL_KINDS) if (token.startsWith(kind.prefix)) return kind;
  return null;
}
