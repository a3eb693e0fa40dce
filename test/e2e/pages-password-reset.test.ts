import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { pagesSession, shot, signIn } from "./pages-support";

/**
 * DESIGN, "Pages people find their way through" (accounts can be recovered) in headless Chromium
 * against `npm start`: "Forgot your password?" on the sign-in page, the mail read in the local
 * outbox (/-/mail, GitLab's letter_opener), its link, the new password, sign-in with it. The pages
 * of the flow fit a 390 px phone and a 1280 px desktop.
 */
const pages = pagesSession();
const base = pages.base;
const NEW_PASSWORD = "my Reset password 2026";
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
];

async function fits(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/**
 * Opens the outbox once it lists `count` mails to the address: the link is mailed after the
 * answer (waitUntil), so the page is reloaded until it arrives, for at most 10 s.
 */
async function openOutboxWith(page: Page, email: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await page.goto(`${base}/-/mail`);
    if ((await page.locator("tr", { hasText: email }).count()) >= count) return;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} mails to ${email} at /-/mail after 10 s`);
    await page.waitForTimeout(100);
  }
}

describe("password reset by mail in Chromium, through the local outbox", () => {
  it("Forgot your password? → mail at /-/mail → its link → a new password → sign-in with it; each page fits 390 and 1280 px", async () => {
    const user = await pages.createUser("reset");
    const email = `${user.username}@example.com`;
    for (const [i, size] of WIDTHS.entries()) {
      const ctx = await pages.newContext();
      const page = await ctx.newPage();
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${base}/users/sign_in`);
      await page.getByRole("link", { name: "Forgot your password?" }).click();
      await page.waitForLoadState("load");
      expect(new URL(page.url()).pathname).toBe("/users/password/new");
      await fits(page);
      await shot(page, `password-reset-request-${size.name}`);
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Reset password" }).click();
      await page.waitForLoadState("load");
      expect(await page.textContent("main")).toContain("If your email address exists in our database, you will receive a password recovery link");

      // The developer's outbox: the newest mail to this address (one per width so far), and its link.
      await openOutboxWith(page, email, i + 1);
      await fits(page);
      await shot(page, `mail-outbox-${size.name}`);
      await page.locator("tr", { hasText: email }).first().getByRole("link", { name: "Reset password instructions" }).click();
      await page.waitForLoadState("load");
      await fits(page);
      await shot(page, `mail-message-${size.name}`);
      await page.locator("a", { hasText: "/users/password/edit?reset_password_token=" }).click();
      await page.waitForLoadState("load");
      expect(new URL(page.url()).pathname).toBe("/users/password/edit");
      await fits(page);
      await shot(page, `password-reset-edit-${size.name}`);
      const password = `${NEW_PASSWORD} ${size.name}`;
      await page.getByLabel("New password", { exact: true }).fill(password);
      await page.getByLabel("Confirm new password").fill(password);
      await page.getByRole("button", { name: "Change your password" }).click();
      await page.waitForLoadState("load");
      expect(await page.textContent("main")).toContain("Your password has been changed successfully.");

      await signIn(page, base, user.username, password, "/profile/password/edit");
      expect(new URL(page.url()).pathname).toBe("/profile/password/edit");
      await ctx.close();
    }
  });

  it("the spent link, opened again, leads back to the request form saying so", async () => {
    const user = await pages.createUser("reset2");
    const email = `${user.username}@example.com`;
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/users/password/new`);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Reset password" }).click();
    await page.waitForLoadState("load");
    await openOutboxWith(page, email, 1);
    await page.locator("tr", { hasText: email }).first().getByRole("link").click();
    await page.waitForLoadState("load");
    const link = (await page.locator("a", { hasText: "/users/password/edit?reset_password_token=" }).getAttribute("href"))!;
    await page.goto(link);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change your password" }).click();
    await page.waitForLoadState("load");
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe("/users/password/new");
    expect(await page.textContent("main")).toContain("Reset password token is invalid or has expired.");
    await shot(page, "password-reset-link-spent");
    await ctx.close();
  });
});
