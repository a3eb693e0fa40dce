import type { Context } from "hono";
import { renderApiError } from "./api/v4/errors";
import { renderGitError } from "./git/routes";
import { renderGraphqlError } from "./graphql/routes";
import { renderAuthorizeError } from "./oauth/authorize-routes";
import { renderOAuthError } from "./oauth/errors";
import { renderConnectError } from "./plugin/routes";
import { renderRegistryError } from "./registry/errors";
import { renderPagesError } from "./web/pages/index";
import { familyOf, type Family } from "./http/families";

type Renderer = (err: Error, c: Context) => Response | Promise<Response>;

const RENDERERS: Record<Family, Renderer> = {
  rest: renderApiError,
  graphql: renderGraphqlError,
  oauth: renderOAuthError,
  authorize: renderAuthorizeError,
  registry: renderRegistryError,
  plugin: renderConnectError,
  git: renderGitError,
  pages: renderPagesError,
};

/**
 * The renderer of the API family a path belongs to (the one table, src/http/families.ts). Each
 * family renders its own errors in its sub-app; this is for exceptions thrown before a sub-app runs
 * (global middleware such as the first start or the request log), so a client still gets its
 * family's shape rather than a bare text 500.
 */
export function rendererFor(path: string): Renderer {
  return RENDERERS[familyOf(path)];
}

/** app.onError: the family's renderer both logs the failure (src/observability/error-log.ts) and renders it. */
export function renderUnhandledError(err: Error, c: Context): Response | Promise<Response> {
  return rendererFor(c.req.path)(err, c);
}
