import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import { AuthError, ScopeError } from "../credentials/errors";
import { isDpopError, dpopRefusalHeaders } from "../credentials/dpop-proof";
import { API_TOKEN_SOURCES } from "../credentials/extract";
import { admit, type Door } from "../credentials/front-door";
import type { Principal } from "../credentials/principal";
import type { Bindings } from "../env";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { bearerChallengeFor } from "../oauth/protected-resource";

/** What a Connect handler needs from the Worker request: bindings and waitUntil. */
export interface WorkerContext {
  env: Bindings;
  waitUntil: (p: Promise<unknown>) => void;
  request: Request;
}

export const workerKey = createContextKey<WorkerContext | undefined>(undefined, { description: "worker" });

export function workerOf(ctx: HandlerContext): WorkerContext {
  const w = ctx.values.get(workerKey);
  if (!w) throw new ConnectError("internal error", Code.Internal);
  return w;
}

/** The Plugin service accepts tokens with scope api (DESIGN). */
export const PLUGIN_SCOPES = ["api"] as const;

const AUTH_MESSAGES: Record<string, string> = {
  missing: "a Bearer token with scope api is required",
  invalid: "the token is invalid",
  expired: "the token has expired",
  revoked: "the token was revoked",
  blocked: "the token's user is blocked",
};

/** Plugin RPC's door (DESIGN.md, Plugin RPC protocol): an OAuth or personal access token with api. */
const PLUGIN_DOOR = {
  sources: API_TOKEN_SOURCES,
  accepts: ["personal_access_token", "oauth"],
  failures: { bucket: "failed_bearer" },
  scopes: PLUGIN_SCOPES,
} as const satisfies Door;

/**
 * Resolves the Bearer token through the front door on every call, as every family does: a positive
 * answer may come from the validation cache (DESIGN, "Validation cache"), whose bound revocation
 * waits out, so a revoked token is refused by every call begun after the revocation answered.
 * Failures are Connect errors: unauthenticated, or permission_denied for too few scopes, each with
 * the RFC 6750 §3 challenge as error metadata, which Connect and gRPC-Web send as the response's
 * `WWW-Authenticate` header (no error code without a token, `invalid_token` for a bad one,
 * `insufficient_scope` naming the scope), as the other API families do.
 */
export async function authenticate(ctx: HandlerContext): Promise<{ principal: Principal; worker: WorkerContext }> {
  const worker = workerOf(ctx);
  try {
    const caller = await admit(PLUGIN_DOOR, { env: worker.env, req: worker.request, defer: worker.waitUntil });
    if (caller.kind !== "user") throw new AuthError("missing");
    return { principal: caller.principal, worker };
  } catch (err) {
    if (err instanceof ThrottledError) {
      // resource_exhausted is HTTP 429 in Connect; the metadata becomes the response headers.
      throw new ConnectError("too many failed authentication attempts; retry later", Code.ResourceExhausted, rateLimitHeaders(err.status));
    }
    // RFC 9449 §7.1, §9: the DPoP challenge and nonce become the response headers.
    if (isDpopError(err)) throw new ConnectError(`${err.dpop.error}: ${err.dpop.description}`, Code.Unauthenticated, dpopRefusalHeaders(err));
    const challenge = (refusal: Parameters<typeof bearerChallengeFor>[2]) => ({ "WWW-Authenticate": bearerChallengeFor(worker.env, worker.request.url, refusal) });
    if (err instanceof AuthError) {
      const refusal = err.reason === "missing" ? {} : { error: "invalid_token" as const, description: AUTH_MESSAGES[err.reason] };
      throw new ConnectError(AUTH_MESSAGES[err.reason] ?? "unauthenticated", Code.Unauthenticated, challenge(refusal));
    }
    if (err instanceof ScopeError) {
      throw new ConnectError(`the token needs scope ${PLUGIN_SCOPES.join(" or ")}`, Code.PermissionDenied, challenge({ error: "insufficient_scope", scope: PLUGIN_SCOPES.join(" ") }));
    }
    throw err;
  }
}
