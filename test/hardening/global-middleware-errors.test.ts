import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, it } from "vitest";
import app from "../../src/app";
import type { Bindings } from "../../src/env";
import { expect500 } from "../helpers/family-500";

/**
 * DESIGN convention 2 and issue 12 (top-level error renderer): an exception thrown by global
 * middleware, before any family's sub-app runs, is still rendered in the shape of the family the
 * path belongs to, never as Hono's bare text 500 and never with a stack. The exception is real:
 * this env copy has no D1 binding and a root password to seed, so the first start (global
 * middleware) counts users on the missing binding and throws a TypeError.
 */
async function fetchWithoutDb(path: string, init: RequestInit = {}) {
  const broken: Partial<Bindings> = { ...env };
  delete broken.DB;
  (broken as Record<string, unknown>).ROOT_PASSWORD = "correct-horse-battery-staple-7";
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, init), broken as Bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("a failure in the first start renders the family's 500", () => {
  it("REST: GitLab's JSON message", async () => {
    const res = await fetchWithoutDb("/api/v4/projects");
    await expect500.rest(res);
  });
  it("OAuth token endpoint: server_error JSON", async () => {
    const res = await fetchWithoutDb("/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=password&username=root&password=x",
    });
    await expect500.oauth(res);
  });
  it("OAuth authorize: an HTML error page", async () => {
    const res = await fetchWithoutDb("/oauth/authorize?client_id=abc&redirect_uri=http://127.0.0.1/cb&response_type=code");
    await expect500.page(res);
  });
  it("GraphQL: an errors array", async () => {
    const res = await fetchWithoutDb("/api/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ currentUser { id } }" }),
    });
    await expect500.graphql(res);
  });
  it("Plugin RPC: a Connect internal error", async () => {
    const res = await fetchWithoutDb("/proto.Plugin/Call", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    await expect500.connect(res);
  });
  it("container registry: OCI errors JSON", async () => {
    const res = await fetchWithoutDb("/v2/");
    await expect500.registry(res);
  });
  it("git: plain text", async () => {
    const res = await fetchWithoutDb("/demo/demo-app.git/info/refs?service=git-upload-pack");
    await expect500.git(res);
  });
  it("pages: an HTML page", async () => {
    const res = await fetchWithoutDb("/users/sign_in");
    await expect500.page(res);
  });
});
