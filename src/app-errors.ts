import type { Context } from "hono";
import { renderApiError } from "./api/v4/errors";
import { renderGitError } from "./git/routes";
import { renderGraphqlError } from "./graphql/routes";
import { renderAuthorizeError } from "./oauth/authorize-routes";
import { renderOAuthError } from "./oauth/errors";
import { renderConnectError } from "./plugin/routes";
import { renderRegistryError } from "./registry/errors";
import { renderPagesError } from "./web/pages/index";

type Renderer = (err: Error, c: Context) => Response | Promise<Response>;

// The git gateway's paths (src/git/routes.ts): smart-HTTP discovery and the two services.
const GIT_PATH = /\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/**
 * The renderer of the API family a path belongs to. Each family renders its own errors in its
 * sub-app; this is for exceptions thrown before a sub-app runs (global middleware such as the first
 * start or the request log), so a client still gets its family's shape rather than a bare text 500.
 */
export function rendererFor(path: string): Renderer {
  if (path === "/api/graphql" || path.startsWith("/api/graphql/")) return renderGraphqlError;
  if (path.startsWith("/api/")) return renderApiError;
  if (path === "/oauth/authorize") return renderAuthorizeError;
  if (path.startsWith("/oauth/") || path.startsWith("/.well-known/")) return renderOAuthError;
  if (path === "/v2" || path.startsWith("/v2/") || path === "/jwt" || path.startsWith("/jwt/")) return renderRegistryError;
  if (path.startsWith("/proto.Plugin/")) return renderConnectError;
  if (GIT_PATH.test(path)) return renderGitError;
  return renderPagesError;
}

/** app.onError: the family's renderer both logs the failure (src/observability/error-log.ts) and renders it. */
export function renderUnhandledError(err: Error, c: Context): Response | Promise<Response> {
  return rendererFor(c.req.path)(err, c);
}
