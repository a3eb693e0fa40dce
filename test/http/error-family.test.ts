import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { renderUnhandledError } from "../../src/app-errors";
import { AuthError, ScopeError } from "../../src/credentials/errors";
import { AppError } from "../../src/domain/errors";
import { ThrottledError } from "../../src/throttle";
import { FAMILY_TABLE, familyOf } from "../../src/http/families";
import { ResCode } from "../../src/plugin/codes";

/**
 * DESIGN.md, Conventions 1 and 2: one error family, which each API family's renderer maps to its
 * wire format. The same error is thrown on a path of each family (the path-to-family table picks
 * the renderer, as app.onError does) and must come back in that family's shape with the status its
 * neutral code has.
 */
function appThrowing(err: Error) {
  const app = new Hono();
  app.all("*", () => {
    throw err;
  });
  app.onError(renderUnhandledError);
  return app;
}

async function fetchThrowing(err: Error, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await appThrowing(err).fetch(new Request(`http://localhost${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const PATHS = {
  rest: "/api/v4/projects",
  graphql: "/api/graphql",
  oauth: "/oauth/token",
  authorize: "/oauth/authorize",
  registry: "/v2/group/image/manifests/latest",
  plugin: "/proto.Plugin/Call",
  git: "/group/project.git/info/refs",
  pages: "/profile",
} as const;

it("the paths below cover every family of the table", () => {
  expect(new Set(Object.keys(PATHS))).toEqual(new Set(FAMILY_TABLE.map((r) => r.family)));
  for (const [family, path] of Object.entries(PATHS)) expect(familyOf(path), path).toBe(family);
});

describe("one error family: a not_found AppError in each family's format (404)", () => {
  const err = () => new AppError("not_found", "Widget Not Found");
  const cases: [keyof typeof PATHS, (res: Response) => Promise<void>][] = [
    ["rest", async (res) => expect(await res.json()).toEqual({ message: "404 Widget Not Found" })],
    ["graphql", async (res) => expect(await res.json()).toEqual({ errors: [{ message: "404 Widget Not Found", extensions: { code: "NOT_FOUND" } }] })],
    ["oauth", async (res) => expect(await res.json()).toEqual({ error: "invalid_request", error_description: "Widget Not Found" })],
    ["registry", async (res) => expect(await res.json()).toEqual({ errors: [{ code: "NAME_UNKNOWN", message: "Widget Not Found", detail: null }] })],
    ["plugin", async (res) => expect(await res.json()).toEqual({ code: "not_found", message: "Widget Not Found" })],
    ["git", async (res) => expect(await res.text()).toBe("Widget Not Found\n")],
    ["authorize", async (res) => expect(await res.text()).toContain("Widget Not Found")],
    ["pages", async (res) => expect(await res.text()).toContain("Widget Not Found")],
  ];
  it.each(cases)("%s", async (family, check) => {
    const res = await fetchThrowing(err(), PATHS[family]);
    expect(res.status).toBe(404);
    await check(res);
  });
});

describe("one error family: a parameter AppError names the parameter where the format has a place for it (400)", () => {
  const err = () => new AppError("invalid", "does not have a valid value", { param: "status" });
  it("REST: GitLab's {\"error\":\"<param> <why>\"}", async () => {
    const res = await fetchThrowing(err(), PATHS.rest);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "status does not have a valid value" });
  });
  it("OAuth: invalid_request", async () => {
    const res = await fetchThrowing(err(), PATHS.oauth);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_request");
  });
  it("Plugin RPC: invalid_argument", async () => {
    const res = await fetchThrowing(err(), PATHS.plugin);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("invalid_argument");
  });
  it("Plugin RPC's Res.Code for the same error is INVALID_ARGUMENT", async () => {
    const { resCodeOf } = await import("../../src/plugin/codes");
    expect(resCodeOf(err())).toBe(ResCode.INVALID_ARGUMENT);
  });
});

describe("one error family: a refused token (AuthError) in each family's format (401)", () => {
  const cases: [keyof typeof PATHS, (res: Response) => Promise<void>][] = [
    ["rest", async (res) => expect(await res.json()).toEqual({ message: "401 Unauthorized" })],
    ["graphql", async (res) => expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe("UNAUTHENTICATED")],
    ["oauth", async (res) => expect(((await res.json()) as { error: string }).error).toBe("invalid_token")],
    ["registry", async (res) => expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe("UNAUTHORIZED")],
    ["plugin", async (res) => expect(((await res.json()) as { code: string }).code).toBe("unauthenticated")],
    ["git", async (res) => expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="GitLab"')],
  ];
  it.each(cases)("%s", async (family, check) => {
    const res = await fetchThrowing(new AuthError("invalid"), PATHS[family]);
    expect(res.status).toBe(401);
    await check(res);
  });
});

describe("one error family: too few scopes (ScopeError) is 403 in the token families' formats", () => {
  it.each([
    ["rest", "insufficient_scope"],
    ["oauth", "insufficient_scope"],
  ] as const)("%s: %s", async (family, error) => {
    const res = await fetchThrowing(new ScopeError(["api"]), PATHS[family]);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe(error);
  });
  it("graphql: INSUFFICIENT_SCOPE naming the scopes", async () => {
    const res = await fetchThrowing(new ScopeError(["api", "read_api"]), PATHS.graphql);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: "INSUFFICIENT_SCOPE", scope: "api read_api" } }] });
  });
});

describe("one error family: the throttle (ThrottledError) is 429 with Retry-After in every family", () => {
  const throttled = () => new ThrottledError({ allowed: false, limit: 10, observed: 10, remaining: 0, resetSeconds: 60, retryAfterSeconds: 60 });
  it.each(Object.keys(PATHS) as (keyof typeof PATHS)[])("%s", async (family) => {
    const res = await fetchThrowing(throttled(), PATHS[family]);
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
  });
});

describe("one error family: an unexpected exception is the family's 500 and never leaks its message", () => {
  it.each(Object.keys(PATHS) as (keyof typeof PATHS)[])("%s", async (family) => {
    const res = await fetchThrowing(new TypeError("secret-bearing detail glpat-abcdefabcdefabcdef"), PATHS[family]);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("secret-bearing");
  });
});
