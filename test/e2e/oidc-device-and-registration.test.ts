import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { api, authorizeInBrowser, baseURL, browserAndCallback, createApp, createUser, rootToken, signIn } from "./idp-helpers";

/**
 * issue 11, end to end against `npm start`: a CLI's device flow (openid-client polls while
 * headless Chromium types the code on /oauth/device), and a client that registers itself at
 * /oauth/register (RFC 7591) and then completes a PKCE login.
 */
const fx = browserAndCallback();
const insecure = { execute: [client.allowInsecureRequests] };

describe("Device authorization grant (RFC 8628) and dynamic registration (RFC 7591), end to end", () => {
  it("RFC 8628 §3.1-§3.5: openid-client starts the flow and polls; Chromium signs in at verification_uri, enters the Code, authorizes", async () => {
    const admin = await rootToken();
    const user = await createUser(admin, "device");
    const app = await createApp(admin, { name: "E2E CLI", redirect_uri: fx.redirectUri, scopes: "api read_user openid", confidential: false });
    const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.None(), insecure);
    const started = await client.initiateDeviceAuthorization(config, { scope: "read_user openid" });
    expect(started.verification_uri).toBe(`${baseURL}/oauth/device`);
    expect(started.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);

    const polling = client.pollDeviceAuthorizationGrant(config, started);
    const context = await fx.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(started.verification_uri);
      await signIn(page, user.username);
      await page.getByLabel("Code").fill(started.user_code);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("button", { name: "Authorize" }).click();
      await page.getByText("Device authorized").first().waitFor();
    } finally {
      await context.close();
    }
    const tokens = await polling;
    expect(tokens.claims()!.sub).toBe(String(user.id));
    const me = await api("/user", tokens.access_token);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
  });

  it("RFC 7591 §3: a client registered through /oauth/register completes a PKCE login (consent marked unverified) and reads userinfo", async () => {
    const admin = await rootToken();
    const user = await createUser(admin, "dcr");
    const config = await client.dynamicClientRegistration(
      new URL(baseURL),
      { client_name: "E2E MCP agent", redirect_uris: [fx.redirectUri], token_endpoint_auth_method: "none", scope: "openid profile read_api" },
      client.None(),
      insecure,
    );
    const registered = config.clientMetadata();
    expect(registered.client_name).toBe("[Unverified Dynamic Application] E2E MCP agent");
    expect(registered.client_secret).toBeUndefined();

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: fx.redirectUri,
      scope: "openid profile read_api",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
    });
    const { callback, consentText } = await authorizeInBrowser(fx.browser, url, user.username, fx.redirectUri);
    expect(consentText).toContain("has not been verified");
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()!.sub).toBe(String(user.id));
    const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info.preferred_username).toBe(user.username);
    const projects = await api("/projects", tokens.access_token);
    expect(projects.status).toBe(200);
  });
});
