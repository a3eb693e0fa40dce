import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { checkAllowed, throttleKey } from "../../src/throttle";
import { makeUserWithToken } from "../helpers/fixtures";
import { makeProject } from "../helpers/resources";
import { makeApp } from "../oauth/helpers";

/**
 * docs/security.md (Throttle), DESIGN.md "One front door": every door that takes a credential
 * counts its failures per client address: tokens sent as tokens in failed_bearer (userinfo, the
 * package registry by Bearer, PRIVATE-TOKEN, DEPLOY-TOKEN and Basic), logins and client secrets in
 * failed_auth (the registry's token service, /oauth/authorize_device). Small limits keep it short.
 */
const LIMIT = 3;
const small = withVars(env, {
  THROTTLE_FAILED_BEARER_LIMIT: String(LIMIT),
  THROTTLE_FAILED_BEARER_WINDOW_SECONDS: "60",
  THROTTLE_FAILED_BEARER_BAN_SECONDS: "120",
  THROTTLE_FAILED_AUTH_LIMIT: String(LIMIT),
  THROTTLE_FAILED_AUTH_WINDOW_SECONDS: "60",
  THROTTLE_FAILED_AUTH_BAN_SECONDS: "120",
});

async function from(ip: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", ip);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), small, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;
const BAD_PAT = "glpat-" + "y".repeat(40);
const BAD_DEPLOY = "gldt-" + "y".repeat(40);

/** LIMIT - 1 failures are refused as the family refuses them; the one that reaches the limit is 429. */
async function expectBanAtLimit(send: () => Promise<Response>, refusedStatus: number): Promise<Response> {
  for (let i = 1; i < LIMIT; i++) expect((await send()).status).toBe(refusedStatus);
  const banned = await send();
  expect(banned.status).toBe(429);
  expect(Number(banned.headers.get("retry-after"))).toBeGreaterThan(0);
  return banned;
}

describe("every door counts its failed credentials (docs/security.md, Throttle)", () => {
  it("userinfo (OIDC Core §5.3): failed bearer tokens count in failed_bearer; the ban answers in OAuth's shape", async () => {
    const ip = "203.0.113.120";
    const banned = await expectBanAtLimit(() => from(ip, "/oauth/userinfo", { headers: { Authorization: "Bearer gloat-not-a-real-token" } }), 401);
    expect(((await banned.json()) as { error: string }).error).toBeTypeOf("string");
    expect((await checkAllowed(small, "failed_bearer", throttleKey(ip))).allowed).toBe(false);
    // The form-body place (RFC 6750 §2.2) is the same door: refused while banned.
    const viaForm = await from(ip, "/oauth/userinfo", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "access_token=gloat-x" });
    expect(viaForm.status).toBe(429);
  });

  it.each([
    ["Bearer", { Authorization: "Bearer gloat-1.2.not-a-live-token" }, "203.0.113.121"],
    ["PRIVATE-TOKEN", { "PRIVATE-TOKEN": "not-a-token-of-any-kind" }, "203.0.113.122"],
    ["DEPLOY-TOKEN", { "DEPLOY-TOKEN": BAD_DEPLOY }, "203.0.113.123"],
    ["Basic with a deploy token", { Authorization: basic("deployer", BAD_DEPLOY) }, "203.0.113.124"],
    ["Basic with a personal access token", { Authorization: basic("someone", BAD_PAT) }, "203.0.113.125"],
  ])("the package registry: failed %s credentials count in failed_bearer and end in 429", async (_place, headers, ip) => {
    const { user } = await makeUserWithToken();
    const project = await makeProject(user.id);
    const path = `/api/v4/projects/${project.id}/packages/generic/tool/1.0.0/tool.bin`;
    const banned = await expectBanAtLimit(() => from(ip, path, { headers }), 401);
    expect(await banned.json()).toEqual({ message: "429 Too Many Requests - Retry later" });
    expect((await checkAllowed(small, "failed_bearer", throttleKey(ip))).allowed).toBe(false);
  });

  it("the registry's token service (/jwt/auth): failed Basic logins count in failed_auth, then 429 TOOMANYREQUESTS; a valid token keeps working", async () => {
    const ip = "203.0.113.126";
    const send = () => from(ip, "/jwt/auth?service=container_registry", { headers: { Authorization: basic("someone", BAD_PAT) } });
    for (let i = 0; i < LIMIT; i++) expect((await send()).status).toBe(401);
    const banned = await send();
    expect(banned.status).toBe(429);
    expect(((await banned.json()) as { errors: { code: string }[] }).errors[0].code).toBe("TOOMANYREQUESTS");
    expect((await checkAllowed(small, "failed_auth", throttleKey(ip))).allowed).toBe(false);
    // Tokens carry 256 bits: a valid one is never checked against the ban (DESIGN, Hardening).
    const { user, token } = await makeUserWithToken({ scopes: ["read_registry"] });
    expect((await from(ip, "/jwt/auth?service=container_registry", { headers: { Authorization: basic(user.username, token) } })).status).toBe(200);
  });

  it("/oauth/authorize_device: wrong client secrets count in failed_auth like /oauth/token's, then 429", async () => {
    const ip = "203.0.113.128";
    const { app: client } = await makeApp({ confidential: true, scopes: ["api"] });
    const send = () =>
      from(ip, "/oauth/authorize_device", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: client.uid, client_secret: "gloas-wrong-secret", scope: "api" }),
      });
    for (let i = 0; i < LIMIT; i++) expect((await send()).status).toBe(401);
    expect((await send()).status).toBe(429);
    expect((await checkAllowed(small, "failed_auth", throttleKey(ip))).allowed).toBe(false);
  });
});
