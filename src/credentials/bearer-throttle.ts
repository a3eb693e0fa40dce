import type { Bindings } from "../env";
import { hitFailure, throttleKey, ThrottledError } from "../throttle";

/**
 * Counts one failed bearer token (PAT, OAuth access token, deploy token) from a client address in
 * the "failed_bearer" bucket (docs/security.md, Throttle). Tokens carry 256 bits, so only failures
 * are counted: a valid token never pays this storage hop. Throws ThrottledError once the address
 * is banned (each API family renders it as 429 in its own shape); otherwise returns, and the
 * caller throws its own authentication error.
 */
export async function countBearerFailure(env: Bindings, clientAddress: string | null): Promise<void> {
  const result = await hitFailure(env, "failed_bearer", throttleKey(clientAddress));
  if (!result.allowed) throw new ThrottledError(result);
}
