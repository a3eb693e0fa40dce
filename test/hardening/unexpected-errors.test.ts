import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import type { Bindings } from "../../src/env";
import { makeUserWithToken } from "../helpers/fixtures";

/**
 * DESIGN convention 2 and issue 12: an unexpected exception in any family renders that family's
 * 500 shape, never a bare text 500 and never a stack. The exception is real: after the first start
 * has run, the D1 binding is taken away from this env copy, so the first database access of every
 * route throws a TypeError from deep inside the data layer.
 */
const { token } = await makeUserWithToken();
const broken: Partial<Bindings> = { ...env };

async function fetchBroken(path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, init), broken as Bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

beforeAll(async () => {
  // First start (root user, demo data) with the real binding, then lose it.
  expect((await fetchBroken("/-/health")).status).toBe(200);
  delete broken.DB;
});

const noStack = (text: string) => expect(text).not.toMatch(/\bat .*\(|TypeError|\.ts:\d+/);

describe("each family renders its own 500", () => {
  it("REST: GitLab's JSON message", async () => {
    const res = await fetchBroken("/api/v4/projects", { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ message: "500 Internal Server Error" });
    noStack(text);
  });
  it("OAuth token endpoint: server_error", async () => {
    const res = await fetchBroken("/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=password&username=root&password=x",
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: "server_error" });
    noStack(text);
  });
  it("OAuth authorize: an HTML error page", async () => {
    const res = await fetchBroken("/oauth/authorize?client_id=abc&redirect_uri=http://127.0.0.1/cb&response_type=code");
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    noStack(await res.text());
  });
  it("GraphQL: an errors array", async () => {
    const res = await fetchBroken("/api/graphql", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ currentUser { id } }" }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(Array.isArray(JSON.parse(text).errors)).toBe(true);
    noStack(text);
  });
  it("Plugin RPC: a Connect internal error", async () => {
    const res = await fetchBroken("/proto.Plugin/Call", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ Header: { UUID: crypto.randomUUID(), Timestamp: String(Date.now()), Func: "ping" } }),
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ code: "internal" });
    noStack(text);
  });
  it("git: plain text", async () => {
    const res = await fetchBroken("/demo/demo-app.git/info/refs?service=git-upload-pack", { headers: { Authorization: `Basic ${btoa(`oauth2:${token}`)}` } });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    noStack(await res.text());
  });
  it("pages: an HTML page", async () => {
    const res = await fetchBroken("/profile/applications", { headers: { Cookie: "_edge_auth_session=anything" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    noStack(await res.text());
  });
});
