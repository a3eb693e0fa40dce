import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createProject } from "../../src/db/namespaces";
import { enableOtp } from "../../src/db/two-factor";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { REDIRECT, makeApp, pkce, pkceTokens, refresh } from "../oauth/helpers";
import { latestMailTo } from "../helpers/outbox";

/**
 * GitLab's account recovery for administrators (DESIGN, "Pages people find their way through":
 * accounts can be recovered): PUT /api/v4/users/:id and PATCH /api/v4/users/:id/disable_two_factor.
 */
const NEW_PASSWORD = "a brand new Password 42";
const put = (id: number, body: unknown, token: string) =>
  call(`/api/v4/users/${id}`, { method: "PUT", token, body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
const disable2fa = (id: number, token: string) => call(`/api/v4/users/${id}/disable_two_factor`, { method: "PATCH", token });
const auditRows = (userId: number, action: string) =>
  env.DB.prepare("SELECT author_id, details FROM audit_events WHERE entity_type = 'user' AND entity_id = ? AND action = ? ORDER BY id").bind(String(userId), action).all<{ author_id: number; details: string }>();

describe("PUT /api/v4/users/:id (GitLab's users API, administrators)", () => {
  it("changes name, username and admin and answers the user entity; audited user_updated naming the fields", async () => {
    const { user: admin, token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const username = unique("renamed");
    const res = await put(user.id, { name: "Renamed Person", username, admin: true }, token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; name: string; username: string; is_admin: boolean; email: string };
    expect(body).toMatchObject({ id: user.id, name: "Renamed Person", username, is_admin: true, email: user.email });
    const rows = (await auditRows(user.id, "user_updated")).results;
    expect(rows).toHaveLength(1);
    expect(rows[0].author_id).toBe(admin.id);
    expect(JSON.parse(rows[0].details).fields.sort()).toEqual(["admin", "name", "username"]);
  });

  it("a new username renames the personal namespace: the user's projects answer at the new path", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const project = await createProject(getDb(env.DB), { name: "mine", path: "mine", namespace: { kind: "user", id: user.id, fullPath: user.username }, visibility: "private", description: "", creatorId: user.id });
    const username = unique("moved");
    expect((await put(user.id, { username }, token)).status).toBe(200);
    const shown = (await (await call(`/api/v4/projects/${project.id}`, { token })).json()) as { path_with_namespace: string };
    expect(shown.path_with_namespace).toBe(`${username}/mine`);
  });

  it("is 403 for a non-administrator, 404 for an unknown user, 409 for a taken username or email, 400 for a weak password or an invalid username", async () => {
    const { token: plain } = await makeUserWithToken();
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const other = await makeUser();
    expect((await put(user.id, { name: "x" }, plain)).status).toBe(403);
    const missing = await put(999_999_999, { name: "x" }, token);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "404 User Not Found" });
    const takenName = await put(user.id, { username: other.username }, token);
    expect(takenName.status).toBe(409);
    expect(await takenName.json()).toEqual({ message: { username: ["has already been taken"] } });
    const takenEmail = await put(user.id, { email: other.email.toUpperCase() }, token);
    expect(takenEmail.status).toBe(409);
    expect(await takenEmail.json()).toEqual({ message: { email: ["has already been taken"] } });
    const weak = await put(user.id, { password: "short" }, token);
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { message: { password: string[] } }).message.password[0]).toMatch(/too short/);
    expect((await put(user.id, { username: "bad name!" }, token)).status).toBe(400);
  });

  it("a password set by an administrator ends the user's sessions and OAuth grants (personal access tokens stay, as GitLab keeps them)", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const { user, app, tokens, browser } = await pkceTokens();
    const pat = await makePat(user.id);
    expect((await browser.get("/profile/password/edit")).status).toBe(200);
    expect((await put(user.id, { password: NEW_PASSWORD }, token)).status).toBe(200);
    expect((await browser.get("/profile/password/edit")).status).toBe(302);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(app, tokens.refresh_token)).status).toBe(400);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(200);
    const rows = (await auditRows(user.id, "user_updated")).results;
    expect(JSON.parse(rows[0].details)).toEqual({ fields: ["password"] });
    expect(rows[0].details).not.toContain(NEW_PASSWORD);
  });

  it("a password set by an administrator must be changed at the next sign-in (GitLab's password_expires_at): sign-in leads to /profile/password/new, every page too, until the user chooses their own", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    expect((await put(user.id, { password: NEW_PASSWORD }, token)).status).toBe(200);
    const browser = new Browser();
    expect((await browser.signIn(user.username, TEST_PASSWORD)).status).toBe(401);
    const signedIn = await browser.signIn(user.username, NEW_PASSWORD, "/profile/personal_access_tokens");
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(`/profile/password/new?redirect_to=${encodeURIComponent("/profile/personal_access_tokens")}`);
    const elsewhere = await browser.get("/profile/applications");
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get("location")).toMatch(/^\/profile\/password\/new\?redirect_to=/);
    const form = await browser.get("/profile/password/new?redirect_to=%2Fprofile%2Fpersonal_access_tokens");
    expect(textOf(await form.text())).toContain("Set up new password");
    const same = await browser.post("/profile/password/new", { current_password: NEW_PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, redirect_to: "/profile/personal_access_tokens" });
    expect(same.status).toBe(422);
    const chosen = "the user's own Password 7";
    const done = await browser.post("/profile/password/new", { current_password: NEW_PASSWORD, password: chosen, password_confirmation: chosen, redirect_to: "/profile/personal_access_tokens" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/profile/personal_access_tokens");
    expect((await browser.get("/profile/applications")).status).toBe(200);
  });

  it("an OAuth authorization request waits too: with an expired password /oauth/authorize leads to /profile/password/new, and back to the request after", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    expect((await put(user.id, { password: NEW_PASSWORD }, token)).status).toBe(200);
    const browser = new Browser();
    await browser.signIn(user.username, NEW_PASSWORD, "/");
    const { app } = await makeApp({ confidential: false });
    const { challenge } = await pkce();
    const query = new URLSearchParams({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", scope: "api", code_challenge: challenge, code_challenge_method: "S256", state: "s1" });
    const res = await browser.get(`/oauth/authorize?${query}`);
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/profile\/password\/new\?redirect_to=%2Foauth%2Fauthorize%3Fpending%3D/);
    await browser.get(location);
    const chosen = "my own Password after all 3";
    const done = await browser.post("/profile/password/new", { current_password: NEW_PASSWORD, password: chosen, password_confirmation: chosen, redirect_to: decodeURIComponent(location.split("redirect_to=")[1]) });
    const back = await browser.get(done.headers.get("location")!);
    expect(back.status).toBe(200);
    expect(textOf(await back.text())).toContain("Authorize");
  });

  it("a password set by an administrator gives no API token (password grant invalid_grant) until the user chose their own", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    expect((await put(user.id, { password: NEW_PASSWORD }, token)).status).toBe(200);
    const grant = () => call("/oauth/token", { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: NEW_PASSWORD }) });
    const refused = await grant();
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string; error_description: string })).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("expired") });
    await env.DB.prepare("UPDATE users SET password_expires_at = NULL WHERE id = ?").bind(user.id).run();
    expect((await grant()).status).toBe(200);
  });

  it("an administrator's own new password does not expire", async () => {
    const { user: admin, token } = await makeUserWithToken({ isAdmin: true });
    expect((await put(admin.id, { password: NEW_PASSWORD }, token)).status).toBe(200);
    const browser = new Browser();
    const res = await browser.signIn(admin.username, NEW_PASSWORD, "/");
    expect(res.headers.get("location")).toBe("/");
  });

  it("a new email waits for confirmation by mail (GitLab's unconfirmed_email); the link makes it the primary address, once", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const email = `${unique("new")}@example.com`;
    const res = await put(user.id, { email }, token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { email: string }).email).toBe(user.email);
    const mail = await latestMailTo(email);
    expect(mail.subject).toBe("Confirmation instructions");
    const link = /http:\/\/localhost(\/users\/confirmation\?confirmation_token=[0-9a-f]{64})/.exec(mail.body_text)![1];
    const stored = await env.DB.prepare("SELECT unconfirmed_email, confirmation_token_hash FROM users WHERE id = ?").bind(user.id).first<{ unconfirmed_email: string; confirmation_token_hash: string }>();
    expect(stored!.unconfirmed_email).toBe(email);
    expect(link).not.toContain(stored!.confirmation_token_hash);
    const browser = new Browser();
    expect((await browser.get(link)).headers.get("location")).toBe("/users/sign_in");
    expect(textOf(await (await browser.get("/users/sign_in")).text())).toContain("Your email address has been successfully confirmed.");
    expect(((await (await call(`/api/v4/users/${user.id}`, { token })).json()) as { email: string }).email).toBe(email);
    expect((await auditRows(user.id, "email_confirmed")).results).toHaveLength(1);
    await browser.get(link);
    expect(textOf(await (await browser.get("/users/sign_in")).text())).toContain("Confirmation token is invalid or has expired");
  });

  it("skip_reconfirmation sets the email at once, without mail", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const email = `${unique("direct")}@example.com`;
    const res = await put(user.id, { email, skip_reconfirmation: true }, token);
    expect(((await res.json()) as { email: string }).email).toBe(email);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM mail_outbox WHERE to_address = ?").bind(email).first("n")).toBe(0);
  });
});

