import { authorizationCodeGrant } from "./authorization-code";
import { passwordGrant } from "./password";
import { refreshTokenGrant } from "./refresh-token";
import type { Grant } from "./types";

/** The grants of POST /oauth/token, keyed by grant_type (DESIGN, convention 3). */
export const GRANTS: Readonly<Record<string, Grant>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  password: passwordGrant,
};

export function grantFor(type: string): Grant | null {
  return Object.hasOwn(GRANTS, type) ? GRANTS[type] : null;
}
