import { AuthError } from "../auth/errors";
import type { Principal } from "../auth/principal";
import type { Bindings } from "../env";

/**
 * Validates an OAuth access token against its family's state. (Owned by the OAuth work: until the
 * token family exists, no OAuth token validates.)
 */
export async function resolveOAuthAccessToken(_env: Bindings, _token: string): Promise<Principal> {
  throw new AuthError("invalid");
}