describe("PATCH /api/v4/users/:id/disable_two_factor (GitLab's users API)", () => {
  it("answers 204 and turns two-factor off: the user signs in with the password alone; audited two_factor_disabled by the administrator", async () => {
    const { user: admin, token } = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    await enableOtp(getDb(env.DB), user.id, "[]");
    const res = await disable2fa(user.id, token);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const browser = new Browser();
    expect((await browser.signIn(user.username, TEST_PASSWORD, "/")).headers.get("location")).toBe("/");
    const rows = (await auditRows(user.id, "two_factor_disabled")).results;
    expect(rows.map((r) => [r.author_id, JSON.parse(r.details)])).toEqual([[admin.id, { by_admin: true }]]);
  });

  it("is 400 when two-factor is not enabled, 403 for a non-administrator and for an administrator's account (GitLab), 404 for an unknown user", async () => {
    const { token } = await makeUserWithToken({ isAdmin: true });
    const { token: plain } = await makeUserWithToken();
    const user = await makeUser();
    const notEnabled = await disable2fa(user.id, token);
    expect(notEnabled.status).toBe(400);
    expect(await notEnabled.json()).toEqual({ message: "400 Bad request - Two-factor authentication is not enabled for this user" });
    await enableOtp(getDb(env.DB), user.id, "[]");
    expect((await disable2fa(user.id, plain)).status).toBe(403);
    const otherAdmin = await makeUser({ isAdmin: true });
    await enableOtp(getDb(env.DB), otherAdmin.id, "[]");
    const adminTarget = await disable2fa(otherAdmin.id, token);
    expect(adminTarget.status).toBe(403);
    expect(((await adminTarget.json()) as { message: string }).message).toMatch(/^403 Forbidden - Two-factor authentication for admins cannot be disabled via the API/);
    expect((await disable2fa(999_999_999, token)).status).toBe(404);
  });
});

