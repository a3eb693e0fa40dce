import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { base32Decode, totp } from "../../src/crypto/totp";
import { TEST_PASSWORD, callFrom, makeUser } from "../helpers/fixtures";
import { Browser, textOf } from "../helpers/browser";

/** The code of the step `offset` steps from now (the next step is still accepted: RFC 6238 §5.2 drift). */
async function codeFor(secret: string, offset = 0): Promise<string> {
  return totp(base32Decode(secret), Date.now() / 1000 + offset * 30);
}

async function enrolled() {
  const user = await makeUser();
  const b = new Browser();
  await b.signIn(user.username, TEST_PASSWORD);
  const page = await b.get("/profile/two_factor_auth");
  const html = await page.text();
  const secret = /data-secret="([A-Z2-7]+)"/.exec(html)![1];
  const res = await b.post("/profile/two_factor_auth", { pin_code: await codeFor(secret), current_password: TEST_PASSWORD });
  const codes = [...(await res.text()).matchAll(/<li><code>([0-9a-f]{16})<\/code><\/li>/g)].map((m) => m[1]);
  return { user, browser: b, secret, codes, status: res.status };
}

describe("two-factor enrolment /profile/two_factor_auth", () => {
  it("shows the secret, the otpauth:// URI and a QR code as SVG, with labelled fields", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const res = await b.get("/profile/two_factor_auth");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/otpauth:\/\/totp\/Edge%20Auth:[^"<]*\?secret=[A-Z2-7]{32}&amp;issuer=Edge\+Auth/);
    expect(html).toMatch(/<svg[^>]*viewBox/);
    expect(html).toContain('<label for="pin_code">Verification code</label>');
    expect(html).toContain('<label for="enable_password">Current password</label>');
    // The same pending secret on a second visit (two tabs agree).
    const again = await (await b.get("/profile/two_factor_auth")).text();
    expect(/data-secret="([A-Z2-7]+)"/.exec(again)![1]).toBe(/data-secret="([A-Z2-7]+)"/.exec(html)![1]);
    // Stored encrypted, never in plaintext.
    const row = await env.DB.prepare("SELECT otp_secret_enc FROM users WHERE id = ?").bind(user.id).first<{ otp_secret_enc: string }>();
    expect(row!.otp_secret_enc).toMatch(/^v1\./);
    expect(row!.otp_secret_enc).not.toContain(/data-secret="([A-Z2-7]+)"/.exec(html)![1]);
  });

  it("confirms with a code and the current password, then shows 10 recovery codes once, stored as hashes", async () => {
    const { user, codes, status, browser } = await enrolled();
    expect(status).toBe(200);
    expect(codes.length).toBe(10);
    expect(new Set(codes).size).toBe(10);
    const row = await env.DB.prepare("SELECT otp_required, otp_backup_code_hashes FROM users WHERE id = ?").bind(user.id).first<{ otp_required: number; otp_backup_code_hashes: string }>();
    expect(row!.otp_required).toBe(1);
    const hashes = JSON.parse(row!.otp_backup_code_hashes) as string[];
    expect(hashes.length).toBe(10);
    for (const code of codes) expect(row!.otp_backup_code_hashes).not.toContain(code);
    const later = await (await browser.get("/profile/two_factor_auth")).text();
    for (const code of codes) expect(later).not.toContain(code);
    expect(textOf(later)).toContain("Two-factor authentication is enabled");
  });

  it("refuses a wrong code or a wrong password and stays disabled", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const secret = /data-secret="([A-Z2-7]+)"/.exec(await (await b.get("/profile/two_factor_auth")).text())![1];
    const wrongCode = await b.post("/profile/two_factor_auth", { pin_code: "000000", current_password: TEST_PASSWORD });
    expect(wrongCode.status).toBe(422);
    expect(textOf(await wrongCode.text())).toContain("The verification code is invalid");
    const wrongPassword = await b.post("/profile/two_factor_auth", { pin_code: await codeFor(secret), current_password: "nope nope nope" });
    expect(wrongPassword.status).toBe(422);
    expect(textOf(await wrongPassword.text())).toContain("The current password is incorrect.");
    const row = await env.DB.prepare("SELECT otp_required FROM users WHERE id = ?").bind(user.id).first<{ otp_required: number }>();
    expect(row!.otp_required).toBe(0);
  });

  it("disables with the password only", async () => {
    const { user, browser } = await enrolled();
    expect((await browser.post("/profile/two_factor_auth/disable", { current_password: "wrong wrong" })).status).toBe(422);
    const res = await browser.post("/profile/two_factor_auth/disable", { current_password: TEST_PASSWORD });
    expect(res.status).toBe(303);
    const row = await env.DB.prepare("SELECT otp_required, otp_secret_enc FROM users WHERE id = ?").bind(user.id).first<{ otp_required: number; otp_secret_enc: string | null }>();
    expect(row).toEqual({ otp_required: 0, otp_secret_enc: null });
  });
});

