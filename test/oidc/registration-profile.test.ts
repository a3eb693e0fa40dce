import { describe, expect, it } from "vitest";
import { signedInUser } from "../helpers/browser";
import { REDIRECT, call, getCode, makeApp, pkce, tokenRequest } from "../oauth/helpers";

/**
 * OpenID Connect Dynamic Client Registration §2 `application_type` and its redirect-URI rules,
 * and OpenID Connect Core §11 `offline_access` (docs/oidc.md): accepted everywhere a scope is
 * requested; refresh tokens are issued as always (GitLab), the scope itself is never granted.
 */
let address = 0;
function register(body: unknown) {
  return call("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${++address}` } });
}

describe("Registration §2: application_type", () => {
  it("native: loopback http, private-use schemes and https are allowed, and application_type is echoed", async () => {
    const res = await register({ application_type: "native", redirect_uris: ["http://127.0.0.1/callback", "com.example.agent:/oauth", "https://agent.example/cb"] });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { application_type: string }).application_type).toBe("native");
  });

  it("native: http on a non-loopback host is invalid_redirect_uri", async () => {
    const res = await register({ application_type: "native", redirect_uris: ["http://agent.example/cb"] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it("web: https is allowed; a loopback URI or a private-use scheme is invalid_redirect_uri", async () => {
    expect((await register({ application_type: "web", redirect_uris: ["https://agent.example/cb"] })).status).toBe(201);
    for (const uri of ["http://127.0.0.1/callback", "com.example.agent:/oauth"]) {
      const res = await register({ application_type: "web", redirect_uris: [uri] });
      expect(res.status, uri).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_redirect_uri" });
    }
  });

  it("another application_type is invalid_client_metadata; without one no type rule applies (MCP clients register loopback URIs)", async () => {
    const res = await register({ application_type: "desktop", redirect_uris: ["https://agent.example/cb"] });
    expect(await res.json()).toMatchObject({ error: "invalid_client_metadata" });
    const none = await register({ redirect_uris: ["http://127.0.0.1/callback"] });
    expect(none.status).toBe(201);
    expect(await none.json()).not.toHaveProperty("application_type");
  });
});

describe("OIDC Core §11: offline_access", () => {
  it("accepted at registration and at the authorization endpoint; the grant has a refresh token and offline_access is not granted", async () => {
    const reg = await register({ redirect_uris: [REDIRECT], scope: "openid read_user offline_access" });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; scope: string };
    expect(client.scope).toBe("openid read_user");
    const { browser } = await signedInUser();
    const { verifier, challenge } = await pkce();
    const code = await getCode(browser, { client_id: client.client_id, scope: "openid read_user offline_access", code_challenge: challenge, code_challenge_method: "S256" });
    const res = await tokenRequest({ grant_type: "authorization_code", client_id: client.client_id, code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { scope: string; refresh_token?: string };
    expect(tokens.scope).toBe("openid read_user");
    expect(tokens.refresh_token).toBeTruthy();
  });

  it("accepted by the device authorization endpoint (oidc-agent always asks for it)", async () => {
    const { app } = await makeApp({ confidential: false, scopes: ["openid", "profile", "read_user"] });
    const res = await call("/oauth/authorize_device", {
      method: "POST",
      body: new URLSearchParams({ client_id: app.uid, scope: "openid profile offline_access" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty("device_code");
  });

  it("discovery lists offline_access in scopes_supported", async () => {
    const body = (await (await call("/.well-known/openid-configuration")).json()) as { scopes_supported: string[] };
    expect(body.scopes_supported).toContain("offline_access");
  });
});
