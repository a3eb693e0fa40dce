import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { deployTokenCovers, isDeployTokenSecret, resolveDeployToken, type DeployTokenPrincipal } from "../../credentials/deploy-token";
import { AuthError } from "../../credentials/errors";
import { requireScopes, resolveToken } from "../../credentials/resolve";
import { getDb } from "../../db/client";
import { PAT_PREFIX } from "../../db/personal-access-tokens";
import { findProject, type ProjectRow } from "../../db/projects";
import { AccessLevel } from "../../domain/access";
import { hasAnyScope } from "../../domain/scopes";
import type { AppEnv } from "../../env";
import { parseBasic } from "../../git/credentials";
import { ApiError, forbidden, notFound } from "./errors";
import { loadProject } from "./load";

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

type PackageCaller = { kind: "user" } | { kind: "deploy_token"; token: DeployTokenPrincipal };
const callers = new WeakMap<Request, PackageCaller>();

function credentialOf(c: Context<AppEnv>): { username: string | null; secret: string } | null {
  const deploy = c.req.header("deploy-token");
  if (deploy) return { username: null, secret: deploy.trim() };
  const priv = c.req.header("private-token");
  if (priv) return { username: null, secret: priv.trim() };
  const auth = c.req.header("authorization") ?? "";
  const basic = parseBasic(auth);
  if (basic) return { username: basic.username, secret: basic.password };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (bearer) return { username: null, secret: bearer[1] };
  const q = c.req.query("private_token") ?? c.req.query("access_token");
  return q ? { username: null, secret: q } : null;
}

export function requirePackageAuth(mode: "read" | "write") {
  return createMiddleware<AppEnv>(async (c, next) => {
    const cred = credentialOf(c);
    if (!cred) throw new AuthError("missing");
    if (isDeployTokenSecret(cred.secret)) {
      const token = await resolveDeployToken(c.env, cred.username, cred.secret);
      if (!hasAnyScope(token.scopes, DEPLOY_SCOPES[mode])) throw forbidden();
      callers.set(c.req.raw, { kind: "deploy_token", token });
      return next();
    }
    if (!cred.secret.startsWith(PAT_PREFIX)) {
      // Anything else that is a valid token is an OAuth access token: refused, with what to use.
      const valid = await resolveToken(c.env, cred.secret).then(
        () => true,
        () => false,
      );
      if (valid) throw new ApiError(401, { message: OAUTH_REFUSED });
      throw new AuthError("invalid");
    }
    const principal = await resolveToken(c.env, cred.secret, (p) => c.executionCtx.waitUntil(p), { ip: c.req.header("cf-connecting-ip") ?? null });
    requireScopes(principal, PAT_SCOPES[mode]);
    c.set("principal", principal);
    callers.set(c.req.raw, { kind: "user" });
    await next();
  });
}

/**
 * The project of a generic package route, for the caller of requirePackageAuth: a user needs
 * developer to write and read access (reporter on private projects) to read; a deploy token needs
 * to cover the project.
 */
export async function loadPackageProject(c: Context<AppEnv>, mode: "read" | "write"): Promise<ProjectRow> {
  const caller = callers.get(c.req.raw);
  if (caller?.kind === "deploy_token") {
    const project = await findProject(getDb(c.env.DB), c.req.param("id")!);
    if (!project || !(await deployTokenCovers(c.env, caller.token, project))) throw notFound("Project Not Found");
    return project;
  }
  const { project, level } = await loadProject(c, c.req.param("id")!, mode === "write" ? AccessLevel.DEVELOPER : AccessLevel.NONE);
  if (mode === "read" && project.visibility === "private" && level < AccessLevel.REPORTER) throw notFound();
  return project;
}
