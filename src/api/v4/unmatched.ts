import type { Context, Hono } from "hono";
import { METHOD_NAME_ALL } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { ApiError } from "./errors";

/**
 * GitLab's answers for requests no /api/v4 route takes: `405 Not Allowed` (with `Allow`) when the
 * path exists under other methods, `404 Not Found` otherwise, both JSON as Grape renders them.
 *
 * Why a catch-all route and not `api.notFound`: Hono calls only the top-level app's not-found
 * handler; a sub-app's `notFound` is never consulted once it is mounted with `app.route`. A
 * catch-all registered last inside the sub-app runs exactly when no earlier route answered.
 * The registered routes are read from the app itself, so new routes are covered without a list.
 */
export function answerUnmatched(api: Hono<any>): void {
  let methodsByPath: TrieRouter<string> | null = null;
  const router = () => {
    if (!methodsByPath) {
      methodsByPath = new TrieRouter<string>();
      for (const r of api.routes) if (r.method !== METHOD_NAME_ALL && r.path !== "/*") methodsByPath.add(METHOD_NAME_ALL, r.path, r.method);
    }
    return methodsByPath;
  };
  api.all("/*", (c: Context) => {
    // The sub-app's own prefix, as mounted ("/api/v4"), taken from this route's pattern.
    const prefix = c.req.routePath.replace(/\/\*$/, "");
    const path = c.req.path.slice(prefix.length) || "/";
    const [matches] = router().match(c.req.method, path);
    const allowed = [...new Set(matches.map(([method]) => method))];
    if (allowed.length) {
      if (allowed.includes("GET")) allowed.push("HEAD");
      throw new ApiError(405, { error: "405 Not Allowed" }, { Allow: allowed.join(", ") });
    }
    throw new ApiError(404, { error: "404 Not Found" });
  });
}
