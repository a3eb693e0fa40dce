import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { API_TOKEN_SOURCES } from "../../credentials/extract";
import { frontDoor, type Door } from "../../credentials/front-door";
import { actorOf } from "../../credentials/principal";
import type { AuditActor } from "../../db/audit";
import { clientAddress } from "../../http/client-address";
import type { AppEnv } from "../../env";
import { forbidden } from "./errors";

/**
 * Every REST route declares the scopes it accepts (any one suffices). Reads usually accept
 * read_api or api; writes api.
 */
export const READ_API = ["api", "read_api"] as const;
export const WRITE_API = ["api"] as const;

/** REST's door (DESIGN.md, "One front door"): GitLab's places for a token, Sudo, the route's scopes. */
export const REST_DOOR = {
  sources: API_TOKEN_SOURCES,
  accepts: ["personal_access_token", "oauth"],
  failures: { bucket: "failed_bearer" },
  sudo: true,
} as const satisfies Door;

export function requireAuth(accepted: readonly string[] = READ_API) {
  return frontDoor({ ...REST_DOOR, scopes: accepted });
}

/**
 * For listings GitLab also answers without a token (GET /projects, GET /groups list public rows):
 * no credential is the anonymous caller (c.var.caller), a credential is checked as requireAuth.
 */
export function allowAnonymous(accepted: readonly string[] = READ_API) {
  return frontDoor({ ...REST_DOOR, scopes: accepted, anonymous: true });
}

/** The actor of this request's audit rows: its principal (with Sudo's administrator) and address. */
export function requestActor(c: Context<AppEnv>): AuditActor {
  return actorOf(c.get("principal"), clientAddress(c.req.raw, c.env));
}

/** For routes that only administrators may use (after requireAuth). */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get("principal").user.isAdmin) throw forbidden();
  await next();
});
