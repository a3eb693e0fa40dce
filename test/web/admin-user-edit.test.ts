import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Browser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUser, unique } from "../helpers/fixtures";
import { latestMailTo } from "../helpers/outbox";

/**
 * GitLab's admin area, Edit user (/admin/users/:username/edit): the service of PUT /api/v4/users/:id
 * (src/services/accounts/user-edit.ts) from a page, behind the page door's CSRF and Origin checks.
 */
const NEW_PASSWORD = "a brand new Password 42";

async function adminBrowser() {
  const admin = await makeUser({ isAdmin: true });
  const browser = new Browser();
  expect((await browser.signIn(admin.username, TEST_PASSWORD, "/")).status).toBe(303);
  return { admin, browser };
}

const userRow = (id: number) =>
  env.DB.prepare("SELECT username, name, email, unconfirmed_email, is_admin, password_expires_at FROM users WHERE id = ?")
    .bind(id)
    .first<{ username: string; name: string; email: string; unconfirmed_email: string | null; is_admin: number; password_expires_at: number | null }>();
const auditFields = async (userId: number) =>
  (
    await env.DB.prepare("SELECT details FROM audit_events WHERE entity_type = 'user' AND entity_id = ? AND action = 'user_updated' ORDER BY id").bind(String(userId)).all<{ details: string }>()
  ).results.map((r) => JSON.parse(r.details).fields as string[]);

describe("GitLab admin area: Edit user", () => {
  it("edit: the user page and the list link the form; name, username, admin and email (skip reconfirmation) are saved and audited user_updated", async () => {
    const { browser } = await adminBrowser();
    const user = await makeUser();
    expect(await (await browser.get(`/admin/users/${user.username}`)).text()).toContain(`href="/admin/users/${user.username}/edit"`);
    expect(await (await browser.get(`/admin/users?search=${user.username}`)).text()).toContain(`href="/admin/users/${user.username}/edit"`);
    const page = await browser.get(`/admin/users/${user.username}/edit`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${user.email}"`);
    const username = unique("renamed");
    const email = `${username}@example.com`;
    const res = await browser.post(`/admin/users/${user.username}`, { name: "Renamed Person", username, email, skip_reconfirmation: "1", admin: "1" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/admin/users/${username}`);
    expect(textOf(await (await browser.get(`/admin/users/${username}`)).text())).toContain("User was successfully updated.");
    expect(await userRow(user.id)).toMatchObject({ username, name: "Renamed Person", email, is_admin: 1, password_expires_at: null });
    expect((await auditFields(user.id)).at(-1)).toEqual(expect.arrayContaining(["name", "username", "email", "admin"]));
  });

  it("edit: a new email without skip reconfirmation waits for the mailed confirmation, as the API's", async () => {
    const { browser } = await adminBrowser();
    const user = await makeUser();
    await browser.get(`/admin/users/${user.username}/edit`);
    const email = `${unique("pending")}@example.com`;
    const res = await browser.post(`/admin/users/${user.username}`, { name: user.name, username: user.username, email });
    expect(res.status).toBe(303);
    expect(await userRow(user.id)).toMatchObject({ email: user.email, unconfirmed_email: email });
    expect((await latestMailTo(email)).body_text).toContain("/users/confirmation?confirmation_token=");
  });

  it("edit: a password set here expires at once, so the user must choose their own at the next sign-in; the audit names the field, never the value", async () => {
    const { browser } = await adminBrowser();
    const user = await makeUser();
    await browser.get(`/admin/users/${user.username}/edit`);
    const res = await browser.post(`/admin/users/${user.username}`, { name: user.name, username: user.username, email: user.email, password: NEW_PASSWORD });
    expect(res.status).toBe(303);
    expect((await userRow(user.id))!.password_expires_at).not.toBeNull();
    const fields = (await auditFields(user.id)).at(-1)!;
    expect(fields).toEqual(["password"]);
    const signIn = await new Browser().signIn(user.username, NEW_PASSWORD, "/");
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toContain("/profile/password/new");
  });

  it("refusals: blank name, invalid or taken username, taken email and a weak password are shown on the form (422) and nothing changes", async () => {
    const { browser } = await adminBrowser();
    const user = await makeUser();
    const other = await makeUser();
    const base = { name: user.name, username: user.username, email: user.email };
    const cases: [Record<string, string>, string][] = [
      [{ ...base, name: "" }, "Name can't be blank"],
      [{ ...base, username: "-bad name-" }, "Username is invalid"],
      [{ ...base, username: other.username }, "Username has already been taken"],
      [{ ...base, email: other.email, skip_reconfirmation: "1" }, "Email has already been taken"],
      [{ ...base, password: "short" }, "Password is too short"],
    ];
    for (const [fields, message] of cases) {
      await browser.get(`/admin/users/${user.username}/edit`);
      const res = await browser.post(`/admin/users/${user.username}`, fields);
      expect(res.status, message).toBe(422);
      expect(textOf(await res.text()), message).toContain(message);
    }
    expect(await userRow(user.id)).toMatchObject({ username: user.username, name: user.name, email: user.email, password_expires_at: null });
    expect(await auditFields(user.id)).toEqual([]);
  });

  it("CSRF token missing refused (403), and a post from another origin refused, with nothing changed", async () => {
    const { browser } = await adminBrowser();
    const user = await makeUser();
    await browser.get(`/admin/users/${user.username}/edit`);
    const fields = { name: "Forged", username: user.username, email: user.email, admin: "1" };
    expect((await browser.post(`/admin/users/${user.username}`, fields, { csrf: false })).status).toBe(403);
    await browser.get(`/admin/users/${user.username}/edit`);
    expect((await browser.post(`/admin/users/${user.username}`, fields, { origin: "https://evil.example" })).status).toBe(403);
    expect(await userRow(user.id)).toMatchObject({ name: user.name, is_admin: 0 });
  });

  it("non-admin refused: the edit page and its post answer the 404 page, and nothing changes", async () => {
    const member = await makeUser();
    const user = await makeUser();
    const browser = new Browser();
    await browser.signIn(member.username, TEST_PASSWORD, "/");
    expect((await browser.get(`/admin/users/${user.username}/edit`)).status).toBe(404);
    await browser.get("/");
    expect((await browser.post(`/admin/users/${user.username}`, { name: "Taken Over", username: user.username, email: user.email, admin: "1" })).status).toBe(404);
    expect(await userRow(user.id)).toMatchObject({ name: user.name, is_admin: 0 });
  });

  it("anonymous sent to sign in, back to the edit page afterwards", async () => {
    const user = await makeUser();
    const res = await call(`/admin/users/${user.username}/edit`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/users/sign_in?redirect_to=${encodeURIComponent(`/admin/users/${user.username}/edit`)}`);
  });
});
