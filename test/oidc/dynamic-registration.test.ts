import { describe, expect, it } from "vitest";
import { signedInUser, textOf } from "../helpers/browser";
import { makeUserWithToken } from "../helpers/fixtures";
import { REDIRECT, authorizeUrl, call, decide, pkce, tokenRequest, unique } from "../oauth/helpers";

let address = 0;
/** Each test registers from its own client address, so the per-address limit is each test's own. */
function register(body: unknown, ip = `198.51.100.${++address}`) {
  return call("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip } });
}

interface Registered {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  scope: string;
  client_secret?: string;
}

const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe("Dynamic client registration (RFC 7591) at POST /oauth/register", () => {
  it("§3.2.1: 201 with client_id, a public client (auth method none, no secret), GitLab's unverified prefix on the name; redirect_uris as a string or an array", async () => {
    const res = await register({ client_name: "My MCP client", redirect_uris: [REDIRECT], scope: "openid read_api" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Registered;
    expect(body.client_id).toBeTruthy();
    expect(body).not.toHaveProperty("client_secret");
    expect(body.token_endpoint_auth_method).toBe("none");
    expect(body.client_name).toBe("[Unverified Dynamic Application] My MCP client");
    expect(body.redirect_uris).toEqual([REDIRECT]);
    expect(body.scope).toBe("openid read_api");
    const single = (await (await register({ client_name: "x", redirect_uris: REDIRECT })).json()) as Registered;
    expect(single.redirect_uris).toEqual([REDIRECT]);
  });

  it("GitLab: the name with its prefix is cut to 200 characters", async () => {
    const body = (await (await register({ client_name: "n".repeat(500), redirect_uris: [REDIRECT] })).json()) as Registered;
    expect(body.client_name).toHaveLength(200);
    expect(body.client_name.startsWith("[Unverified Dynamic Application] ")).toBe(true);
  });

  it("§3.2.2 invalid_redirect_uri: missing, relative, with a fragment, http: for a non-loopback host, or two URIs in one entry", async () => {
    for (const redirect_uris of [undefined, [], ["/relative"], ["https://a.example/cb#frag"], ["http://a.example/cb"], [`${REDIRECT}\nhttps://evil.example/`]]) {
      const res = await register({ client_name: "x", redirect_uris });
      expect(res.status, JSON.stringify(redirect_uris)).toBe(400);
      expect(await errorOf(res)).toBe("invalid_redirect_uri");
    }
    // Loopback http: is allowed (RFC 8252 §7.3).
    expect((await register({ client_name: "cli", redirect_uris: ["http://127.0.0.1:8765/callback"] })).status).toBe(201);
  });

  it("§3.2.2 invalid_client_metadata: sudo, an unknown scope, a confidential auth method, other grant types, a body that is not a JSON object", async () => {
    const bads: unknown[] = [
      { redirect_uris: [REDIRECT], scope: "api sudo" },
      { redirect_uris: [REDIRECT], scope: "everything" },
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" },
      { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      { redirect_uris: [REDIRECT], response_types: ["token"] },
      { redirect_uris: [REDIRECT], client_name: 42 },
      [REDIRECT],
    ];
    for (const body of bads) {
      const res = await register(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await errorOf(res)).toBe("invalid_client_metadata");
    }
    const notJson = await call("/oauth/register", { method: "POST", body: "{", headers: { "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.250" } });
    expect(await errorOf(notJson)).toBe("invalid_client_metadata");
  });

  it("PKCE is enforced for dynamic clients: no code_challenge is refused at /oauth/authorize; with it, the code is exchanged without a secret", async () => {
    const reg = (await (await register({ client_name: "pkce", redirect_uris: [REDIRECT], scope: "read_user" })).json()) as Registered;
    const { browser } = await signedInUser();
    const refused = await browser.get(authorizeUrl({ client_id: reg.client_id, response_type: "code", redirect_uri: REDIRECT, scope: "read_user" }));
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    const { verifier, challenge } = await pkce();
    const res = await decide(browser, { client_id: reg.client_id, response_type: "code", redirect_uri: REDIRECT, scope: "read_user", code_challenge: challenge, code_challenge_method: "S256" });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    const noVerifier = await tokenRequest({ grant_type: "authorization_code", client_id: reg.client_id, code, redirect_uri: REDIRECT });
    expect(noVerifier.status).toBe(400);
    expect(await errorOf(noVerifier)).toBe("invalid_grant");
    const ok = await tokenRequest({ grant_type: "authorization_code", client_id: reg.client_id, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(ok.status).toBe(200);
  });

  it("the consent page says the application is unverified; /profile/applications lists it among the authorized applications", async () => {
    const name = unique("Agent ");
    const reg = (await (await register({ client_name: name, redirect_uris: [REDIRECT], scope: "read_user" })).json()) as Registered;
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const params = { client_id: reg.client_id, response_type: "code", redirect_uri: REDIRECT, scope: "read_user", code_challenge: challenge, code_challenge_method: "S256" };
    const consent = textOf(await (await browser.get(authorizeUrl(params))).text());
    expect(consent).toContain("has not been verified");
    expect(consent).toContain(`[Unverified Dynamic Application] ${name}`);
    const res = await decide(browser, params);
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    expect((await tokenRequest({ grant_type: "authorization_code", client_id: reg.client_id, code, redirect_uri: REDIRECT, code_verifier: verifier })).status).toBe(200);
    const page = textOf(await (await browser.get("/profile/applications")).text());
    expect(page).toContain(`[Unverified Dynamic Application] ${name}`);
  });

  it("administrators see dynamic applications in GET /api/v4/applications (GitLab's entity; the name carries the unverified prefix) and delete them", async () => {
    const reg = (await (await register({ client_name: "to delete", redirect_uris: [REDIRECT] })).json()) as Registered;
    const { token } = await makeUserWithToken({ isAdmin: true });
    const list = (await (await call("/api/v4/applications", { token })).json()) as { id: number; application_id: string; application_name: string; confidential: boolean }[];
    const row = list.find((a) => a.application_id === reg.client_id)!;
    expect(row).toMatchObject({ application_name: "[Unverified Dynamic Application] to delete", confidential: false });
    expect((await call(`/api/v4/applications/${row.id}`, { method: "DELETE", token })).status).toBe(204);
    const { browser } = await signedInUser();
    const gone = await browser.get(authorizeUrl({ client_id: reg.client_id, response_type: "code", redirect_uri: REDIRECT }));
    expect(gone.status).toBe(400);
  });

  it("throttled per client address: the 11th registration within the hour is 429 with Retry-After", async () => {
    const ip = "203.0.113.77";
    for (let i = 0; i < 10; i++) expect((await register({ client_name: `r${i}`, redirect_uris: [REDIRECT] }, ip)).status).toBe(201);
    const refused = await register({ client_name: "r11", redirect_uris: [REDIRECT] }, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await register({ client_name: "other", redirect_uris: [REDIRECT] }, "203.0.113.78")).status).toBe(201);
  });

  it("RFC 8414 §2: registration_endpoint is in both metadata documents", async () => {
    for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
      expect(((await (await call(path)).json()) as { registration_endpoint: string }).registration_endpoint).toBe("http://localhost/oauth/register");
    }
  });
});

describe("RFC 7591 §2-3 rows: issued_at, defaults, unknown metadata, redirect URI schemes", () => {
  it("§3.2.1: client_id_issued_at is the time of registration in seconds since the epoch", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await register({ redirect_uris: [REDIRECT] });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id_issued_at: number };
    expect(Number.isInteger(body.client_id_issued_at)).toBe(true);
    expect(body.client_id_issued_at).toBeGreaterThanOrEqual(before);
    expect(body.client_id_issued_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it("§2: omitted metadata gets the server's defaults and the answer says what was registered (grant_types, response_types, auth method, scope, name)", async () => {
    const res = await register({ redirect_uris: [REDIRECT] });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "read_api read_user openid profile email",
      client_name: "[Unverified Dynamic Application] Dynamic Application",
      redirect_uris: [REDIRECT],
    });
  });

  it("§2: unknown metadata is ignored, not refused and not echoed", async () => {
    const res = await register({ redirect_uris: [REDIRECT], client_name: "Ignores", software_statement_x: "abc", frobnicate: { a: 1 }, logo_uri_extra: 7 });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    for (const member of ["software_statement_x", "frobnicate", "logo_uri_extra"]) expect(body).not.toHaveProperty(member);
  });

  it("RFC 8252 §7.1: a native app's private-use scheme (Cursor's cursor://, a reverse-domain scheme) registers; javascript:, data: and vbscript: never do", async () => {
    for (const uri of ["cursor://anysphere.cursor-retrieval/oauth/user-gitlab/callback", "com.example.app:/oauth2redirect"]) {
      const res = await register({ redirect_uris: [uri] });
      expect(res.status, uri).toBe(201);
      expect(((await res.json()) as { redirect_uris: string[] }).redirect_uris).toEqual([uri]);
    }
    for (const uri of ["javascript:alert(1)//", "data:text/html,x", "vbscript:msgbox(1)", "VBScript:msgbox(1)"]) {
      const res = await register({ redirect_uris: [uri] });
      expect(res.status, uri).toBe(400);
      expect(await errorOf(res), uri).toBe("invalid_redirect_uri");
    }
  });
});
