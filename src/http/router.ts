import type { Env, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { isReservedTopLevelPath } from "../domain/namespace-paths";

/**
 * The app's router (docs/architecture.md "Routing"): Hono's RegExpRouter, which matches every route
 * with one regular expression, over a *routing path* in which a multi-segment project path is one
 * segment. RegExpRouter refuses a regex-constrained parameter beside any other route at the same
 * place (`/:project{a/b...}` beside `/oauth/...`), and Hono's SmartRouter would then fall back to
 * its TrieRouter for every request (about 48 µs each, bench/RESULTS.md). So no route pattern carries a
 * regex: a project's pages and git's endpoints are registered under the canonical prefixes below
 * (`projectRoute`, `gitRoute`) with the project path as one parameter, and `routingPath` maps a
 * request's path onto them. test/http/router.test.ts fails if a route ever pushes the app off it.
 *
 * Only routing sees the routing path: `c.req.path`, the family table and the request log keep the
 * request's own path. Hono decodes each parameter once (src/http/path-decoding.ts), so the `/`
 * joined here as `%2F` comes back as `/` in `c.req.param("project")`, exactly as the old pattern's.
 */

/** One segment of a project path, as GitLab shapes them. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** Git's smart HTTP endpoints below a repository path (the git row of src/http/families.ts). */
const GIT_TAIL = /\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/**
 * Below a project path, these segments start the project's own sections ("edit": GitLab's
 * project settings page, one of its PROJECT_WILDCARD_ROUTES, never a project path there).
 */
const SECTION_STARTS: ReadonlySet<string> = new Set(["-", "container_registry", "edit"]);

const PROJECT_PREFIX = "/-/project/";
const GIT_PREFIX = "/-/git/";
const USER_PREFIX = "/-/user/";

/** A route below `/<namespace>/<project>` (the `project` parameter); `rest` starts with `/` or is empty. */
export const projectRoute = <R extends string = "">(rest: R = "" as R) => `/-/project/:project${rest}` as const;
/** A git endpoint below a repository path (the `repo` parameter, `.git` included when sent). */
export const gitRoute = <E extends string>(endpoint: E) => `/-/git/:repo/${endpoint}` as const;

/**
 * A user's profile page, `/<username>` (the `username` parameter). Every top-level path the app
 * answers itself is reserved (src/domain/namespace-paths.ts), so any other single segment that is a
 * valid path names a user; routing it under this prefix keeps `/:username` from sitting beside the
 * static routes, which RegExpRouter cannot hold.
 */
export const userRoute = () => "/-/user/:username" as const;

/** The path the router matches for a request path (as Hono's getPath returns it). */
export function routingPath(path: string): string {
  const second = path.indexOf("/", 1);
  // One segment (or the root) is never below a project; most API paths leave here too.
  if (second === -1) {
    const only = path.slice(1);
    return SEGMENT.test(only) && !isReservedTopLevelPath(only) ? `${USER_PREFIX}${only}` : path;
  }
  if (isReservedTopLevelPath(path.slice(1, second))) {
    // The canonical prefixes are the router's own: a request naming them reaches no route.
    return path.startsWith(PROJECT_PREFIX) || path.startsWith(GIT_PREFIX) || path.startsWith(USER_PREFIX) ? `/-/unrouted${path}` : path;
  }
  const git = GIT_TAIL.exec(path);
  if (git) return `${GIT_PREFIX}${path.slice(1, git.index).replaceAll("/", "%2F")}${git[0]}`;
  const segments = path.slice(1).split("/");
  let end = segments.findIndex((s) => SECTION_STARTS.has(s));
  if (end === -1) end = segments.length;
  if (end < 2 || !segments.slice(0, end).every((s) => SEGMENT.test(s))) return path;
  const rest = segments.slice(end);
  return `${PROJECT_PREFIX}${segments.slice(0, end).join("%2F")}${rest.length ? `/${rest.join("/")}` : ""}`;
}

/** RegExpRouter over routing paths; it throws UnsupportedPathError when a route is added that it cannot take. */
export class ProjectPathRouter<T> implements Router<T> {
  readonly name = "RegExpRouter";
  readonly #inner = new RegExpRouter<T>();

  add(method: string, path: string, handler: T): void {
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return this.#inner.match(method, routingPath(path));
  }
}

/**
 * A literal segment where a parameter's routes also sit (`/runners/all` beside `/runners/:id`):
 * RegExpRouter cannot hold both patterns, so the literal is registered under the parameter's
 * pattern and its handlers run only when the parameter equals it; any other value passes on to the
 * parameter's own route, registered after it.
 */
export function whenParamIs<E extends Env>(name: string, literal: string, ...handlers: MiddlewareHandler<E>[]): MiddlewareHandler<E> {
  const chain = every(...handlers);
  return (c, next) => (c.req.param(name) === literal ? chain(c, next) : next());
}

/**
 * The shape of the request paths a route pattern answers, for readers of the route table (the
 * hostile-input sweep): the canonical prefixes become the project path's two segments.
 */
export function requestPattern(routePattern: string): string {
  if (routePattern.startsWith(PROJECT_PREFIX)) return `/:namespace/${routePattern.slice(PROJECT_PREFIX.length)}`;
  if (routePattern.startsWith(GIT_PREFIX)) return `/:namespace/${routePattern.slice(GIT_PREFIX.length)}`;
  return routePattern;
}
