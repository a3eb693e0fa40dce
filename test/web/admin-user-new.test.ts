import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Browser, textOf } from "../helpers/browser";
import { makeUser, TEST_PASSWORD, unique } from "../helpers/fixtures";

/** GitLab's admin area, New user (/admin/users/new): the service of POST /api/v4/users, from a page. */

async function adminBrowser() {
  const admin = await makeUser({ isAdmin: true });
  const browser = new Browser();
  expect((await browser.signIn(admin.username, TEST_PASSWORD, "/")).status).toBe(303);
  return browser;
}

describe("GitLab admin area: New user", () => {
  it("an administrator creates a user who can then sign in; the list offers New user", async () => {
    const browser = await adminBrowser();
    expect(await (await browser.get("/admin/users")).text()).toContain('href="/admin/users/new"');
    expect((await browser.get("/admin/users/new")).status).toBe(200);
    const username = unique("made");
    const res = await browser.post("/admin/users", { name: "Made Here", username, email: `${username}@example.com`, password: "a sturdy pass phrase 42" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/admin/users/${username}`);
    const row = await env.DB.prepare("SELECT is_admin FROM users WHERE username = ?").bind(username).first<{ is_admin: number }>();
    expect(row?.is_admin).toBe(0);
    expect((await new Browser().signIn(username, "a sturdy pass phrase 42", "/")).status).toBe(303);
  });

  it("refusals are the API's words, shown on the form (422): a taken username, a weak password", async () => {
    const browser = await adminBrowser();
    const taken = await makeUser();
    await browser.get("/admin/users/new");
    const dup = await browser.post("/admin/users", { name: "X", username: taken.username, email: `${unique("e")}@example.com`, password: "a sturdy pass phrase 42" });
    expect(dup.status).toBe(422);
    expect(textOf(await dup.text())).toContain("Username has already been taken");
    await browser.get("/admin/users/new");
    const weak = await browser.post("/admin/users", { name: "X", username: unique("w"), email: `${unique("e")}@example.com`, password: "short" });
    expect(weak.status).toBe(422);
    expect(textOf(await weak.text())).toContain("Password");
  });

  it("someone who is not an administrator gets the 404 page; a post without the CSRF token is refused (403)", async () => {
    const user = await makeUser();
    const browser = new Browser();
    await browser.signIn(user.username, TEST_PASSWORD, "/");
    expect((await browser.get("/admin/users/new")).status).toBe(404);
    const admin = await adminBrowser();
    await admin.get("/admin/users/new");
    expect((await admin.post("/admin/users", { name: "X", username: unique("c"), email: `${unique("e")}@example.com`, password: "a sturdy pass phrase 42" }, { csrf: false })).status).toBe(403);
  });
});
