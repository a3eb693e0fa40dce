import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";
import { Browser, signedInUser } from "../helpers/browser";
import { call, makeUser, makeUserWithToken, TEST_PASSWORD, unique } from "../helpers/fixtures";

/**
 * DESIGN, OAuth: access tokens live "2 h default, a per-application setting". The setting is
 * access_token_expires_in (seconds) on the applications API and on /profile/applications; a new
 * application without one takes ACCESS_TOKEN_TTL_SECONDS (README), and its own value wins after.
 */
const admin = await makeUserWithToken({ isAdmin: true });

/** The Worker under other configuration variables (the same D1, DOs and R2). */
function callWith(vars: Record<string, string>) {
  const bound: Bindings = withVars(env, vars);
  return async (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), bound, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

const newApp = (extra: Record<string, unknown> = {}) => ({ name: unique("app"), redirect_uri: "https://client.example/cb", scopes: "api", ...extra });

async function createViaApi(fetcher: typeof call, extra: Record<string, unknown> = {}) {
  const res = await fetcher("/api/v4/applications", {
    method: "POST",
    body: JSON.stringify(newApp(extra)),
    headers: { "Content-Type": "application/json" },
    token: admin.token,
  });
  return res;
}

/** expires_in of a password-grant token issued to the application. */
async function issuedLifetime(fetcher: typeof call, client: { application_id: string; secret: string }): Promise<number | undefined> {
  const user = await makeUser();
  const form = new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD, client_id: client.application_id, client_secret: client.secret, scope: "api" });
  const res = await fetcher("/oauth/token", { method: "POST", body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { expires_in?: number }).expires_in;
}

describe("token lifetime per application: the applications API (access_token_expires_in)", () => {
  it("an application created with access_token_expires_in=600 issues tokens with expires_in 600", async () => {
    const res = await createViaApi(call, { access_token_expires_in: 600 });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { application_id: string; secret: string; access_token_expires_in: number; id: number };
    expect(created.access_token_expires_in).toBe(600);
    expect(await issuedLifetime(call, created)).toBe(600);
    const listed = (await (await call("/api/v4/applications", { token: admin.token })).json()) as { id: number; access_token_expires_in: number }[];
    expect(listed.find((a) => a.id === created.id)!.access_token_expires_in).toBe(600);
  });

  it("without the field, a new application takes ACCESS_TOKEN_TTL_SECONDS; its own setting wins when the variable changes later", async () => {
    const at900 = callWith({ ACCESS_TOKEN_TTL_SECONDS: "900" });
    const created = (await (await createViaApi(at900)).json()) as { application_id: string; secret: string; access_token_expires_in: number };
    expect(created.access_token_expires_in).toBe(900);
    expect(await issuedLifetime(at900, created)).toBe(900);
    // The variable changed (back to the default 7200): the application keeps its 900 seconds.
    expect(await issuedLifetime(callWith({ ACCESS_TOKEN_TTL_SECONDS: "7200" }), created)).toBe(900);
    const explicit = (await (await createViaApi(at900, { access_token_expires_in: "300" })).json()) as { application_id: string; secret: string };
    expect(await issuedLifetime(at900, explicit)).toBe(300);
  });

  it.each([
    [30, "must be between 60 and 86400 seconds"],
    [86401, "must be between 60 and 86400 seconds"],
    ["two hours", "must be a whole number of seconds"],
    [1.5, "must be a whole number of seconds"],
  ])("refuses access_token_expires_in=%s with 400 naming the field", async (value, message) => {
    const res = await createViaApi(call, { access_token_expires_in: value });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: { access_token_expires_in: [message] } });
  });
});

describe("token lifetime per application: /profile/applications", () => {
  async function register(b: Browser, fields: Record<string, string>) {
    await b.get("/profile/applications");
    return b.post("/profile/applications", { name: unique("app"), redirect_uri: "https://app.example/cb", scopes: "api", confidential: "1", expire_access_tokens: "1", ...fields });
  }
  const row = (uid: string) => env.DB.prepare("SELECT id, access_token_ttl_seconds AS ttl FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number; ttl: number }>();
  const uidOf = (html: string) => /<code id="application_id">([^<]+)<\/code>/.exec(html)![1];

  it("the form offers the lifetime with the instance default; a value given is stored, shown, and changed on edit", async () => {
    const { browser: b } = await signedInUser();
    const page = await (await b.get("/profile/applications")).text();
    expect(page).toContain('<label for="application_access_token_expires_in">Access token lifetime (seconds)</label>');
    expect(page).toContain("Leave empty for the instance default (7200 seconds).");
    const res = await register(b, { access_token_expires_in: "1200" });
    expect(res.status).toBe(201);
    const html = await res.text();
    expect(html).toContain("1200 seconds");
    const stored = await row(uidOf(html));
    expect(stored!.ttl).toBe(1200);
    const edit = await (await b.get(`/profile/applications/${stored!.id}/edit`)).text();
    expect(edit).toMatch(/name="access_token_expires_in"[^>]*value="1200"/);
    const saved = await b.post(`/profile/applications/${stored!.id}`, { name: unique("app"), redirect_uri: "https://app.example/cb", scopes: "api", expire_access_tokens: "1", access_token_expires_in: "300" });
    expect(saved.status).toBe(303);
    expect((await row(uidOf(html)))!.ttl).toBe(300);
  });

  it("an empty field takes the configured default; a value out of range is refused with 422 and the field's error", async () => {
    const { browser: b } = await signedInUser();
    const plain = await register(b, { access_token_expires_in: "" });
    expect((await row(uidOf(await plain.text())))!.ttl).toBe(7200);
    const bad = await register(b, { access_token_expires_in: "5" });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Access token lifetime must be between 60 and 86400 seconds");
  });
});
