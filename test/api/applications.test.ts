import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, makeUser, makeUserWithToken, TEST_PASSWORD, unique } from "../helpers/fixtures";

async function admin() {
  return makeUserWithToken({ isAdmin: true });
}

function newApp(overrides: Record<string, unknown> = {}) {
  return { name: unique("app"), redirect_uri: "https://client.example/callback\nhttp://127.0.0.1/cb", scopes: "api read_user", ...overrides };
}

async function create(token: string, overrides: Record<string, unknown> = {}) {
  const res = await call("/api/v4/applications", { ...json(newApp(overrides)), token });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; application_id: string; application_name: string; secret: string; callback_url: string; confidential: boolean };
}

describe("POST /api/v4/applications: GitLab's applications API", () => {
  it("creates an application: 201 with id, application_id, application_name, secret, callback_url, confidential (default true)", async () => {
    const { token } = await admin();
    const input = newApp();
    const res = await call("/api/v4/applications", { ...json(input), token });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token_expires_in", "application_id", "application_name", "callback_url", "confidential", "dpop_bound_access_tokens", "id", "require_pushed_authorization_requests", "secret"]);
    expect(body).toMatchObject({ application_name: input.name, callback_url: input.redirect_uri, confidential: true });
    expect(body.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
  });

  it("stores only the SHA-256 of the secret and audits application_created", async () => {
    const { token } = await admin();
    const app = await create(token);
    const row = await env.DB.prepare("SELECT secret_hash FROM oauth_applications WHERE id = ?").bind(app.id).first<{ secret_hash: string }>();
    expect(row!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.secret_hash).not.toContain(app.secret);
    const audit = await env.DB.prepare("SELECT details FROM audit_events WHERE action = 'application_created' AND entity_id = ?").bind(String(app.id)).first<{ details: string }>();
    expect(audit).not.toBeNull();
    expect(audit!.details).not.toContain(app.secret);
  });

  it("accepts a form body and confidential=false for public (PKCE) clients", async () => {
    const { token } = await admin();
    const res = await call("/api/v4/applications", {
      method: "POST",
      token,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: unique("spa"), redirect_uri: "https://spa.example/", scopes: "read_user", confidential: "false" }),
    });
    expect(res.status).toBe(201);
    expect((await res.json()) as Record<string, any>).toMatchObject({ confidential: false });
  });

  it("answers bad input with 400 and Doorkeeper's messages, never a 500", async () => {
    const { token } = await admin();
    const cases: [Record<string, unknown>, unknown][] = [
      [{ ...newApp(), scopes: "api nonsense" }, { message: { scopes: ["doesn't match configured on the server."] } }],
      [{ ...newApp(), redirect_uri: "not a uri" }, { message: { redirect_uri: ["must be an absolute URI."] } }],
      [{ ...newApp(), redirect_uri: "http://client.example/cb" }, { message: { redirect_uri: ["must be an HTTPS/SSL URI."] } }],
      [{ ...newApp(), redirect_uri: "https://client.example/cb#frag" }, { message: { redirect_uri: ["cannot contain a fragment."] } }],
      [{ ...newApp(), name: "   " }, { message: { name: ["can't be blank"] } }],
      [{ ...newApp(), name: undefined }, { error: "name is missing" }],
      [{ ...newApp(), confidential: "perhaps" }, { error: "confidential is invalid" }],
    ];
    for (const [body, expected] of cases) {
      const res = await call("/api/v4/applications", { ...json(body), token });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()) as Record<string, any>).toEqual(expected);
    }
  });

  it("is for administrators with the api scope only", async () => {
    const user = await makeUserWithToken();
    expect((await call("/api/v4/applications", { ...json(newApp()), token: user.token })).status).toBe(403);
    expect((await call("/api/v4/applications", { token: user.token })).status).toBe(403);
    expect((await call("/api/v4/applications", json(newApp()))).status).toBe(401);
  });
});

