import { describe, expect, it } from "vitest";
import { call, json, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { pkceTokens } from "../oauth/helpers";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

function expectNoStore(res: Response) {
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

describe("responses carrying a new secret are not stored; API responses carry nosniff", () => {
  it("application creation and renew-secret (GitLab applications API): Cache-Control: no-store", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const created = await call("/api/v4/applications", { ...json({ name: unique("app"), redirect_uri: "https://client.example/cb", scopes: "api" }), token });
    expect(created.status).toBe(201);
    expectNoStore(created);
    const { id } = (await created.json()) as { id: number };
    const renewed = await call(`/api/v4/applications/${id}/renew-secret`, { method: "POST", token });
    expect(renewed.status).toBe(201);
    expectNoStore(renewed);
  });

  it("personal access token creation: Cache-Control: no-store", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const res = await call(`/api/v4/users/${user.id}/personal_access_tokens`, { ...json({ name: "t", scopes: ["api"], expires_at: day(30) }), token });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { token: string }).token).toMatch(/^glpat-/);
    expectNoStore(res);
  });

  it("token responses (RFC 6749 §5.1): no-store and nosniff", async () => {
    const { app, tokens } = await pkceTokens();
    const res = await call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: app.uid }) });
    expect(res.status).toBe(200);
    expectNoStore(res);
  });

  it("API reads get GitLab's revalidation header and nosniff; errors and unknown paths carry nosniff too", async () => {
    const { token } = await makeUserWithToken();
    const me = await call("/api/v4/user", { token });
    expect(me.headers.get("cache-control")).toBe("max-age=0, private, must-revalidate");
    expect(me.headers.get("x-content-type-options")).toBe("nosniff");
    for (const path of ["/api/v4/user", "/api/v4/no-such-thing", "/api/graphql", "/oauth/token/info", "/-/health", "/a/b.git/info/refs?service=git-upload-pack"]) {
      expect((await call(path)).headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });
});