describe("sign-in with two-factor: the second step", () => {
  it("asks for a Two-factor code after the password; the pending session is not signed in", async () => {
    const { user, secret } = await enrolled();
    const b = new Browser();
    const res = await b.signIn(user.username, TEST_PASSWORD, "/profile/personal_access_tokens");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/users/sign_in/two_factor?redirect_to=%2Fprofile%2Fpersonal_access_tokens");
    expect((await b.get("/profile/personal_access_tokens")).status).toBe(302);
    const step = await b.get("/users/sign_in/two_factor?redirect_to=%2Fprofile%2Fpersonal_access_tokens");
    expect(await step.text()).toContain('<label for="user_otp_attempt">Two-factor code</label>');
    const done = await b.post("/users/sign_in/two_factor", { otp_attempt: await codeFor(secret, 1), redirect_to: "/profile/personal_access_tokens" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/profile/personal_access_tokens");
    expect((await b.get("/profile/personal_access_tokens")).status).toBe(200);
  });

  it("refuses a TOTP code that was already used (RFC 6238 §5.2)", async () => {
    const { user, secret } = await enrolled();
    const code = await codeFor(secret, 1);
    const first = new Browser();
    await first.signIn(user.username, TEST_PASSWORD);
    await first.get("/users/sign_in/two_factor");
    expect((await first.post("/users/sign_in/two_factor", { otp_attempt: code })).status).toBe(303);
    const second = new Browser();
    await second.signIn(user.username, TEST_PASSWORD);
    await second.get("/users/sign_in/two_factor");
    const replay = await second.post("/users/sign_in/two_factor", { otp_attempt: code });
    expect(replay.status).toBe(401);
    expect(textOf(await replay.text())).toContain("Invalid two-factor code.");
  });

  it("accepts each recovery code once", async () => {
    const { user, codes } = await enrolled();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    await b.get("/users/sign_in/two_factor");
    expect((await b.post("/users/sign_in/two_factor", { otp_attempt: codes[3].toUpperCase() })).status).toBe(303);
    const c = new Browser();
    await c.signIn(user.username, TEST_PASSWORD);
    await c.get("/users/sign_in/two_factor");
    expect((await c.post("/users/sign_in/two_factor", { otp_attempt: codes[3] })).status).toBe(401);
    const row = await env.DB.prepare("SELECT otp_backup_code_hashes FROM users WHERE id = ?").bind(user.id).first<{ otp_backup_code_hashes: string }>();
    expect(JSON.parse(row!.otp_backup_code_hashes).length).toBe(9);
  });

  it("two concurrent uses of one recovery code: exactly one signs in", async () => {
    const { user, codes } = await enrolled();
    const browsers = await Promise.all(
      [0, 1, 2].map(async () => {
        const b = new Browser();
        await b.signIn(user.username, TEST_PASSWORD);
        await b.get("/users/sign_in/two_factor");
        return b;
      }),
    );
    const statuses = await Promise.all(browsers.map((b) => b.post("/users/sign_in/two_factor", { otp_attempt: codes[0] }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 303).length).toBe(1);
  });

  it("wrong codes count towards the lockout: 10 lock that address out of the account (back to sign-in, same message as a wrong password)", async () => {
    const { user } = await enrolled();
    const fromIp = (ip: string) => new Browser(callFrom(ip));
    const b = fromIp("203.0.113.50");
    await b.signIn(user.username, TEST_PASSWORD);
    await b.get("/users/sign_in/two_factor");
    for (let i = 0; i < 9; i++) expect((await b.post("/users/sign_in/two_factor", { otp_attempt: "000000" })).status).toBe(401);
    // The 10th starts the lock, and (being also the account-wide ceiling of 10 codes,
    // docs/security.md) ends the pending sign-in: back to the password.
    const locked = await b.post("/users/sign_in/two_factor", { otp_attempt: "000000" });
    expect(locked.status).toBe(401);
    expect(textOf(await locked.text())).toContain("Invalid username or password.");
    const again = fromIp("203.0.113.50");
    const res = await again.signIn(user.username, TEST_PASSWORD);
    expect(res.status).toBe(401);
    // The owner elsewhere still reaches the second step.
    const owner = fromIp("198.51.100.50");
    expect((await owner.signIn(user.username, TEST_PASSWORD)).headers.get("location")).toMatch(/^\/users\/sign_in\/two_factor/);
  });
});
