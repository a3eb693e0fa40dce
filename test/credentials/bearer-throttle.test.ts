import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { getConfig, withVars } from "../../src/config";
import { checkAllowed, throttleKey } from "../../src/throttle";
import { makeUserWithToken } from "../helpers/fixtures";

/**
 * Issue 8 item 3, docs/security.md (Throttle): failed bearer tokens are counted per client address
 * in a bucket of their own ("failed_bearer"); the failure that reaches the limit answers 429 in the
 * family's shape with Retry-After and RateLimit-*. A small limit here keeps the tests short.
 */
const LIMIT = 3;
const throttledEnv = withVars(env, { THROTTLE_FAILED_BEARER_LIMIT: String(LIMIT), THROTTLE_FAILED_BEARER_WINDOW_SECONDS: "60", THROTTLE_FAILED_BEARER_BAN_SECONDS: "120" });

async function from(ip: string, path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", ip);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), throttledEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function expectRateLimitHeaders(res: Response) {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(res.headers.get("ratelimit-limit")).toBe(String(LIMIT));
  for (const h of ["ratelimit-observed", "ratelimit-remaining", "ratelimit-reset", "ratelimit-resettime"]) expect(res.headers.get(h)).not.toBeNull();
}

const BAD_PAT = "glpat-" + "x".repeat(40);

describe("throttle of failed bearer tokens per client address (docs/security.md Throttle)", () => {
  it("production defaults: a bucket of its own at 600 failures a minute, well above the failed_auth limit", () => {
    const t = getConfig(env).throttle;
    expect(t.failedBearer).toEqual({ limit: 600, windowSeconds: 60, banSeconds: 300 });
    expect(t.failedBearer.limit).toBeGreaterThan(t.failedAuth.limit);
  });

  it("REST: the failure that reaches the limit gets 429 with Retry-After and RateLimit-*; a valid token still passes; sign-in's bucket is untouched", async () => {
    const ip = "203.0.113.90";
    for (let i = 1; i < LIMIT; i++) expect((await from(ip, "/api/v4/user", { token: BAD_PAT })).status).toBe(401);
    const refused = await from(ip, "/api/v4/user", { token: BAD_PAT });
    expectRateLimitHeaders(refused);
    expect(await refused.json()).toEqual({ message: "429 Too Many Requests - Retry later" });
    // PRIVATE-TOKEN and ?access_token= are the same resolve path: refused too while banned.
    expect((await from(ip, "/api/v4/user", { headers: { "PRIVATE-TOKEN": BAD_PAT } })).status).toBe(429);
    expect((await from(ip, `/api/v4/user?access_token=${BAD_PAT}`)).status).toBe(429);
    const { token } = await makeUserWithToken();
    expect((await from(ip, "/api/v4/user", { token })).status).toBe(200);
    // A client retrying with a dead token must not ban sign-in from its address.
    expect((await checkAllowed(env, "failed_auth", throttleKey(ip))).allowed).toBe(true);
    expect((await checkAllowed(throttledEnv, "failed_bearer", throttleKey(ip))).allowed).toBe(false);
    // Other addresses are unaffected.
    expect((await from("203.0.113.91", "/api/v4/user", { token: BAD_PAT })).status).toBe(401);
  });

  it("REST: a valid token never touches the throttle (no count from successes)", async () => {
    const ip = "203.0.113.92";
    const { token } = await makeUserWithToken();
    for (let i = 0; i < LIMIT + 1; i++) expect((await from(ip, "/api/v4/user", { token })).status).toBe(200);
    const status = await checkAllowed(throttledEnv, "failed_bearer", throttleKey(ip));
    expect(status).toMatchObject({ allowed: true, observed: 0 });
  });

  it("GraphQL: 429 in GraphQL's error shape", async () => {
    const ip = "203.0.113.93";
    const query = { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query: "{ currentUser { id } }" }) };
    for (let i = 1; i < LIMIT; i++) expect((await from(ip, "/api/graphql", { ...query, token: BAD_PAT })).status).toBe(401);
    const refused = await from(ip, "/api/graphql", { ...query, token: BAD_PAT });
    expectRateLimitHeaders(refused);
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: "RATE_LIMITED" } }] });
  });

  it("RFC 7592 client configuration: bad registration access tokens count too; the limit answers 429 in OAuth's shape", async () => {
    const ip = "203.0.113.171";
    const bad = `glrat-${"0".repeat(64)}`;
    for (let i = 1; i < LIMIT; i++) expect((await from(ip, "/oauth/register/some-client", { token: bad })).status).toBe(401);
    const refused = await from(ip, "/oauth/register/some-client", { token: bad });
    expectRateLimitHeaders(refused);
    expect(((await refused.json()) as { error: string }).error).toBe("too_many_requests");
  });

  it("Plugin RPC: 429 as Connect resource_exhausted", async () => {
    const ip = "203.0.113.94";
    const rpc = { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" };
    for (let i = 1; i < LIMIT; i++) {
      const res = await from(ip, "/proto.Plugin/Call", { ...rpc, token: BAD_PAT });
      expect(await res.json()).toMatchObject({ code: "unauthenticated" });
    }
    const refused = await from(ip, "/proto.Plugin/Call", { ...rpc, token: BAD_PAT });
    expectRateLimitHeaders(refused);
    expect(await refused.json()).toMatchObject({ code: "resource_exhausted" });
  });

  it("/oauth/token/info: 429 in the OAuth error shape with Cache-Control: no-store", async () => {
    const ip = "203.0.113.95";
    for (let i = 1; i < LIMIT; i++) expect((await from(ip, "/oauth/token/info", { token: "gloas-" + "y".repeat(40) })).status).toBe(401);
    const refused = await from(ip, `/oauth/token/info?access_token=nonsense`);
    expectRateLimitHeaders(refused);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toMatchObject({ error: "too_many_requests" });
  });
});
