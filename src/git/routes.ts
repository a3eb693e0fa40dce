import { Hono, type Context, type Next } from "hono";
import { admitRequest, type Caller, type Door } from "../credentials/front-door";
import { getConfig } from "../config";
import { askerOf, findProjectAccess } from "../services/abilities";
import type { AppEnv } from "../env";
import { checkGitCredential, decideGitAccess, GIT_DENIAL_MESSAGES, type GitOperation } from "./access";
import { forwardToOrigin, GIT_SERVICES } from "./proxy";
import { originSettings } from "./origin-client";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { AppError, ERROR_STATUS } from "../domain/errors";
import { logUnexpectedError } from "../observability/error-log";
import { gitRoute } from "../http/router";

/**
 * Git over HTTPS (DESIGN.md, "Git over HTTPS"): the smart-HTTP endpoints of
 * /<namespace>/<project>.git, authenticated with HTTP Basic (oauth2:<OAuth token> or any user name
 * with a personal access token), authorised per project, then streamed to GIT_ORIGIN.
 */
const routes = new Hono<AppEnv>();

// The one place git errors are rendered: plain text, never a stack.
export function renderGitError(err: Error, c: Context): Response {
  c.header("Cache-Control", "no-store");
  if (err instanceof ThrottledError) {
    // Rack::Attack's answer to a banned address, with GitLab's rate-limit headers.
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.text("Retry later\n", 429);
  }
  if (err instanceof AppError && err.code === "unauthenticated") {
    // A refused or missing credential (AuthError at the door, or git's own denial): git asks again.
    c.header("WWW-Authenticate", 'Basic realm="GitLab"');
    return c.text(`${GIT_DENIAL_MESSAGES.unauthorized}\n`, 401);
  }
  if (err instanceof AppError && err.code !== "internal") return c.text(`${err.message}\n`, ERROR_STATUS[err.code]);
  logUnexpectedError("git", err, c);
  return c.text("Internal server error\n", 500);
}
routes.onError(renderGitError);

/**
 * Git's door: HTTP Basic (oauth2:<OAuth token>, any login with a personal access token, a deploy
 * token under its own login) or nothing (public fetches). Failed Basic credentials count towards
 * the address throttle in failed_auth, as logins do (docs/security.md, Throttle).
 */
const GIT_DOOR = {
  sources: ["basic"],
  accepts: ["personal_access_token", "oauth", "deploy_token"],
  anonymous: true,
  failures: { bucket: "failed_auth", method: "git_basic" },
  // GitLab asks a dpop_enabled user's PAT for a DPoP proof on API requests only (docs/oauth.md).
  patKeyProofExempt: true,
} as const satisfies Door;

const gitCaller = (c: Context<AppEnv>): Promise<Caller> => admitRequest(c, GIT_DOOR);

/** The smart-HTTP endpoint a request is forwarded to. */
type GitPath = Parameters<typeof forwardToOrigin>[3];

/**
 * One git request: the credential checked, then the abilities table (src/services/abilities.ts)
 * with the token's own scopes (git judges them per ability); deploy tokens act for their project
 * or group under their own login.
 */
async function serveGit(c: Context<AppEnv>, projectPath: string, gitPath: GitPath, op: GitOperation): Promise<Response> {
  const caller = await gitCaller(c);
  checkGitCredential(caller);
  const access = await findProjectAccess(c.env, askerOf(caller, "per_ability"), projectPath);
  decideGitAccess(op, caller.kind, access);
  const login = caller.kind === "user" ? caller.principal.user.username : caller.kind === "deploy_token" ? caller.token.username : null;
  // The origin knows the repository by project id, so differently-cased URLs and renamed
  // projects reach the same repository.
  return forwardToOrigin(originSettings(c.env), c.req.raw, access!.row.id, gitPath, op, login);
}

function serviceOperation(service: string | undefined): GitOperation | null {
  const found = Object.entries(GIT_SERVICES).find(([, name]) => name === service);
  return found ? (found[0] as GitOperation) : null;
}

// Repository paths span segments: the router hands them over as one parameter (src/http/router.ts).
const isGitPath = (repo: string) => repo.endsWith(".git");

routes.get(gitRoute("info/refs"), async (c, next) => {
  const repo = c.req.param("repo");
  if (!isGitPath(repo)) return redirectToGitPath(c, repo, next);
  // One service, or none: with two, which one a reader takes depends on the reader (the first
  // here, the last in git http-backend), so a repeated `service` is refused outright.
  const services = c.req.queries("service") ?? [];
  if (services.length > 1) return c.text("Give the service parameter once.\n", 400);
  const op = serviceOperation(services[0]);
  // Only the smart protocol is served (the dumb one would need object paths at the origin).
  if (!op) return c.text("Only the smart HTTP protocol is supported: request info/refs with ?service=git-upload-pack or git-receive-pack.\n", 403);
  return serveGit(c, repo.slice(0, -4), "info/refs", op);
});
// GitLab also accepts clone URLs without ".git": the first request is redirected (git follows a
// redirect of its initial info/refs request), whether or not the project exists.
function redirectToGitPath(c: Context<AppEnv>, repo: string, next: Next) {
  // Only GitLab-shaped paths: never "//host" (a redirect off this origin) or dot segments.
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+$/.test(repo)) return next();
  return c.redirect(`/${repo}.git/info/refs${new URL(c.req.url).search}`, 301);
}
routes.post(gitRoute("git-upload-pack"), (c, next) => (isGitPath(c.req.param("repo")) ? serveGit(c, c.req.param("repo").slice(0, -4), "git-upload-pack", "fetch") : next()));
routes.post(gitRoute("git-receive-pack"), (c, next) => (isGitPath(c.req.param("repo")) ? serveGit(c, c.req.param("repo").slice(0, -4), "git-receive-pack", "push") : next()));

export default routes;
