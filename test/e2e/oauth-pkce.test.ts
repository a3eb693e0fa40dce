import { createServer, type Server } from "node:http";
import * as oauth from "oauth4webapi";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./browser";

/**
 * issue 2, end to end: against the server `npm start` runs, a real OAuth client library
 * (oauth4webapi) runs the PKCE flow while headless Chromium signs in and presses "Authorize";
 * the library then exchanges the code, refreshes, and revokes.
 */
const baseURL = inject("baseURL");
const rootPassword = inject("rootPassword");
const insecure = { [oauth.allowInsecureRequests]: true };

let browser: Browser;
let callbackServer: Server;
let callbackPort: number;

async function api(path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(`${baseURL}/api/v4${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
  });
  return res;
}

beforeAll(async () => {
  browser = await launchChromium();
  // The client's redirect URI: a loopback page (RFC 8252) that just says the browser arrived.
  callbackServer = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<p>Signed in. You can close this window.</p>");
  });
  await new Promise<void>((r) => callbackServer.listen(0, "127.0.0.1", r));
  callbackPort = (callbackServer.address() as { port: number }).port;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => callbackServer?.close(r));
});

describe("OAuth authorization code with PKCE, end to end (spec flow 1; RFC 7636; RFC 9207; RFC 7009)", () => {
  it("oauth4webapi + headless Chromium: sign in, Authorize, exchange, call the API, refresh, revoke", async () => {
    // Root has no personal access token at start: the password grant (no client) gives one.
    const rootRes = await fetch(`${baseURL}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", username: "root", password: rootPassword }),
    });
    expect(rootRes.status).toBe(200);
    const rootToken = ((await rootRes.json()) as { access_token: string }).access_token;

    const username = `e2e${Date.now().toString(36)}`;
    const password = "e2e-User-Password-91";
    const userRes = await api("/users", rootToken, {
      method: "POST",
      body: JSON.stringify({ username, name: "E2E User", email: `${username}@example.com`, password, skip_confirmation: true }),
    });
    expect(userRes.status).toBe(201);

    const redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
    const appRes = await api("/applications", rootToken, {
      method: "POST",
      body: JSON.stringify({ name: "E2E SPA", redirect_uri: redirectUri, scopes: "api read_user", confidential: false }),
    });
    expect(appRes.status).toBe(201);
    const registered = (await appRes.json()) as { application_id: string };

    const issuer = new URL(baseURL);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    const client: oauth.Client = { client_id: registered.application_id };

    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const authUrl = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({ client_id: client.client_id, redirect_uri: redirectUri, response_type: "code", scope: "read_user api", state, code_challenge: challenge, code_challenge_method: "S256" })) {
      authUrl.searchParams.set(k, v);
    }

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authUrl.href);
    // No session: the sign-in page, then back to the consent page.
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Authorize" }).waitFor();
    expect(await page.textContent("body")).toContain("E2E SPA");
    const arrived = page.waitForURL((u) => u.href.startsWith(redirectUri));
    await page.getByRole("button", { name: "Authorize" }).click();
    await arrived;
    const callbackUrl = new URL(page.url());
    await context.close();

    // validateAuthResponse checks state and the RFC 9207 iss parameter.
    const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure),
    );
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();

    const me = await api("/user", tokens.access_token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(username);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await api("/user", tokens.access_token)).status).toBe(401);
    expect((await api("/user", refreshed.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure));
    expect((await api("/user", refreshed.access_token)).status).toBe(401);
    const info = await fetch(`${baseURL}/oauth/token/info`, { headers: { Authorization: `Bearer ${refreshed.access_token}` } });
    expect(info.status).toBe(401);
  });
});
