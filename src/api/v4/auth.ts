import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { actorOf } from "../../credentials/principal";
import type { AuditActor } from "../../db/audit";
import { clientIp } from "../../web/page";
import { extractToken } from "../../credentials/extract";
import { requireScopes, resolveToken } from "../../credentials/resolve";
import { applySudo, sudoIdentifier } from "../../credentials/sudo";
import { getDb } from "../../db/client";
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
    const defer = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
    const token = await resolveToken(c.env, extractToken(c.req.raw), defer, { ip: c.req.header("cf-connecting-ip") ?? null });
    const principal = await applySudo(getDb(c.env.DB), token, sudoIdentifier(c.req.raw), {
      ip: c.req.header("cf-connecting-ip") ?? null,
      method: c.req.method,
      path: c.req.path,
      defer,
    });
    requireScopes(principal, accepted);
    c.set("principal", principal);
    await next();
  });
}

/** The actor of this request's audit rows: its principal (with Sudo's administrator) and address. */
export function requestActor(c: Context<AppEnv>): AuditActor {
  return actorOf(c.get("principal"), clientIp(c));
}

/** For routes that only administrators may use (after requireAuth). */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get("principal").user.isAdmin) throw forbidden();
  await next();
});
