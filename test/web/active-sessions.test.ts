import { describe, expect, it } from "vitest";
import { base32Decode, totp } from "../../src/crypto/totp";
import { Browser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, makeUser } from "../helpers/fixtures";

/** Issue 12, "Account controls": active sessions, ending other sessions, the authentication log. */
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

/** A browser that sends a User-Agent and a client address, as a real one behind Cloudflare would. */
function browserAs(ua: string, ip: string): Browser {
  const b = new Browser();
  const fetch = b.fetch.bind(b);
  b.fetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("User-Agent", ua);
    headers.set("CF-Connecting-IP", ip);
    return fetch(path, { ...init, headers });
  };
  return b;
}

async function twoBrowsers() {
  const user = await makeUser();
  const laptop = browserAs(FIREFOX, "192.0.2.10");
  const phone = browserAs(CHROME_MAC, "198.51.100.7");
  expect((await laptop.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
  expect((await phone.signIn(user.username, TEST_PASSWORD, "/")).status).toBe(303);
  return { user, laptop, phone };
}
const signedIn = async (b: Browser) => (await b.get("/profile/active_sessions")).status === 200;

describe("/profile/active_sessions (GitLab's Active sessions)", () => {
  it("lists each signed-in browser with browser, address and times, the current one marked", async () => {
    const { laptop } = await twoBrowsers();
    const res = await laptop.get("/profile/active_sessions");
    expect(res.status).toBe(200);
    const html = await res.text();
    const text = textOf(html);
    expect(text).toContain("Firefox on Linux");
    expect(text).toContain("Chrome on macOS");
    expect(text).toContain("192.0.2.10");
    expect(text).toContain("198.51.100.7");
    expect(html.match(/data-session="current"/g)).toHaveLength(1);
    expect(html).toMatch(/<tr data-session="current"><td>Firefox on Linux/);
    // Revoke is offered for the other session only, behind a confirmation.
    expect(html.match(/\/revoke"/g)).toHaveLength(1);
    expect(html).toContain('data-confirm="Are you sure? The device will be signed out of GitLab."');
  });

  it("revoke signs the other browser out at once and is audited", async () => {
    const { laptop, phone } = await twoBrowsers();
    const html = await (await laptop.get("/profile/active_sessions")).text();
    const action = /action="(\/profile\/active_sessions\/[0-9a-f]{64}\/revoke)"/.exec(html)![1];
    const res = await laptop.post(action, {});
    expect(res.status).toBe(303);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
    expect(textOf(await (await laptop.get("/profile/authentication_log")).text())).toContain("A session was revoked");
  });

  it("refuses a revoke without the CSRF token (403) and keeps the session", async () => {
    const { laptop, phone } = await twoBrowsers();
    const html = await (await laptop.get("/profile/active_sessions")).text();
    const action = /action="(\/profile\/active_sessions\/[0-9a-f]{64}\/revoke)"/.exec(html)![1];
    const res = await laptop.post(action, {}, { csrf: false });
    expect(res.status).toBe(403);
    expect(await signedIn(phone)).toBe(true);
  });

  it("cannot end another user's session", async () => {
    const { phone } = await twoBrowsers();
    const other = await twoBrowsers();
    const html = await (await other.laptop.get("/profile/active_sessions")).text();
    const action = /action="(\/profile\/active_sessions\/[0-9a-f]{64}\/revoke)"/.exec(html)![1];
    await phone.get("/profile/active_sessions");
    await phone.post(action, {});
    expect(await signedIn(other.phone)).toBe(true);
  });
});

describe("changing the password or two-factor settings ends the user's other sessions (Account controls)", () => {
  it("a password change keeps this browser signed in and signs the others out; the new password works", async () => {
    const { user, laptop, phone } = await twoBrowsers();
    await laptop.get("/profile/password/edit");
    const res = await laptop.post("/profile/password", { current_password: TEST_PASSWORD, password: "a brand new passphrase", password_confirmation: "a brand new passphrase" });
    expect(res.status).toBe(303);
    expect(await signedIn(laptop)).toBe(true);
    expect(await signedIn(phone)).toBe(false);
    expect((await new Browser().signIn(user.username, "a brand new passphrase")).status).toBe(303);
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).toBe(401);
  });

  it("refuses a wrong current password or a mismatched confirmation (422) and ends nothing", async () => {
    const { laptop, phone } = await twoBrowsers();
    await laptop.get("/profile/password/edit");
    const wrong = await laptop.post("/profile/password", { current_password: "not it at all", password: "a brand new passphrase", password_confirmation: "a brand new passphrase" });
    expect(wrong.status).toBe(422);
    expect(textOf(await wrong.text())).toContain("You must provide a valid current password.");
    const mismatch = await laptop.post("/profile/password", { current_password: TEST_PASSWORD, password: "a brand new passphrase", password_confirmation: "another one entirely" });
    expect(mismatch.status).toBe(422);
    expect(await signedIn(phone)).toBe(true);
  });

  it("enabling two-factor authentication signs the other browsers out", async () => {
    const { laptop, phone } = await twoBrowsers();
    const html = await (await laptop.get("/profile/two_factor_auth")).text();
    const secret = /data-secret="([A-Z2-7]+)"/.exec(html)![1];
    const code = await totp(base32Decode(secret), Date.now() / 1000);
    const res = await laptop.post("/profile/two_factor_auth", { pin_code: code, current_password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(await signedIn(laptop)).toBe(true);
    expect(await signedIn(phone)).toBe(false);
  });
});

describe("/profile/authentication_log (GitLab's Authentication log)", () => {
  it("shows the user's own sign-ins and failed attempts with address, and nobody else's", async () => {
    const { user, laptop } = await twoBrowsers();
    await browserAs(FIREFOX, "203.0.113.99").signIn(user.username, "wrong password here");
    const stranger = await makeUser();
    await browserAs(FIREFOX, "203.0.113.250").signIn(stranger.username, "wrong password here");
    const text = textOf(await (await laptop.get("/profile/authentication_log")).text());
    expect(text).toContain("Signed in with a password");
    expect(text).toContain("Failed sign-in attempt");
    expect(text).toContain("203.0.113.99");
    expect(text).not.toContain("203.0.113.250");
  });

  it("asks a signed-out visitor to sign in", async () => {
    const res = await new Browser().get("/profile/authentication_log");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toContain("/users/sign_in");
  });
});
