import { authorizationCodeGrant } from "./authorization-code";
import { clientCredentialsGrant } from "./client-credentials";
import { TOKEN_EXCHANGE_GRANT_TYPE, tokenExchangeGrant } from "./token-exchange";
import { JWT_BEARER_GRANT_TYPE, jwtBearerGrant } from "./jwt-bearer";
import { DEVICE_CODE_GRANT_TYPE, deviceCodeGrant } from "./device-code";
import { passwordGrant } from "./password";
import { refreshTokenGrant } from "./refresh-token";
import type { Grant } from "./types";

/** The grants of POST /oauth/token, keyed by grant_type (DESIGN, convention 3). */
export const GRANTS: Readonly<Record<string, Grant>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  password: passwordGrant,
  [DEVICE_CODE_GRANT_TYPE]: deviceCodeGrant,
  client_credentials: clientCredentialsGrant,
  [TOKEN_EXCHANGE_GRANT_TYPE]: tokenExchangeGrant,
  [JWT_BEARER_GRANT_TYPE]: jwtBearerGrant,
};

export function grantFor(type: string): Grant | null {
  return Object.hasOwn(GRANTS, type) ? GRANTS[type] : null;
}
