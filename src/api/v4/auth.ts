import { createMiddleware } from "hono/factory";
import { extractToken } from "../../credentials/extract";
import { requireScopes, resolveToken } from "../../credentials/resolve";
import type { AppEnv } from "../../env";
import { forbidden } from "./errors";

/**
 * Every REST route declares the scopes it accepts (any one suffices). Reads usually accept
 * read_api or api; writes api.
 */
export const READ_API = ["api", "read_api"] as const;
export const WRITE_API = ["api"] as const;

export function requireAuth(accepted: readonly string[] = READ_API) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const principal = await resolveToken(c.env, extractToken(c.req.raw), (p) => c.executionCtx.waitUntil(p));
    requireScopes(principal, accepted);
    c.set("principal", principal);
    await next();
  });
}

/** For routes that only administrators may use (after requireAuth). */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get("principal").user.isAdmin) throw forbidden();
  await next();
});
