import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { redeemDeviceGrant } from "../../src/db/device-grants";
import { Browser, ORIGIN, signedInUser, textOf } from "../helpers/browser";
import { call, makeApp, refresh, tokenRequest } from "../oauth/helpers";
import { GRANT, authorizeDevice, enterCode, errorOf, poll, start, waitInterval } from "./device-helpers";
import { verifyIdToken, type OidcTokens } from "./helpers";

/** A code typed on /oauth/device from a given client address. */
function postCodeFrom(browser: Browser, ip: string, userCode: string) {
  const body = new URLSearchParams({ user_code: userCode, authenticity_token: browser.csrf() });
  return browser.fetch("/oauth/device", { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN, "CF-Connecting-IP": ip } });
}

describe("Device authorization grant (RFC 8628)", () => {
  it("§3.2: POST /oauth/authorize_device answers device_code, a XXXX-XXXX user_code, verification_uri /oauth/device (and _complete), expires_in and interval", async () => {
    const { auth } = await start();
    expect(auth.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(auth.device_code.length).toBeGreaterThanOrEqual(43);
    expect(auth.verification_uri).toBe("http://localhost/oauth/device");
    expect(auth.verification_uri_complete).toBe(`http://localhost/oauth/device?user_code=${auth.user_code}`);
    expect(auth.expires_in).toBe(300);
    expect(auth.interval).toBe(5);
  });

  it("§3.1: unknown client is 401 invalid_client, a confidential client without its secret too; a scope beyond the application's is invalid_scope; client_id is required", async () => {
    expect(await errorOf(await authorizeDevice({ client_id: "nope" }))).toBe("invalid_client");
    const { app, secret } = await makeApp({ confidential: true });
    expect((await authorizeDevice({ client_id: app.uid })).status).toBe(401);
    expect((await authorizeDevice({ client_id: app.uid, client_secret: secret })).status).toBe(200);
    expect(await errorOf(await authorizeDevice({ client_id: app.uid, client_secret: secret, scope: "sudo" }))).toBe("invalid_scope");
    expect(await errorOf(await authorizeDevice({}))).toBe("invalid_request");
  });

  it("§3.5: before the person decides, polling is authorization_pending; polling faster than the interval is slow_down", async () => {
    const { app, auth } = await start();
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("authorization_pending");
    const fast = await tokenRequest({ grant_type: GRANT, client_id: app.uid, device_code: auth.device_code });
    expect(fast.status).toBe(400);
    expect(await errorOf(fast)).toBe("slow_down");
  });

  it("§3.3, §3.5: the person enters the code and authorizes; the next poll returns tokens once, and the refresh token works for the public client", async () => {
    const { app, auth } = await start();
    const { browser } = await signedInUser();
    const page = await browser.get(`/oauth/device?user_code=${auth.user_code}`);
    const html = await page.text();
    expect(html).toContain('<label for="user_code">Code</label>');
    // A text field (type="text"), so the pages' stylesheet sizes it like every other field.
    expect(html).toMatch(/<input type="text" id="user_code" name="user_code"/);
    expect(html).toContain('<button type="submit">Continue</button>');
    expect(html).toContain(`value="${auth.user_code}"`);
    const done = await enterCode(browser, auth.user_code.toLowerCase());
    expect(textOf(await done.text())).toContain("Device authorized");
    const res = await poll(app.uid, auth.device_code);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as OidcTokens;
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.refresh_token).toBeTruthy();
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(200);
    // A device code is redeemed once.
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("invalid_grant");
    expect((await refresh(app, tokens.refresh_token)).status).toBe(200);
  });

  it("§3.5: Deny makes the next poll access_denied", async () => {
    const { app, auth } = await start();
    const { browser } = await signedInUser();
    const done = await enterCode(browser, auth.user_code, "deny");
    expect(textOf(await done.text())).toContain("Access denied");
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("access_denied");
  });

  it("§3.5: an expired device code is expired_token; the page says so for an expired code and for an unknown one", async () => {
    const { app, auth } = await start();
    await env.DB.prepare("UPDATE oauth_device_grants SET expires_at = ? WHERE id = (SELECT max(id) FROM oauth_device_grants)").bind(Date.now() - 1).run();
    expect(await errorOf(await poll(app.uid, auth.device_code))).toBe("expired_token");
    const { browser } = await signedInUser();
    await browser.get("/oauth/device");
    const expired = await browser.post("/oauth/device", { user_code: auth.user_code });
    expect(expired.status).toBe(422);
    expect(textOf(await expired.text())).toContain("That code has expired");
    const unknown = await browser.post("/oauth/device", { user_code: "BBBB-BBBB" });
    expect(textOf(await unknown.text())).toContain("That code is not valid");
  });

  it("§3.5 single redemption: of concurrent polls and of concurrent redemptions of an approved code exactly one redeems (a poll that sees it redeemed gets that same answer)", async () => {
    const { app, auth } = await start();
    const { browser } = await signedInUser();
    await enterCode(browser, auth.user_code);
    await waitInterval(auth.device_code);
    const polls = await Promise.all(Array.from({ length: 6 }, () => tokenRequest({ grant_type: GRANT, client_id: app.uid, device_code: auth.device_code })));
    const answered = await Promise.all(polls.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as { access_token: string }).access_token));
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answered).size).toBe(1);
    const families = await env.DB.prepare("SELECT count(*) AS n FROM oauth_token_families WHERE application_id = ? AND grant_type = 'device_code'").bind(app.id).first<{ n: number }>();
    expect(families!.n).toBe(1);

    const second = await start();
    await enterCode(browser, second.auth.user_code);
    const { id } = (await env.DB.prepare("SELECT max(id) AS id FROM oauth_device_grants").first<{ id: number }>())!;
    const wins = await Promise.all(Array.from({ length: 6 }, () => redeemDeviceGrant(env.DB, id, "sealed answer", Date.now())));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it("the device code belongs to its client: another client's poll is invalid_grant", async () => {
    const { auth } = await start();
    const other = await makeApp({ confidential: false });
    expect(await errorOf(await poll(other.app.uid, auth.device_code))).toBe("invalid_grant");
  });

  it("OIDC: a device grant with openid also returns an id_token for the person who authorized", async () => {
    const { app, auth } = await start(["openid", "profile"], "openid profile");
    const { user, browser } = await signedInUser();
    await enterCode(browser, auth.user_code);
    const tokens = (await (await poll(app.uid, auth.device_code)).json()) as OidcTokens;
    expect((await verifyIdToken(tokens.id_token!, app.uid)).sub).toBe(String(user.id));
  });

  it("throttled code entry: after 10 wrong codes in a minute the page answers 429 with Retry-After, even for a valid code, and from that address for anyone", async () => {
    const { auth } = await start();
    const { browser } = await signedInUser();
    await browser.get("/oauth/device");
    const ip = "192.0.2.44";
    for (let i = 0; i < 10; i++) expect((await postCodeFrom(browser, ip, "BBBB-BBBB")).status).toBe(422);
    const refused = await postCodeFrom(browser, ip, auth.user_code);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await signedInUser();
    await other.browser.get("/oauth/device");
    expect((await postCodeFrom(other.browser, ip, auth.user_code)).status).toBe(429);
    // The same person from another address is still banned: people are counted too.
    expect((await postCodeFrom(browser, "192.0.2.45", auth.user_code)).status).toBe(429);
  });

  it("the page asks a signed-out person to sign in first and comes back with the code", async () => {
    const res = await new Browser().get("/oauth/device?user_code=BBBB-CCCC");
    expect(res.status).toBe(302);
    expect(decodeURIComponent(res.headers.get("location")!)).toContain("redirect_to=/oauth/device?user_code=BBBB-CCCC");
  });
});
