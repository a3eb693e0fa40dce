import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { call, makeUserWithToken } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";

describe("GitLab probe endpoints (GET /api/v4/version and /api/v4/metadata)", () => {
  it.each(["/api/v4/version", "/api/v4/metadata"])("%s answers GitLab's shape with the configured service version", async (path) => {
    const { token } = await makeUserWithToken({ scopes: ["read_user"] });
    const res = await call(path, { token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      version: `${env.SERVICE_VERSION ?? "16.0"}.0`,
      revision: pkg.version,
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: false,
    });
  });

  it("the version follows SERVICE_VERSION (14.10 → 14.10.0)", async () => {
    const { token } = await makeUserWithToken({ scopes: ["read_api"] });
    const res = await callAt("14.10", "/api/v4/version", { token });
    expect(((await res.json()) as { version: string }).version).toBe("14.10.0");
  });

  it("needs authentication as GitLab does: no token → 401", async () => {
    const res = await call("/api/v4/version");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "401 Unauthorized" });
  });
});

describe("not-found answers, in each family's format", () => {
  it("an unknown page answers an HTML 404 page for people, in the pages' layout", async () => {
    // Not shaped like /<namespace>/<project>: a visitor to such a path is sent to sign in first, as GitLab does.
    const res = await call("/-/no/such/page");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("<h1>Page not found</h1>");
    expect(html).toContain('href="/users/sign_in"');
  });

  it("an unknown /api/v4 path answers GitLab's JSON, never the page", async () => {
    const res = await call("/api/v4/no-such-resource");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "404 Not Found" });
  });
});
