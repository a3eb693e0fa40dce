import { env } from "cloudflare:test";
import { generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { signWithOidcKey } from "../../src/credentials/oidc-jwt";
import { signedInUser, textOf } from "../helpers/browser";
import { call } from "../oauth/helpers";
import { OIDC_SCOPES, oidcLogin, verifyIdToken } from "./helpers";
import { installReceivers } from "./logout-helpers";

/**
 * OpenID Connect RP-Initiated Logout 1.0 at /oauth/logout (docs/oidc.md, "Signing out"): the
 * request's checks (§2, §3), when the person is asked, the confirmation's CSRF protection, and the
 * way back to the relying party.
 */
const BACK = "https://rp.example/after-logout";

beforeEach(installReceivers);
afterEach(() => vi.restoreAllMocks());

async function signedInWithIdToken(extra: Record<string, unknown> = {}) {
  const login = await oidcLogin("openid profile", {}, { postLogoutRedirectUris: BACK, ...extra });
  return { ...login, idToken: login.tokens.id_token! };
}

async function isSignedIn(browser: { get(p: string): Promise<Response> }): Promise<boolean> {
  return (await browser.get("/profile/active_sessions")).status === 200;
}

function logoutUrl(params: Record<string, string>): string {
  return `/oauth/logout?${new URLSearchParams(params)}`;
}

describe("RP-Initiated Logout 1.0 §2.1: discovery", () => {
  it("advertises end_session_endpoint and back-channel logout with sid, and no front-channel logout (not built)", async () => {
    const meta = (await (await call("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    expect(meta.end_session_endpoint).toBe("http://localhost/oauth/logout");
    expect(meta.backchannel_logout_supported).toBe(true);
    expect(meta.backchannel_logout_session_supported).toBe(true);
    expect(Object.keys(meta).filter((k) => k.startsWith("frontchannel"))).toEqual([]);
  });
});

describe("RP-Initiated Logout 1.0 §2: the end-session request", () => {
  it("an id_token_hint of the signed-in person signs out at once and §3 returns to the registered URI with state", async () => {
    const { app, browser, idToken } = await signedInWithIdToken();
    const res = await browser.get(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: BACK, state: "st-1" }));
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(BACK);
    expect(back.searchParams.get("state")).toBe("st-1");
    expect(await isSignedIn(browser)).toBe(false);
    expect(app.uid).toBeTruthy();
  });

  it("accepts the same request as a form POST (§2: GET and POST), from the relying party's own site", async () => {
    const { browser, idToken, app } = await signedInWithIdToken();
    const res = await browser.post("/oauth/logout", { id_token_hint: idToken, client_id: app.uid, post_logout_redirect_uri: BACK }, { origin: "https://rp.example", csrf: false });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(BACK);
    expect(await isSignedIn(browser)).toBe(false);
  });

  it("accepts an expired id_token_hint signed by this server as evidence of the session", async () => {
    const { user, browser, app } = await signedInWithIdToken();
    const past = Math.floor(Date.now() / 1000) - 3600;
    const expired = await signWithOidcKey(env, { iss: "http://localhost", aud: app.uid, sub: String(user.id), iat: past - 120, exp: past });
    const res = await browser.get(logoutUrl({ id_token_hint: expired, post_logout_redirect_uri: BACK }));
    expect(res.status).toBe(302);
    expect(await isSignedIn(browser)).toBe(false);
  });

  it("refuses on a page, without redirecting, an id_token_hint this server did not sign", async () => {
    const { browser, app, user } = await signedInWithIdToken();
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await new SignJWT({ sub: String(user.id) }).setProtectedHeader({ alg: "RS256", kid: "x" }).setIssuer("http://localhost").setAudience(app.uid).sign(privateKey);
    // Signed with a key id of ours but another key: a bad signature, not an unknown key.
    const ourKid = JSON.parse(atob((await verifyIdTokenHeader(browser, app.uid)).split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))).kid as string;
    const forgedWithOurKid = await new SignJWT({ sub: String(user.id) }).setProtectedHeader({ alg: "RS256", kid: ourKid }).setIssuer("http://localhost").setAudience(app.uid).sign(privateKey);
    for (const hint of [forgedWithOurKid, "not.a.jwt"]) {
      const res = await browser.get(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: BACK }));
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(textOf(await res.text())).toContain("not an ID token this server issued");
    }
    // A hint whose key is unknown proves nothing: the person is asked instead.
    const asked = await browser.get(logoutUrl({ id_token_hint: forged, client_id: app.uid }));
    expect(asked.status).toBe(200);
    expect(textOf(await asked.text())).toContain("Sign out?");
    expect(await isSignedIn(browser)).toBe(true);
  });

  it("asks the person when there is no id_token_hint, and the confirmation needs the CSRF token", async () => {
    const { browser, app } = await signedInWithIdToken();
    const page = await browser.get(logoutUrl({ client_id: app.uid, post_logout_redirect_uri: BACK, state: "st-2" }));
    expect(page.status).toBe(200);
    expect(textOf(await page.text())).toContain(`${app.name} asks to sign you out`);
    expect(await isSignedIn(browser)).toBe(true);
    const hidden = { client_id: app.uid, post_logout_redirect_uri: BACK, state: "st-2", decision: "sign_out" };
    expect((await browser.post("/oauth/logout/confirm", { ...hidden, authenticity_token: "forged" })).status).toBe(403);
    expect((await browser.post("/oauth/logout/confirm", hidden, { origin: "https://evil.example" })).status).toBe(403);
    expect(await isSignedIn(browser)).toBe(true);
    await browser.get(logoutUrl({ client_id: app.uid }));
    const confirmed = await browser.post("/oauth/logout/confirm", hidden);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe(`${BACK}?state=st-2`);
    expect(await isSignedIn(browser)).toBe(false);
  });

  it("'Stay signed in' keeps the session and still returns to the application", async () => {
    const { browser, app } = await signedInWithIdToken();
    await browser.get(logoutUrl({ client_id: app.uid }));
    const res = await browser.post("/oauth/logout/confirm", { client_id: app.uid, post_logout_redirect_uri: BACK, decision: "stay" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(BACK);
    expect(await isSignedIn(browser)).toBe(true);
  });

  it("a logout_hint naming someone else, or a hint of another person, makes the OP ask instead of signing out", async () => {
    const { browser, idToken, user } = await signedInWithIdToken();
    const other = await signedInWithIdToken();
    for (const params of [{ id_token_hint: idToken, logout_hint: "somebody-else" }, { id_token_hint: other.idToken }] as Record<string, string>[]) {
      const res = await browser.get(logoutUrl(params));
      expect(res.status).toBe(200);
      expect(textOf(await res.text())).toContain("Sign out?");
    }
    expect(await isSignedIn(browser)).toBe(true);
    expect((await browser.get(logoutUrl({ id_token_hint: idToken, logout_hint: user.username }))).status).toBe(200);
    expect(await isSignedIn(browser)).toBe(false);
  });

  it("a client_id that is not the hint's audience is refused", async () => {
    const { browser, idToken } = await signedInWithIdToken();
    const { app: another } = await oidcLogin("openid", {}, {});
    const res = await browser.get(logoutUrl({ id_token_hint: idToken, client_id: another.uid }));
    expect(res.status).toBe(400);
    expect(textOf(await res.text())).toContain("not the audience");
  });

  it("signed out already: straight back to the application, or a page saying so", async () => {
    const { app } = await signedInWithIdToken();
    const res = await call(logoutUrl({ client_id: app.uid, post_logout_redirect_uri: BACK, state: "x" }), { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${BACK}?state=x`);
    const page = await call("/oauth/logout");
    expect(page.status).toBe(200);
    expect(textOf(await page.text())).toContain("You are signed out");
  });
});

describe("RP-Initiated Logout 1.0 §3: post_logout_redirect_uri", () => {
  it("is used only when registered by the identified client, matched exactly; otherwise refused on a page", async () => {
    const { browser, idToken, app } = await signedInWithIdToken();
    const { app: unregistered } = await oidcLogin("openid", {}, { scopes: OIDC_SCOPES });
    for (const params of [
      { id_token_hint: idToken, post_logout_redirect_uri: `${BACK}/` },
      { id_token_hint: idToken, post_logout_redirect_uri: BACK.toUpperCase() },
      { client_id: unregistered.uid, post_logout_redirect_uri: BACK },
      // No client identified: nothing to match the URI against.
      { post_logout_redirect_uri: BACK },
    ] as Record<string, string>[]) {
      const res = await browser.get(logoutUrl(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
    expect(await isSignedIn(browser)).toBe(true);
    expect(app.postLogoutRedirectUris).toBe(BACK);
  });
});

/** The header segment of a fresh id_token of this server (its kid is the active key's). */
async function verifyIdTokenHeader(_browser: unknown, _aud: string): Promise<string> {
  const { tokens, app } = await oidcLogin("openid");
  await verifyIdToken(tokens.id_token!, app.uid);
  return tokens.id_token!;
}
