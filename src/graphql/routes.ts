import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../credentials/errors";
import { applySudo, SudoError, sudoIdentifier } from "../credentials/sudo";
import { extractToken } from "../credentials/extract";
import type { Principal } from "../credentials/principal";
import { resolveToken } from "../credentials/resolve";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { hasAnyScope } from "../domain/scopes";
import type { AppEnv } from "../env";
import { combinedDeprecationHeaders, isDeprecated } from "../versioning/gate";
import type { GqlContext } from "./context";
import { malformedJsonParam } from "./request-params";
import { serverFor } from "./server";
import { logUnexpectedError } from "../observability/error-log";

/**
 * The GraphQL API at /api/graphql (GitLab's endpoint), served by graphql-yoga with the schema of
 * the configured SERVICE_VERSION. Tokens as the REST API: Bearer, PRIVATE-TOKEN or access_token;
 * read_api or api to query, api to mutate; no token: public data only.
 */
const routes = new Hono<AppEnv>();

/** Scopes that let a token use GraphQL at all (mutations also need api: see requireWrite). */
const GRAPHQL_SCOPES = ["api", "read_api"] as const;

const graphqlError = (message: string, extensions?: Record<string, unknown>) => ({ errors: [{ message, ...(extensions ? { extensions } : {}) }] });

// The family's one error renderer: GraphQL's shape, never a stack.
export function renderGraphqlError(err: Error, c: Context): Response {
  logUnexpectedError("graphql", err, c);
  return c.json(graphqlError("Internal server error"), 500);
}
routes.onError(renderGraphqlError);

routes.on(["GET", "POST", "OPTIONS"], "/", async (c) => {
  let principal: Principal | null = null;
  const token = extractToken(c.req.raw);
  if (token) {
    try {
      principal = await resolveToken(c.env, token, (p) => c.executionCtx.waitUntil(p), { ip: c.req.header("cf-connecting-ip") ?? null });
    } catch (err) {
      if (err instanceof ThrottledError) {
        for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
        return c.json(graphqlError("Too many failed authentication attempts. Retry later.", { code: "RATE_LIMITED" }), 429);
      }
      if (!(err instanceof AuthError)) throw err;
      // GitLab answers a bad token with 401 rather than silently treating the caller as anonymous.
      c.header("WWW-Authenticate", 'Bearer realm="GitLab", error="invalid_token"');
      return c.json(graphqlError("Invalid token", { code: "UNAUTHENTICATED", reason: err.reason }), 401);
    }
    try {
      principal = await applySudo(getDb(c.env.DB), principal, sudoIdentifier(c.req.raw), {
        ip: c.req.header("cf-connecting-ip") ?? null,
        method: c.req.method,
        path: c.req.path,
        defer: (p) => c.executionCtx.waitUntil(p),
      });
    } catch (err) {
      if (err instanceof ScopeError) return c.json(graphqlError("Insufficient scope: Sudo needs a token with the sudo scope", { code: "INSUFFICIENT_SCOPE", scope: "sudo" }), 403);
      if (!(err instanceof SudoError)) throw err;
      return err.reason === "not_admin"
        ? c.json(graphqlError("403 Forbidden - Must be admin to use sudo", { code: "FORBIDDEN" }), 403)
        : c.json(graphqlError(`404 User with ID or username '${err.identifier}' Not Found`, { code: "NOT_FOUND" }), 404);
    }
    if (!hasAnyScope(principal.scopes, GRAPHQL_SCOPES)) {
      return c.json(graphqlError(`Insufficient scope: GraphQL needs a token with one of the scopes ${GRAPHQL_SCOPES.join(", ")}`, { code: "INSUFFICIENT_SCOPE", scope: GRAPHQL_SCOPES.join(" ") }), 403);
    }
  }
  const malformed = await malformedJsonParam(c.req.raw);
  if (malformed) return c.json(graphqlError(malformed, { code: "BAD_REQUEST" }), 400);
  const version = getConfig(c.env).serviceVersion;
  const deprecations = new Set<string>();
  const { yoga, gate } = serverFor(version);
  const context: GqlContext = {
    env: c.env,
    db: getDb(c.env.DB),
    principal,
    gate,
    origin: new URL(c.req.url).origin,
    deprecations,
    now: Date.now(),
    memo: new Map(),
  };
  const res = await yoga.fetch(c.req.raw, context);
  // yoga answers some refusals (415 for an unsupported content type) with an empty body: they get
  // the family's error shape like every other GraphQL error.
  if (res.status >= 400 && !(res.headers.get("content-type") ?? "").includes("json")) {
    const message = res.status === 415 ? "Unsupported content type: send application/json, application/x-www-form-urlencoded or multipart/form-data" : `Request refused (${res.status})`;
    return c.json(graphqlError(message, { code: "BAD_REQUEST" }), res.status as ContentfulStatusCode);
  }
  const out = new Response(res.body, res);
  const combined = combinedDeprecationHeaders([...deprecations].filter((id) => isDeprecated(id, version)), context.origin);
  if (combined) {
    out.headers.set("Deprecation", combined.Deprecation);
    if (combined.Sunset) out.headers.set("Sunset", combined.Sunset);
    for (const link of combined.links) out.headers.append("Link", link);
  }
  return out;
});

export default routes;
