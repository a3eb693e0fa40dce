import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyPasswordLogin } from "../../src/services/accounts/password-login";
import { Browser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUser, makeUserWithToken } from "../helpers/fixtures";

const ATTACKER = "203.0.113.80";

async function lockOut(username: string) {
  for (let i = 0; i < 10; i++) await verifyPasswordLogin(env, username, `wrong-${i}`, ATTACKER).catch(() => undefined);
  await expect(verifyPasswordLogin(env, username, TEST_PASSWORD, ATTACKER)).rejects.toMatchObject({ details: { reason: "invalid" } });
}

const audits = async (action: string, entityId: number) =>
  (await env.DB.prepare("SELECT author_id AS author FROM audit_events WHERE action = ? AND entity_id = ?").bind(action, String(entityId)).all<{ author: number }>()).results;

describe("POST /api/v4/users/:id/unlock: administrators can unlock; audited", () => {
  it("an administrator lifts every address's lock: the right password works again from the locked address; `locked` turns false; audited with the admin as author", async () => {
    const user = await makeUser();
    await lockOut(user.username);
    const { user: admin, token } = await makeUserWithToken({ isAdmin: true });
    const shown = (await (await call(`/api/v4/users/${user.id}`, { token })).json()) as { locked: boolean };
    expect(shown.locked).toBe(true);
    const res = await call(`/api/v4/users/${user.id}/unlock`, { method: "POST", token });
    expect(res.status).toBe(201);
    expect(await res.json()).toBe(true);
    expect((await verifyPasswordLogin(env, user.username, TEST_PASSWORD, ATTACKER)).id).toBe(user.id);
    expect(((await (await call(`/api/v4/users/${user.id}`, { token })).json()) as { locked: boolean }).locked).toBe(false);
    expect(await audits("lockout", user.id)).toHaveLength(1);
    expect(await audits("account_unlocked", user.id)).toEqual([{ author: admin.id }]);
  });

  it("GitLab errors: not an administrator 403; unknown user 404; bad id 400", async () => {
    const user = await makeUser();
    const { token } = await makeUserWithToken();
    expect((await call(`/api/v4/users/${user.id}/unlock`, { method: "POST", token })).status).toBe(403);
    const admin = await makeUserWithToken({ isAdmin: true });
    const missing = await call(`/api/v4/users/999999/unlock`, { method: "POST", token: admin.token });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: "404 User Not Found" });
    expect((await call(`/api/v4/users/abc/unlock`, { method: "POST", token: admin.token })).status).toBe(400);
  });
});

describe("admin page /admin/users/:username/lockout: the unlock button", () => {
  it("lists the locked address and the Unlock button unlocks (CSRF-protected POST), audited", async () => {
    const user = await makeUser();
    await lockOut(user.username);
    const admin = await makeUser({ isAdmin: true });
    const b = new Browser();
    expect((await b.signIn(admin.username, TEST_PASSWORD)).status).toBe(303);
    const page = await b.get(`/admin/users/${user.username}/lockout`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(textOf(await page.text())).toContain(ATTACKER);
    expect((await b.post(`/admin/users/${user.username}/unlock`, {}, { csrf: false })).status).toBe(403);
    const done = await b.post(`/admin/users/${user.username}/unlock`, {});
    expect(done.status).toBe(303);
    const after = await b.get(`/admin/users/${user.username}/lockout`);
    const text = textOf(await after.text());
    expect(text).toContain("Unlocked @");
    expect(text).toContain("No address is locked out of this account.");
    expect(await audits("account_unlocked", user.id)).toEqual([{ author: admin.id }]);
  });

  it("is not there for a user who is not an administrator (404)", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const b = new Browser();
    await b.signIn(other.username, TEST_PASSWORD);
    expect((await b.get(`/admin/users/${user.username}/lockout`)).status).toBe(404);
  });
});
