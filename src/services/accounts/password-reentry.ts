import { verifyPassword } from "../../crypto/password";
import type { Bindings } from "../../env";
import { countAddressFailure } from "../../credentials/failed-auth-throttle";
import { assertAttemptAllowed } from "./lockout";

/**
 * Checks the password a signed-in user re-enters to change their password or two-factor settings
 * (issue 8 item 3, docs/security.md Throttle). A stolen session must not become an unthrottled
 * password oracle: like sign-in, a banned address is refused (ThrottledError) before the password
 * is verified, and a wrong password counts towards the address's failed_auth bucket.
 */
export async function verifyReenteredPassword(env: Bindings, password: string, passwordHash: string, ip: string | null): Promise<boolean> {
  await assertAttemptAllowed(env, { ip });
  if (await verifyPassword(password, passwordHash)) return true;
  await countAddressFailure(env, { ip }, "password_reentry");
  return false;
}