describe("GET, DELETE and renew-secret of /api/v4/applications (GitLab's applications API)", () => {
  it("lists instance-wide applications without their secrets", async () => {
    const { token } = await admin();
    const app = await create(token);
    const res = await call("/api/v4/applications", { token });
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, unknown>[];
    const mine = list.find((a) => a.id === app.id)!;
    expect(mine).toEqual({ id: app.id, application_id: app.application_id, application_name: app.application_name, callback_url: app.callback_url, confidential: true, dpop_bound_access_tokens: false, require_pushed_authorization_requests: false, access_token_expires_in: 7200 });
    expect(JSON.stringify(list)).not.toContain("gloas-");
  });

  it("paginates as GitLab does: page and per_page, newest first, X-Page, X-Per-Page, X-Next-Page, X-Total and Link rel=next", async () => {
    const { token } = await admin();
    const [, second, third] = [await create(token), await create(token), await create(token)];
    const first = await call("/api/v4/applications?per_page=2", { token });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { id: number }[]).map((a) => a.id)).toEqual([third.id, second.id]);
    expect(first.headers.get("X-Page")).toBe("1");
    expect(first.headers.get("X-Per-Page")).toBe("2");
    expect(first.headers.get("X-Next-Page")).toBe("2");
    expect(Number(first.headers.get("X-Total"))).toBeGreaterThanOrEqual(3);
    expect(first.headers.get("Link")).toMatch(/<http:\/\/localhost\/api\/v4\/applications\?per_page=2&page=2>; rel="next"/);
    const next = await call("/api/v4/applications?per_page=1&page=2", { token });
    expect(((await next.json()) as { id: number }[]).map((a) => a.id)).toEqual([second.id]);
    expect(next.headers.get("X-Prev-Page")).toBe("1");
    expect((await call("/api/v4/applications?per_page=abc", { token })).status).toBe(400);
  });

  it("renews the secret: the new one is returned once and the old one stops working", async () => {
    const { token } = await admin();
    const app = await create(token);
    const res = await call(`/api/v4/applications/${app.id}/renew-secret`, { method: "POST", token });
    expect(res.status).toBe(201);
    const renewed = (await res.json()) as { secret: string; application_id: string };
    expect(renewed.secret).not.toBe(app.secret);
    expect(renewed.application_id).toBe(app.application_id);
    const revokeWith = (secret: string) =>
      call("/oauth/revoke", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ client_id: app.application_id, client_secret: secret, token: "unknown" }) });
    expect((await revokeWith(app.secret)).status).toBe(401);
    expect((await revokeWith(renewed.secret)).status).toBe(200);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'application_secret_renewed' AND entity_id = ?").bind(String(app.id)).first<{ n: number }>();
    expect(audit!.n).toBe(1);
  });

  it("deletes an application (204), revoking every token it issued at once; then 404", async () => {
    const { token } = await admin();
    const app = await create(token);
    const user = await makeUser();
    const grant = await call("/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${app.application_id}:${app.secret}`)}` },
      body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope: "read_user" }),
    });
    expect(grant.status).toBe(200);
    const { access_token } = (await grant.json()) as { access_token: string };
    expect((await call("/api/v4/user", { token: access_token })).status).toBe(200);

    const del = await call(`/api/v4/applications/${app.id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expect((await call("/api/v4/user", { token: access_token })).status).toBe(401);
    expect((await call(`/api/v4/applications/${app.id}`, { method: "DELETE", token })).status).toBe(404);
    const audit = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'application_deleted' AND entity_id = ?").bind(String(app.id)).first<{ n: number }>();
    expect(audit!.n).toBe(1);
  });

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    const { token } = await admin();
    const missing = await call("/api/v4/applications/999999999", { method: "DELETE", token });
    expect(missing.status).toBe(404);
    expect((await missing.json()) as Record<string, any>).toEqual({ message: "404 Application Not Found" });
    expect((await call("/api/v4/applications/x/renew-secret", { method: "POST", token })).status).toBe(400);
  });
});
