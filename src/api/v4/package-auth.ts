import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { admitRequest, type Door } from "../../credentials/front-door";
import { requireScopes } from "../../credentials/resolve";
import { askerOf, findProjectAccess, projectNotFound, type CheckedProject } from "../../services/abilities";
import { hasAnyScope } from "../../domain/scopes";
import type { AppEnv } from "../../env";
import { ApiError, forbidden } from "./errors";

/**
 * Who may use the generic package registry (spec: OAuth access tokens do not authenticate to the
 * package registry): personal access tokens (api writes; api or read_api reads) and deploy tokens
 * (write_package_registry writes; read_ or write_package_registry reads). Credentials come as
 * GitLab takes them: PRIVATE-TOKEN, DEPLOY-TOKEN, HTTP Basic (user:token) or Bearer.
 */
const OAUTH_REFUSED =
  "401 Unauthorized - OAuth access tokens are not accepted by the package registry: use a personal access token (scope api) or a deploy token (read_package_registry, write_package_registry)";

const PAT_SCOPES = { read: ["api", "read_api"], write: ["api"] } as const;
const DEPLOY_SCOPES = { read: ["read_package_registry", "write_package_registry"], write: ["write_package_registry"] } as const;

/**
 * The package registry's door: GitLab's places (DEPLOY-TOKEN, PRIVATE-TOKEN, HTTP Basic with the
 * token as password, Bearer, the query), personal access tokens and deploy tokens; a failed token
 * counts in failed_bearer like every token sent as a token (docs/security.md, Throttle).
 */
const PACKAGE_DOOR = {
  sources: ["deploy-token", "private-token", "basic", "bearer", "query"],
  accepts: ["personal_access_token", "deploy_token"],
  failures: { bucket: "failed_bearer" },
  // Anything else that is a valid token is an OAuth access token: refused, with what to use.
  notAccepted: () => new ApiError(401, { message: OAUTH_REFUSED }),
} as const satisfies Door;

export function requirePackageAuth(mode: "read" | "write") {
  return createMiddleware<AppEnv>(async (c, next) => {
    const caller = await admitRequest(c, PACKAGE_DOOR);
    c.set("caller", caller);
    if (caller.kind === "deploy_token" && !hasAnyScope(caller.token.scopes, DEPLOY_SCOPES[mode])) throw forbidden();
    if (caller.kind === "user") {
      requireScopes(caller.principal, PAT_SCOPES[mode]);
      c.set("principal", caller.principal);
    }
    await next();
  });
}

/**
 * The project of a generic package route, for the caller of requirePackageAuth: a user needs
 * developer to write and read access (reporter on private projects) to read; a deploy token needs
 * to cover the project.
 */
export async function loadPackageProject(c: Context<AppEnv>, mode: "read"): Promise<CheckedProject<"read_package">>;
export async function loadPackageProject(c: Context<AppEnv>, mode: "write"): Promise<CheckedProject<"create_package">>;
export async function loadPackageProject(c: Context<AppEnv>, mode: "read" | "write"): Promise<CheckedProject<"read_package"> | CheckedProject<"create_package">> {
  // The door judged the token's scopes for the mode (PAT_SCOPES, DEPLOY_SCOPES); the table the project.
  const asker = askerOf(c.get("caller"), "judged_by_door");
  const access = await findProjectAccess(c.env, asker, c.req.param("id")!);
  if (!access) throw projectNotFound();
  if (mode === "read") return access.check("read_package");
  const writable = access.check("create_package");
  access.check("read_package");
  return writable;
}
