import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../credentials/errors";
import { isDpopError, dpopRefusalHeaders } from "../credentials/dpop-proof";
import { bearerChallenge } from "../oauth/protected-resource";
import { API_TOKEN_SOURCES } from "../credentials/extract";
import { frontDoor, type Door } from "../credentials/front-door";
import { clientAddress } from "../http/client-address";
import type { Principal } from "../credentials/principal";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import type { AppEnv } from "../env";
import { combinedDeprecationHeaders, isDeprecated } from "../versioning/gate";
import type { GqlContext } from "./context";
import { malformedJsonParam } from "./request-params";
import { serverFor } from "./server";
import { AppError, ERROR_STATUS, gitlabMessage, type ErrorCode } from "../domain/errors";
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

/** GitLab's GraphQL `extensions.code` for each code of the error family. */
const GRAPHQL_CODE: Record<ErrorCode, string> = {
  invalid: "BAD_REQUEST",
  unauthenticated: "UNAUTHENTICATED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
  too_large: "BAD_REQUEST",
  unsupported: "BAD_REQUEST",
  unprocessable: "BAD_REQUEST",
  rate_limited: "RATE_LIMITED",
  internal: "INTERNAL_SERVER_ERROR",
  bad_gateway: "SERVICE_UNAVAILABLE",
  unavailable: "SERVICE_UNAVAILABLE",
};

/**
 * The family's one error renderer: GraphQL's shape, never a stack. Refusals at the door come here
 * too (GitLab answers a bad token with 401, never as anonymous).
 */
export function renderGraphqlError(err: Error, c: Context): Response {
  if (err instanceof ThrottledError) {
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json(graphqlError("Too many failed authentication attempts. Retry later.", { code: "RATE_LIMITED" }), 429);
  }
  if (isDpopError(err)) {
    // RFC 9449 §7.1, §9: the DPoP challenge (and the nonce to use).
    for (const [k, v] of Object.entries(dpopRefusalHeaders(err))) c.header(k, v);
    return c.json(graphqlError(err.dpop.description, { code: "UNAUTHENTICATED", reason: err.dpop.error }), 401);
  }
  if (err instanceof AuthError) {
    c.header("WWW-Authenticate", bearerChallenge(c, { error: "invalid_token" }));
    return c.json(graphqlError("Invalid token", { code: "UNAUTHENTICATED", reason: err.reason }), 401);
  }
  if (err instanceof ScopeError) {
    const scope = err.accepted.join(" ");
    c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope }));
    const message = err.accepted.includes("sudo")
      ? "Insufficient scope: Sudo needs a token with the sudo scope"
      : `Insufficient scope: GraphQL needs a token with one of the scopes ${err.accepted.join(", ")}`;
    return c.json(graphqlError(message, { code: "INSUFFICIENT_SCOPE", scope }), 403);
  }
  if (err instanceof AppError && err.code !== "internal") {
    // GitLab's REST wording for the same refusal (Sudo's "403 Forbidden - Must be admin to use sudo").
    const message = err.code === "invalid" ? err.message : gitlabMessage(err);
    return c.json(graphqlError(message, { code: GRAPHQL_CODE[err.code] }), ERROR_STATUS[err.code]);
  }
  logUnexpectedError("graphql", err, c);
  return c.json(graphqlError("Internal server error"), 500);
}
routes.onError(renderGraphqlError);

/** GraphQL's door: the REST places and kinds, Sudo, read_api or api; no token is the anonymous caller. */
const GRAPHQL_DOOR = {
  sources: API_TOKEN_SOURCES,
  accepts: ["personal_access_token", "oauth"],
  anonymous: true,
  failures: { bucket: "failed_bearer" },
  sudo: true,
  scopes: GRAPHQL_SCOPES,
} as const satisfies Door;

routes.use("/", frontDoor(GRAPHQL_DOOR));

routes.on(["GET", "POST", "OPTIONS"], "/", async (c) => {
  const caller = c.get("caller");
  const principal: Principal | null = caller.kind === "user" ? caller.principal : null;
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
    clientAddress: clientAddress(c.req.raw, c.env),
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
