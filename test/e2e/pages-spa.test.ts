import { describe, expect, it } from "vitest";
import { pagesSession, shot } from "./pages-support";

/**
 * Issue 3 in headless Chromium: the demo SPA at /-/demo/spa runs authorization code with PKCE in
 * the browser, shows /api/v4/user, refreshes (the old pair dies), and revokes on "Sign out".
 */
const pages = pagesSession();
const base = pages.base;

const userStatus = (token: string) => fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);

describe("demo SPA: PKCE in the browser, refresh, sign-out", () => {
  it("signs in with PKCE, shows /api/v4/user, refreshes and revokes on Sign out", async () => {
    const user = await pages.createUser("spa");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    const tokenRequests: string[] = [];
    const authorizeRequests: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/oauth/token")) tokenRequests.push(r.postData() ?? "");
      if (r.url().includes("/oauth/authorize?client_id=")) authorizeRequests.push(r.url());
    });
    await page.goto(`${base}/-/demo/spa`);
    await shot(page, "spa-signed-out");
    await page.getByRole("button", { name: "Sign in with Edge Auth" }).click();
    await page.waitForURL(/\/users\/sign_in/);
    // The sign-in redirect names the pending request by id; the SPA's own authorize URL carries the PKCE parameters.
    expect(new URL(page.url()).searchParams.get("redirect_to")).toMatch(/^\/oauth\/authorize\?pending=/);
    const authorize = new URL(authorizeRequests[0]);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("state")!.length).toBeGreaterThanOrEqual(43);
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL(`${base}/-/demo/spa`);
    await page.locator("#signed-in").waitFor({ state: "visible" });
    expect(await page.locator("#user-name").textContent()).toContain(`@${user.username}`);
    expect(await page.locator("#user-json").textContent()).toContain(`"username": "${user.username}"`);
    await shot(page, "spa-signed-in");
    // Issue 13, page polish: the signed-in SPA (user JSON, tokens) fits a desktop and a phone.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(fits, `demo SPA overflows at ${width}px`).toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    // The exchange carried the verifier and no secret (a public client).
    expect(tokenRequests[0]).toContain("code_verifier=");
    expect(tokenRequests[0]).not.toContain("client_secret");

    const first = JSON.parse((await page.evaluate(() => sessionStorage.getItem("spa.tokens")))!) as { access: string; refresh: string };
    expect(await userStatus(first.access)).toBe(200);

    await page.getByRole("button", { name: "Refresh tokens" }).click();
    await page.getByText("Tokens refreshed").waitFor();
    const second = JSON.parse((await page.evaluate(() => sessionStorage.getItem("spa.tokens")))!) as { access: string; refresh: string };
    expect(second.access).not.toBe(first.access);
    expect(await userStatus(first.access)).toBe(401);
    expect(await userStatus(second.access)).toBe(200);
    await shot(page, "spa-refreshed");

    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.getByText("Signed out: the tokens were revoked.").waitFor();
    expect(await userStatus(second.access)).toBe(401);
    expect(await page.evaluate(() => sessionStorage.getItem("spa.tokens"))).toBeNull();
    await shot(page, "spa-signed-out-revoked");
    await ctx.close();
  });

  it("refuses a callback whose state this tab did not send", async () => {
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/-/demo/spa?code=forged&state=forged`);
    await page.getByText("The state does not match").waitFor();
    expect(await page.locator("#signed-in").isHidden()).toBe(true);
    await shot(page, "spa-state-mismatch");
    await ctx.close();
  });
});
