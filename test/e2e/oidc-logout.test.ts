import { createServer, type Server } from "node:http";
import * as client from "openid-client";
import { createLocalJWKSet, jwtVerify } from "jose";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser";
import { baseURL, createApp, createUser, rootToken, signIn } from "./idp-helpers";

/**
 * OpenID Connect RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 end to end (docs/oidc.md,
 * "Signing out"): openid-client builds the end-session URL from discovery, headless Chromium is the
 * person's browser, and a loopback relying party receives the browser back and the logout token on
 * its back channel, which it verifies against the published JWKS (npm start allows loopback
 * back-channel URLs, as it does for metadata documents).
 */
let browser: Browser;
let rp: Server;
let rpBase: string;
const logoutTokens: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  rp = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/backchannel") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        logoutTokens.push(new URLSearchParams(body).get("logout_token") ?? "");
        res.writeHead(200).end();
      });
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<p>Relying party</p>");
  });
  await new Promise<void>((r) => rp.listen(0, "127.0.0.1", r));
  rpBase = `http://127.0.0.1:${(rp.address() as { port: number }).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => rp.close(r));
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A relying party with logout settings, a user, and that user signed in to it in a browser context of their own. */
async function signedInRelyingParty(prefix: string): Promise<{ config: client.Configuration; tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers; context: BrowserContext; appId: string; userId: number }> {
  const admin = await rootToken();
  const user = await createUser(admin, prefix);
  const app = await createApp(admin, {
    name: `E2E logout RP ${prefix}`,
    redirect_uri: `${rpBase}/callback`,
    scopes: "openid profile",
    confidential: false,
    post_logout_redirect_uris: [`${rpBase}/signed-out`],
    backchannel_logout_uri: `${rpBase}/backchannel`,
    backchannel_logout_session_required: true,
  });
  const config = await client.discovery(new URL(baseURL), app.application_id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: `${rpBase}/callback`,
    scope: "openid profile",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url.href);
  await signIn(page, user.username);
  await page.getByRole("button", { name: "Authorize" }).waitFor();
  const arrived = page.waitForURL((u) => u.href.startsWith(`${rpBase}/callback`));
  await page.getByRole("button", { name: "Authorize" }).click();
  await arrived;
  const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
  await page.close();
  return { config, tokens, context, appId: app.application_id, userId: user.id };
}

async function verifyLogoutToken(token: string, audience: string) {
  const jwks = createLocalJWKSet((await (await fetch(`${baseURL}/oauth/discovery/keys`)).json()) as never);
  return (await jwtVerify(token, jwks, { issuer: baseURL, audience, typ: "logout+jwt", algorithms: ["RS256"] })).payload;
}

describe("RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 with openid-client and Chromium", () => {
  it("§2 buildEndSessionUrl with id_token_hint signs the browser out at once, §3 returns with state, and Back-Channel §2.4 delivers a verified logout token", async () => {
    const { config, tokens, context, appId, userId } = await signedInRelyingParty("logout1");
    expect(config.serverMetadata().end_session_endpoint).toBe(`${baseURL}/oauth/logout`);
    const sid = tokens.claims()!.sid;
    expect(typeof sid).toBe("string");
    const before = logoutTokens.length;
    const endSession = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${rpBase}/signed-out`, state: "bye-1" });
    const page = await context.newPage();
    await page.goto(endSession.href);
    await page.waitForURL((u) => u.href.startsWith(`${rpBase}/signed-out`));
    expect(new URL(page.url()).searchParams.get("state")).toBe("bye-1");

    await until(() => logoutTokens.length > before);
    const claims = await verifyLogoutToken(logoutTokens[logoutTokens.length - 1], appId);
    expect(claims).toMatchObject({ sub: String(userId), sid, events: { "http://schemas.openid.net/event/backchannel-logout": {} } });
    expect(claims).not.toHaveProperty("nonce");
    // The grant ended with the session (it did not ask for offline_access).
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
    // And the browser is signed out.
    await page.goto(`${baseURL}/profile/active_sessions`);
    expect(new URL(page.url()).pathname).toBe("/users/sign_in");
    await context.close();
  });

  it("§2 without id_token_hint Chromium sees the confirmation page, signs out with it, and the relying party is told", async () => {
    const { config, context, appId } = await signedInRelyingParty("logout2");
    const before = logoutTokens.length;
    const endSession = client.buildEndSessionUrl(config, { post_logout_redirect_uri: `${rpBase}/signed-out`, state: "bye-2" });
    expect(endSession.searchParams.get("client_id")).toBe(appId);
    const page = await context.newPage();
    await page.goto(endSession.href);
    await page.getByRole("heading", { name: "Sign out?" }).waitFor();
    const arrived = page.waitForURL((u) => u.href.startsWith(`${rpBase}/signed-out`));
    await page.locator("main").getByRole("button", { name: "Sign out", exact: true }).click();
    await arrived;
    expect(new URL(page.url()).searchParams.get("state")).toBe("bye-2");
    await until(() => logoutTokens.length > before);
    await verifyLogoutToken(logoutTokens[logoutTokens.length - 1], appId);
    await context.close();
  });
});
