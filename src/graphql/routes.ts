import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AuthError, ScopeError } from "../credentials/errors";
import { bearerChallenge } from "../oauth/protected-resource";
import { SudoError } from "../credentials/sudo";
import { API_TOKEN_SOURCES } from "../credentials/extract";
import { frontDoor, type Door } from "../credentials/front-door";
import type { Principal } from "../credentials/principal";
import { ThrottledError, rateLimitHeaders } from "../throttle";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import type { AppEnv } from "../env";
import { combinedDeprecationHeaders, isDeprecated } from "../versioning/gate";
import type { GqlContext } from "./context";
import { malformedJsonParam } from "./request-params";
import { serverFor } from "./server";
import { MalformedPathError } from "../http/path-decoding";
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
  if (err instanceof MalformedPathError) return c.json(graphqlError("The path holds a malformed percent-encoding", { code: "BAD_REQUEST" }), 400);
  logUnexpectedError("graphql", err, c);
  return c.json(graphqlError("Internal server error"), 500);
}
routes.onError(renderGraphqlError);

/** A credential refusal in GraphQL's shape (GitLab answers a bad token with 401, never as anonymous). */
function refuseInGraphqlShape(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ThrottledError) {
    for (const [k, v] of Object.entries(rateLimitHeaders(err.status))) c.header(k, v);
    return c.json(graphqlError("Too many failed authentication attempts. Retry later.", { code: "RATE_LIMITED" }), 429);
  }
  if (err instanceof AuthError) {
    c.header("WWW-Authenticate", bearerChallenge(c, { error: "invalid_token" }));
    return c.json(graphqlError("Invalid token", { code: "UNAUTHENTICATED", reason: err.reason }), 401);
  }
  if (err instanceof ScopeError && err.accepted.includes("sudo")) {
    c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope: "sudo" }));
    return c.json(graphqlError("Insufficient scope: Sudo needs a token with the sudo scope", { code: "INSUFFICIENT_SCOPE", scope: "sudo" }), 403);
  }
  if (err instanceof SudoError) {
    return err.reason === "not_admin"
      ? c.json(graphqlError("403 Forbidden - Must be admin to use sudo", { code: "FORBIDDEN" }), 403)
      : c.json(graphqlError(`404 User with ID or username '${err.identifier}' Not Found`, { code: "NOT_FOUND" }), 404);
  }
  c.header("WWW-Authenticate", bearerChallenge(c, { error: "insufficient_scope", scope: GRAPHQL_SCOPES.join(" ") }));
  return c.json(graphqlError(`Insufficient scope: GraphQL needs a token with one of the scopes ${GRAPHQL_SCOPES.join(", ")}`, { code: "INSUFFICIENT_SCOPE", scope: GRAPHQL_SCOPES.join(" ") }), 403);
}

/** GraphQL's door: the REST places and kinds, Sudo, read_api or api; no token is the anonymous caller. */
const GRAPHQL_DOOR = {
  sources: API_TOKEN_SOURCES,
  accepts: ["personal_access_token", "oauth"],
  anonymous: true,
  failures: { bucket: "failed_bearer" },
  sudo: true,
  scopes: GRAPHQL_SCOPES,
  refuse: refuseInGraphqlShape,
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
