import { createMiddleware } from "hono/factory";
import { extractToken } from "../../credentials/extract";
import { requireScopes, resolveToken } from "../../credentials/resolve";
import { applySudo, sudoIdentifier } from "../../credentials/sudo";
import { getDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { forbidden } from "./errors";
import { clientAddress } from "../../http/client-address";

/**
 * Every REST route declares the scopes it accepts (any one suffices). Reads usually accept
 * read_api or api; writes api.
 */
export const READ_API = ["api", "read_api"] as const;
export const WRITE_API = ["api"] as const;

export function requireAuth(accepted: readonly string[] = READ_API) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const defer = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
    const token = await resolveToken(c.env, extractToken(c.req.raw), defer, { ip: clientAddress(c.req.raw, c.env) });
    const principal = await applySudo(getDb(c.env.DB), token, sudoIdentifier(c.req.raw), {
      ip: clientAddress(c.req.raw, c.env),
      method: c.req.method,
      path: c.req.path,
      defer,
    });
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
