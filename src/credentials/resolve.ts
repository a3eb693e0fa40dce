import type { Bindings } from "../env";
import { hasAnyScope } from "../domain/scopes";
import { countBearerFailure } from "./bearer-throttle";
import { AuthError, noUserError, ScopeError } from "./errors";
import type { Defer } from "./kind";
import { kindOf } from "./kinds";
import type { Principal } from "./principal";

/**
 * Turns a raw token into the principal it acts for, or throws AuthError. The one entry of every
 * API family (REST, GraphQL, Plugin RPC, git); each renders the failure in its own shape.
 * `defer` lets a kind record its use after the response (waitUntil).
 * With `from` (the client address, src/http/client-address.ts; null when unknown) a presented token that fails is
 * counted per client address and, once the address is banned, ThrottledError is thrown instead
 * of AuthError. Git passes no `from`: its Basic credentials count in the failed_auth bucket.
 */
export async function resolveToken(env: Bindings, token: string | null, defer?: Defer, from?: { ip: string | null }): Promise<Principal> {
  if (!token) throw new AuthError("missing");
  try {
    const kind = kindOf(token);
    if (!kind) throw new AuthError("invalid");
    const principal = await kind.resolve(env, token, defer);
    // Every family that resolves a token here acts for a user.
    if (principal.kind === "application") throw noUserError();
    return principal;
  } catch (err) {
    if (from && err instanceof AuthError) await countBearerFailure(env, from.ip);
    throw err;
  }
}

export function requireScopes(principal: Pick<Principal, "scopes">, accepted: readonly string[]): void {
  if (!hasAnyScope(principal.scopes, accepted)) throw new ScopeError(accepted);
}
