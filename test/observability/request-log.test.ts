import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { REQUEST_ID_HEADER, requestLineText, type RequestLogLine } from "../../src/observability/request-log";
import { Browser, signedInUser } from "../helpers/browser";
import { TEST_PASSWORD, call, json, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { REDIRECT, getCode, makeApp, pkce, refresh, tokenRequest, type Tokens } from "../oauth/helpers";

/** Issue 12, "Request ids and logs"; docs/operations.md. */
let logSpy: MockInstance<typeof console.log>;
let errorSpy: MockInstance<typeof console.error>;
beforeEach(() => {
  logSpy = vi.spyOn(console, "log");
  errorSpy = vi.spyOn(console, "error");
});
afterEach(() => vi.restoreAllMocks());

/** Every line written to the console while the spies were on, as text. */
function captured(): string[] {
  return [...logSpy.mock.calls, ...errorSpy.mock.calls].map((args) => args.map((a) => (typeof a === "string" ? a : safeString(a))).join(" "));
}
function safeString(v: unknown): string {
  try {
    return v instanceof Error ? `${v.stack}` : JSON.stringify(v);
  } catch {
    return String(v);
  }
}
function requestLines(): RequestLogLine[] {
  return logSpy.mock.calls
    .map((args) => (typeof args[0] === "string" && args[0].startsWith('{"msg":"request"') ? (JSON.parse(args[0]) as RequestLogLine) : null))
    .filter((l): l is RequestLogLine => l !== null);
}

describe("X-Request-Id (DESIGN, Hardening: every response carries X-Request-Id)", () => {
  it("generates an id on every family's responses, errors included", async () => {
    const paths = ["/-/health", "/api/v4/user", "/api/v4/no/such/route", "/oauth/token/info", "/users/sign_in", "/api/graphql?query=%7B", "/nothing-here"];
    const ids = new Set<string>();
    for (const path of paths) {
      const res = await call(path);
      const id = res.headers.get(REQUEST_ID_HEADER);
      expect(id, path).toMatch(/^[0-9a-f]{32}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(paths.length);
  });

  it("keeps a well-formed incoming id and replaces a malformed one", async () => {
    const kept = await call("/-/health", { headers: { [REQUEST_ID_HEADER]: "proxy-01HZX.abc:42" } });
    expect(kept.headers.get(REQUEST_ID_HEADER)).toBe("proxy-01HZX.abc:42");
    for (const bad of ["has space", "x".repeat(200), "<script>", "-leading-dash"]) {
      const res = await call("/-/health", { headers: { [REQUEST_ID_HEADER]: bad } });
      const id = res.headers.get(REQUEST_ID_HEADER);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it("is exposed to cross-origin API clients (CORS exposeHeaders)", async () => {
    const res = await call("/api/v4/user", { headers: { Origin: "https://spa.example" } });
    expect(res.headers.get("Access-Control-Expose-Headers") ?? "").toContain("X-Request-Id");
  });
});

describe("one structured log line per request (DESIGN, Hardening)", () => {
  it("logs method, route pattern, status, duration, user id and request id", async () => {
    const { user, token } = await makeUserWithToken();
    const res = await call(`/api/v4/users/${user.id}?private=1`, { token, headers: { [REQUEST_ID_HEADER]: "trace-me-1" } });
    expect(res.status).toBe(200);
    const lines = requestLines().filter((l) => l.request_id === "trace-me-1");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", route: "/api/v4/users/:id", status: 200, user_id: user.id });
    expect(lines[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("docs/operations.md, Logs: the line assembled without JSON.stringify is the JSON JSON.stringify gives, for plain and for escaped values", () => {
    const lines: RequestLogLine[] = [
      { msg: "request", request_id: "0b5c7d", method: "GET", route: "/api/v4/projects/:id", status: 200, duration_ms: 12, user_id: 42 },
      { msg: "request", request_id: "a.b:c+d=e/f-g", method: "PATCH", route: "unmatched", status: 404, duration_ms: 0, user_id: null },
      { msg: "request", request_id: 'x"y\\z', method: "M\u0001", route: '/a/:b{"c"}', status: 500, duration_ms: 3, user_id: 1 },
    ];
    for (const line of lines) {
      const { msg: _msg, ...fields } = line;
      expect(requestLineText(fields)).toBe(JSON.stringify(line));
      expect(JSON.parse(requestLineText(fields))).toEqual(line);
    }
  });

  it("logs the signed-in user of a page and null for anonymous requests", async () => {
    const { user, browser } = await signedInUser();
    const page = await browser.fetch("/profile/personal_access_tokens", { headers: { [REQUEST_ID_HEADER]: "page-req" } });
    expect(page.status).toBe(200);
    await call("/api/v4/user", { headers: { [REQUEST_ID_HEADER]: "anon-req" } });
    const lines = requestLines();
    expect(lines.find((l) => l.request_id === "page-req")).toMatchObject({ user_id: user.id, route: "/profile/personal_access_tokens", status: 200 });
    expect(lines.find((l) => l.request_id === "anon-req")).toMatchObject({ user_id: null, status: 401 });
  });

  it("never writes a token, secret, password or code of a full flow to the logs", async () => {
    const secrets: string[] = [TEST_PASSWORD];
    // Sign-in, authorize, code exchange (confidential client with its secret), refresh.
    const { app, secret } = await makeApp({ confidential: true });
    secrets.push(secret);
    const { user, browser } = await signedInUser(new Browser());
    const { verifier, challenge } = await pkce();
    secrets.push(verifier);
    const code = await getCode(browser, { client_id: app.uid, code_challenge: challenge, code_challenge_method: "S256", state: "state-value-xyz" });
    secrets.push(code);
    const exchanged = await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }, { basic: [app.uid, secret] });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as Tokens;
    secrets.push(tokens.access_token, tokens.refresh_token);
    const refreshed = await refresh(app, tokens.refresh_token, { client_secret: secret });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()) as Tokens;
    secrets.push(rotated.access_token, rotated.refresh_token);
    // An API call with ?access_token= (the query string is the riskiest place).
    const viaQuery = await call(`/api/v4/user?access_token=${encodeURIComponent(rotated.access_token)}`);
    expect(viaQuery.status).toBe(200);
    // PAT creation on the page; the new token is in this one response only.
    await browser.get("/profile/personal_access_tokens");
    const created = await browser.post("/profile/personal_access_tokens", { name: "ci", expires_at: new Date(Date.now() + 86400_000 * 5).toISOString().slice(0, 10), scopes: "api" });
    const pat = /glpat-[A-Za-z0-9_-]+/.exec(await created.text())?.[0];
    expect(pat).toBeDefined();
    secrets.push(pat!);
    expect((await call("/api/v4/user", { headers: { "PRIVATE-TOKEN": pat! } })).status).toBe(200);
    // Password grant, and a refused one with a wrong password.
    const other = await makeUser({ password: "Another-Secret-Passw0rd!" });
    secrets.push("Another-Secret-Passw0rd!");
    const grant = await tokenRequest({ grant_type: "password", username: other.username, password: "Another-Secret-Passw0rd!" });
    expect(grant.status).toBe(200);
    const grantToken = ((await grant.json()) as Tokens).access_token;
    secrets.push(grantToken);
    await tokenRequest({ grant_type: "password", username: other.username, password: "Wrong-Guess-Passw0rd!" });
    secrets.push("Wrong-Guess-Passw0rd!");
    // Token info and revocation carry tokens in the query and body.
    await call(`/oauth/token/info?access_token=${encodeURIComponent(grantToken)}`);
    await call("/oauth/revoke", { method: "POST", body: new URLSearchParams({ token: rotated.refresh_token, client_id: app.uid, client_secret: secret }) });
    // A PAT created through the admin API.
    const { token: adminToken } = await makeUserWithToken({ isAdmin: true });
    secrets.push(adminToken);
    const viaApi = await call(`/api/v4/users/${user.id}/personal_access_tokens`, { ...json({ name: "api-made", scopes: ["api"], expires_at: new Date(Date.now() + 86400_000 * 5).toISOString().slice(0, 10) }), token: adminToken });
    expect(viaApi.status).toBe(201);
    secrets.push(((await viaApi.json()) as { token: string }).token);

    const lines = captured();
    expect(requestLines().length).toBeGreaterThanOrEqual(12);
    for (const s of secrets) {
      for (const line of lines) expect(line.includes(s), `a secret reached the logs: ${line.slice(0, 200)}`).toBe(false);
    }
    // The route pattern, not the URL: no query string at all.
    for (const l of requestLines()) expect(l.route).not.toContain("?");
  });
});
