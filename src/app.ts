import { Hono } from "hono";
import { cors } from "hono/cors";
import apiV4 from "./api/v4";
import type { AppEnv } from "./env";
import gitRoutes from "./git/routes";
import graphqlRoutes from "./graphql/routes";
import oauthRoutes from "./oauth/routes";
import oauthWellKnown from "./oauth/well-known";
import deviceVerificationPages from "./oauth/device/pages";
import endSessionPages from "./oauth/oidc/end-session";
import protectedResource from "./oauth/protected-resource";
import benchRoutes from "./bench/routes";
import pluginRoutes from "./plugin/routes";
import registryTokenRoutes from "./registry/token-routes";
import registryIssuerRoutes from "./registry/issuer";
import registryV2 from "./registry/v2-routes";
import webRoutes from "./web/routes";
import { notFoundPage } from "./web/pages/not-found";
import { ensureFirstStart } from "./setup/first-start";
import { requestLog } from "./observability/request-log";
import { apiCacheControl, nosniff, setResponseHeader } from "./http/response-headers";
import { readinessRefusal, readinessReport, refusalResponse } from "./setup/readiness";
import { refusedProblems } from "./config";
import { renderUnhandledError } from "./app-errors";
import { MOUNTS } from "./http/families";
import { rejectMalformedPath } from "./http/path-decoding";
import { ProjectPathRouter } from "./http/router";

/** Global middleware and mounts only; each family renders its own errors in its sub-app. */
// RegExpRouter over routing paths (src/http/router.ts): no route pattern may carry a regex.
const app = new Hono<AppEnv>({ router: new ProjectPathRouter() });

// First, so every response (errors and CORS preflights included) carries X-Request-Id and is logged.
app.use(requestLog);

// Browser clients (SPAs doing PKCE) may call the token endpoints and the API cross-origin, with
// bearer tokens and never cookies; /oauth/authorize and the pages are never CORS-enabled.
const apiCors = cors({
  origin: (origin) => origin,
  allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  // DPoP (RFC 9449): browser clients send the proof and read the nonce and the challenge.
  allowHeaders: ["Authorization", "Content-Type", "PRIVATE-TOKEN", "X-Requested-With", "DPoP"],
  exposeHeaders: ["Link", "X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page", "X-Total", "X-Total-Pages", "Deprecation", "Sunset", "X-Request-Id", "DPoP-Nonce", "WWW-Authenticate"],
  maxAge: 600,
  credentials: false,
});
for (const path of ["/oauth/token", "/oauth/token/info", "/oauth/revoke", "/oauth/introspect", "/oauth/userinfo", "/oauth/register", "/oauth/par", "/api/*"]) {
  // Only browsers send Origin (and preflights): other clients skip the CORS work (bench/RESULTS.md,
  // Profile) and still get Vary: Origin, so a shared cache never serves their response to a browser.
  app.use(path, async (c, next) => {
    if (c.req.method === "OPTIONS" || c.req.header("origin") !== undefined) return apiCors(c, next);
    await next();
    setResponseHeader(c, "Vary", "Origin", { append: true });
  });
}

app.use(nosniff);
app.use("/api/*", apiCacheControl);
// The one path decoder's guard: a malformed escape is a 400 in the family's shape, before any route.
app.use(rejectMalformedPath);

// Refuse to serve, with a plain 503, rather than run on a malformed or unsafe configuration or on
// a database its migrations never reached (src/setup/readiness.ts).
app.use(async (c, next) => {
  const refusal = await readinessRefusal(c.env);
  if (refusal) return refusal;
  try {
    await ensureFirstStart(c.env);
  } catch (err) {
    const problems = refusedProblems(err);
    if (problems) return refusalResponse(problems);
    throw err;
  }
  await next();
});

// GitLab's liveness path.
app.get("/-/health", (c) => c.text("GitLab OK"));
// GitLab's readiness probe: the database and the git origin (src/setup/readiness.ts).
app.get("/-/readiness", async (c) => {
  const report = await readinessReport(c.env);
  c.header("Cache-Control", "no-store");
  return c.json(report.body, report.status);
});

app.route(MOUNTS.oauth, oauthRoutes);
app.route(MOUNTS.wellKnown, oauthWellKnown);
app.route(MOUNTS.wellKnown, protectedResource);
// Benchmark floor routes; they answer 404 unless BENCH_ROUTES is "true".
app.route("/-/bench", benchRoutes);
app.route(MOUNTS.rest, apiV4);
app.route(MOUNTS.graphql, graphqlRoutes);
// The container registry (OCI distribution API) and GitLab's token service for it.
app.route(MOUNTS.registry, registryV2);
app.route(MOUNTS.registryTokens, registryTokenRoutes);
app.route(MOUNTS.registryTokens, registryIssuerRoutes);
app.route(MOUNTS.root, pluginRoutes);
// The device flow's verification page (/oauth/device): a page behind its page door, before the others.
app.route(MOUNTS.oauth, deviceVerificationPages);
// RP-Initiated Logout's end-session endpoint and its confirmation (/oauth/logout): pages behind their doors.
app.route(MOUNTS.oauth, endSessionPages);
app.route(MOUNTS.root, webRoutes);
app.route(MOUNTS.root, gitRoutes);

// An exception in global middleware (first start, request log) still gets its family's shape.
app.onError(renderUnhandledError);

// People get a page; API clients get GitLab's JSON (the REST family owns its own not-found).
app.notFound((c) => (c.req.path.startsWith("/api/") ? c.json({ error: "404 Not Found" }, 404) : notFoundPage(c)));

export default app;
