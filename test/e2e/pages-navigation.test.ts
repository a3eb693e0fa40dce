import { describe, expect, inject, it } from "vitest";
import { apiCall, pagesSession, PASSWORD, rootToken, shot, signIn, unique } from "./pages-support";

/**
 * DESIGN.md "Pages people find their way through", as a person clicks: every section is reached
 * from the header; an administrator blocks a user in /admin, who then cannot sign in.
 */
const pages = pagesSession();
const base = pages.base;

async function makeAdmin(): Promise<{ username: string; password: string }> {
  const root = await rootToken(base, inject("rootPassword"));
  const username = unique("navadmin");
  await apiCall(base, "POST", "/users", root, { username, name: `Admin ${username}`, email: `${username}@example.com`, password: PASSWORD, skip_confirmation: true, admin: true });
  return { username, password: PASSWORD };
}

describe("header navigation in Chromium", () => {
  it("an administrator reaches projects, groups, applications, tokens and the admin area by the header's links, and signs out", async () => {
    const admin = await makeAdmin();
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, admin.username, admin.password);
    const header = page.getByRole("navigation", { name: "Main" });
    const sections: [string, string, string][] = [
      ["Projects", "/dashboard/projects", "Projects"],
      ["Groups", "/dashboard/groups", "Groups"],
      ["Applications", "/profile/applications", "Applications"],
      ["Access tokens", "/profile/personal_access_tokens", "Personal access tokens"],
      ["Admin", "/admin", "Admin area"],
    ];
    for (const [link, path, heading] of sections) {
      await header.getByRole("link", { name: link, exact: true }).click();
      await page.waitForURL(`${base}${path}`);
      await expect(page.locator("h1").first().textContent()).resolves.toContain(heading);
    }
    await page.getByRole("link", { name: "Users", exact: true }).click();
    await page.waitForURL(`${base}/admin/users`);
    await header.getByRole("button", { name: `Sign out ${admin.username}` }).click();
    await page.waitForLoadState("load");
    await expect(header.getByRole("link", { name: "Sign in" }).count()).resolves.toBe(1);
    await ctx.close();
  });

  it("a visitor explores public projects and opens one", async () => {
    const admin = await makeAdmin();
    const token = (await (await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: admin.username, password: admin.password }) })).json()) as { access_token: string };
    const path = unique("public-");
    const project = (await apiCall(base, "POST", "/projects", token.access_token, { name: `Public ${path}`, path, visibility: "public" })) as { path_with_namespace: string };
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Explore" }).click();
    await page.waitForURL(`${base}/explore/projects`);
    await page.getByRole("link", { name: `Public ${path}` }).click();
    await page.waitForURL(`${base}/${project.path_with_namespace}`);
    await expect(page.locator("#clone-url").textContent()).resolves.toBe(`${base}/${project.path_with_namespace}.git`);
    await ctx.close();
  });
});

describe("/admin/users in Chromium", () => {
  it("an administrator finds a user, blocks them after the confirmation, and the user can no longer sign in", async () => {
    const admin = await makeAdmin();
    const user = await pages.createUser("blockme");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, admin.username, admin.password);
    await page.goto(`${base}/admin/users`);
    await page.getByLabel("Search by username, name or email").fill(user.username);
    await page.getByRole("button", { name: "Search" }).click();
    // The user's own link, not its row's "Edit @username" action.
    await page.getByRole("link", { name: new RegExp(`@${user.username}`) }).and(page.locator(`a[href="/admin/users/${user.username}"]`)).click();
    await page.waitForURL(`${base}/admin/users/${user.username}`);
    // Dismissing the confirmation keeps the account as it was.
    page.once("dialog", (d) => d.dismiss());
    await page.getByRole("button", { name: "Block" }).click();
    await expect(page.locator("#user-state").textContent()).resolves.toContain("active");
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Block" }).click();
    await page.waitForLoadState("load");
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(`@${user.username} was blocked.`);
    await expect(page.locator("#user-state").textContent()).resolves.toContain("blocked");
    await shot(page, "admin-user-blocked");
    const theirs = await pages.newContext();
    const theirPage = await theirs.newPage();
    await signIn(theirPage, base, user.username, user.password);
    expect(new URL(theirPage.url()).pathname).toBe("/users/sign_in");
    await expect(theirPage.getByRole("alert").textContent()).resolves.toMatch(/blocked|Invalid/);
    await theirs.close();
    await ctx.close();
  });
});