describe("the admin user page: Disable two-factor authentication", () => {
  it("shows the button while two-factor is enabled; pressing it turns it off (for an administrator too) and says so", async () => {
    const admin = await makeUser({ isAdmin: true });
    const browser = new Browser();
    await browser.signIn(admin.username, TEST_PASSWORD, "/");
    const user = await makeUser({ isAdmin: true });
    const page = async () => textOf(await (await browser.get(`/admin/users/${user.username}`)).text());
    expect(await page()).not.toContain("Disable two-factor authentication");
    await enableOtp(getDb(env.DB), user.id, "[]");
    expect(await page()).toContain("Disable two-factor authentication");
    const res = await browser.post(`/admin/users/${user.username}/disable_two_factor`, {});
    expect(res.status).toBe(303);
    const after = await page();
    expect(after).toContain(`Two-factor authentication has been disabled for @${user.username}.`);
    expect(after).not.toContain("Disable two-factor authentication?");
    const row = await env.DB.prepare("SELECT otp_required FROM users WHERE id = ?").bind(user.id).first<{ otp_required: number }>();
    expect(row!.otp_required).toBe(0);
  });

  it("a non-administrator cannot use it", async () => {
    const { browser } = await signedInUser();
    const user = await makeUser();
    await enableOtp(getDb(env.DB), user.id, "[]");
    await browser.get("/profile/password/edit");
    const res = await browser.post(`/admin/users/${user.username}/disable_two_factor`, {});
    expect(res.status).toBe(404);
    expect((await env.DB.prepare("SELECT otp_required FROM users WHERE id = ?").bind(user.id).first<{ otp_required: number }>())!.otp_required).toBe(1);
  });
});
