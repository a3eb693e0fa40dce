import type { Bindings } from "../env";
import { hasAnyScope } from "../domain/scopes";
import { AuthError, ScopeError } from "./errors";
import type { Defer } from "./kind";
import { kindOf } from "./kinds";
import type { Principal } from "./principal";

/**
 * Turns a raw token into the principal it acts for, or throws AuthError. The one entry of every
 * API family (REST, GraphQL, Plugin RPC, git); each renders the failure in its own shape.
 * `defer` lets a kind record its use after the response (waitUntil).
 */
export async function resolveToken(env: Bindings, token: string | null, defer?: Defer): Promise<Principal> {
  if (!token) throw new AuthError("missing");
  const kind = kindOf(token);
  if (!kind) throw new AuthError("invalid");
  return kind.resolve(env, token, defer);
}

export function requireScopes(principal: Principal, accepted: readonly string[]): void {
  if (!hasAnyScope(principal.scopes, accepted)) throw new ScopeError(accepted);
}
