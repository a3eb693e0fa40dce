import { describe, expect, it } from "vitest";
import { Browser, signedInUser } from "../helpers/browser";
import { REDIRECT, TEST_PASSWORD, authorizeUrl, pkce } from "../oauth/helpers";
import { ageSessions, oidcApp, oidcLogin, sessionStartedAt, verifyIdToken, type OidcTokens } from "./helpers";

async function authorize(browser: Browser, clientId: string, extra: Record<string, string>) {
  const { challenge } = await pkce();
  return browser.get(authorizeUrl({ client_id: clientId, response_type: "code", redirect_uri: REDIRECT, scope: "openid", state: "st", code_challenge: challenge, code_challenge_method: "S256", ...extra }));
}

const redirectParams = (res: Response) => new URL(res.headers.get("location")!).searchParams;

describe("prompt and max_age (OIDC Core §3.1.2.1, §3.1.2.6)", () => {
  it("§3.1.2.6: prompt=none while signed out redirects with error=login_required and the state", async () => {
    const { app } = await oidcApp();
    const res = await authorize(new Browser(), app.uid, { prompt: "none" });
    expect(res.status).toBe(302);
    const q = redirectParams(res);
    expect(res.headers.get("location")!.startsWith(REDIRECT)).toBe(true);
    expect(q.get("error")).toBe("login_required");
    expect(q.get("state")).toBe("st");
    expect(q.get("iss")).toBe("http://localhost");
  });

  it("§3.1.2.6: prompt=none for an application the user has not authorized redirects with error=consent_required", async () => {
    const { app } = await oidcApp();
    const { browser } = await signedInUser();
    const q = redirectParams(await authorize(browser, app.uid, { prompt: "none" }));
    expect(q.get("error")).toBe("consent_required");
  });

  it("§3.1.2.1: prompt=none after an earlier authorization for the same scopes returns a code without any page", async () => {
    const first = await oidcLogin("openid");
    const res = await authorize(first.browser, first.app.uid, { prompt: "none" });
    expect(res.status).toBe(302);
    expect(redirectParams(res).get("code")).toBeTruthy();
    // A scope beyond the earlier grant needs consent again.
    expect(redirectParams(await authorize(first.browser, first.app.uid, { prompt: "none", scope: "openid email" })).get("error")).toBe("consent_required");
  });

  it("GitLab: a trusted application skips consent, also with prompt=none; prompt=consent shows the consent page even then", async () => {
    const { app } = await oidcApp({ trusted: true });
    const { browser } = await signedInUser();
    expect(redirectParams(await authorize(browser, app.uid, { prompt: "none" })).get("code")).toBeTruthy();
    const consent = await authorize(browser, app.uid, { prompt: "consent" });
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("Authorize");
  });

  it("§3.1.2.1: prompt=login ends the session and sends the person to sign in again, then back without prompt=login; auth_time is the new sign-in", async () => {
    const { app } = await oidcApp();
    const { user, browser } = await signedInUser();
    await ageSessions(user.id, 60_000);
    const old = await sessionStartedAt(user.id);
    const res = await authorize(browser, app.uid, { prompt: "login", nonce: "n1" });
    expect(res.status).toBe(302);
    const signIn = new URL(res.headers.get("location")!, "http://localhost");
    expect(signIn.pathname).toBe("/users/sign_in");
    const back = signIn.searchParams.get("redirect_to")!;
    // The request waits server-side (docs/oauth.md, Pending requests).
    expect(back).toMatch(/^\/oauth\/authorize\?pending=/);
    // The old session is over: the request is not reachable without signing in.
    expect((await browser.get(back)).status).toBe(302);
    expect((await browser.signIn(user.username, TEST_PASSWORD, back)).status).toBe(303);
    // Back at the request, now without prompt=login: the consent page (no second sign-in), nonce kept.
    const consent = await browser.get(back);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain('name="nonce" value="n1"');
    expect(html).not.toContain('name="prompt"');
    expect(await sessionStartedAt(user.id)).toBeGreaterThan(old);
  });

  it("§3.1.2.1: max_age older than the session asks for sign-in again; with prompt=none it is login_required", async () => {
    const { app } = await oidcApp();
    const { user, browser } = await signedInUser();
    await ageSessions(user.id, 120_000);
    expect(redirectParams(await authorize(browser, app.uid, { prompt: "none", max_age: "60" })).get("error")).toBe("login_required");
    const res = await authorize(browser, app.uid, { max_age: "60" });
    expect(new URL(res.headers.get("location")!, "http://localhost").pathname).toBe("/users/sign_in");
  });

  it("§3.1.2.1: max_age within the session's age goes on to consent, and the id_token carries auth_time", async () => {
    const { app, user, tokens } = await oidcLogin("openid", { max_age: "3600" });
    const claims = await verifyIdToken((tokens as OidcTokens).id_token!, app.uid);
    expect(claims.auth_time).toBe(Math.floor((await sessionStartedAt(user.id)) / 1000));
  });

  it("§3.1.2.1: an unknown prompt value, none with another value, or a malformed max_age is invalid_request", async () => {
    const { app } = await oidcApp();
    const { browser } = await signedInUser();
    const cases: Record<string, string>[] = [{ prompt: "select_account" }, { prompt: "none login" }, { max_age: "-1" }, { max_age: "soon" }];
    for (const extra of cases) {
      const q = redirectParams(await authorize(browser, app.uid, extra));
      expect(q.get("error"), JSON.stringify(extra)).toBe("invalid_request");
    }
  });
});

describe("OIDC Core §3.1.2.1 optional parameters this provider does not act on: display, ui_locales, login_hint", () => {
  it("are accepted and ignored: the flow completes and the id_token names the signed-in person, not the hinted one", async () => {
    const other = "someone-else@example.com";
    const { app, user, tokens } = await oidcLogin("openid profile", { display: "popup", ui_locales: "fr-CA en", login_hint: other });
    const claims = await verifyIdToken(tokens.id_token!, app.uid);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.preferred_username).toBe(user.username);
  });

  it("each one alone, with a value this provider does not know (display=touch, ui_locales=xx), is no error either", async () => {
    for (const extra of [{ display: "touch" }, { display: "page" }, { ui_locales: "xx" }, { login_hint: "nobody" }] as Record<string, string>[]) {
      const { app, tokens } = await oidcLogin("openid", extra);
      expect((await verifyIdToken(tokens.id_token!, app.uid)).aud, JSON.stringify(extra)).toBe(app.uid);
    }
  });
});
