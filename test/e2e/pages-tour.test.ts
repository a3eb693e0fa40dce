import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { pagesSession, shot } from "./pages-support";

/**
 * Issue 3, "Every page": each page's fields are labelled, sign-in works with the keyboard alone,
 * and the home and deprecations pages render (screenshots for docs/pages.md).
 */
const pages = pagesSession();
const base = pages.base;

/** Every visible form control has a label (label[for], a wrapping label, or aria-label). */
async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("input, textarea, select")]
      .filter((el) => (el as HTMLInputElement).type !== "hidden")
      .filter((el) => ((el as HTMLInputElement).labels?.length ?? 0) === 0 && !el.getAttribute("aria-label"))
      .map((el) => el.outerHTML),
  );
}

describe("every page: keyboard sign-in and labelled fields", () => {
  it("signs in with the keyboard alone, and every field of every page is labelled", async () => {
    const user = await pages.createUser("kbd");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    const scriptErrors: string[] = [];
    page.on("pageerror", (e) => scriptErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") scriptErrors.push(m.text());
    });
    await page.goto(`${base}/`);
    await shot(page, "home-signed-out");
    await page.goto(`${base}/users/sign_in`);
    expect(await unlabelled(page)).toEqual([]);
    await shot(page, "sign-in");
    // The username field has focus on arrival; Tab moves to the password; Enter submits.
    await page.keyboard.type(user.username);
    await page.keyboard.press("Tab");
    await page.keyboard.type(user.password);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${base}/`);
    expect(await page.textContent("main")).toContain(`@${user.username}`);
    await shot(page, "home-signed-in");
    for (const path of ["/profile/applications", "/profile/personal_access_tokens", "/profile/two_factor_auth", "/help/deprecations"]) {
      await page.goto(`${base}${path}`);
      expect(await unlabelled(page), path).toEqual([]);
    }
    // The copy-button script runs on every page, within the CSP, without errors.
    await page.goto(`${base}/-/demo/spa`);
    expect(scriptErrors).toEqual([]);
    await ctx.close();
  });

  it("shows a wrong password clearly", async () => {
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/users/sign_in`);
    await page.getByLabel("Username").fill("nobody-here");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForLoadState("load");
    expect(await page.getByRole("alert").textContent()).toContain("Invalid username or password.");
    await shot(page, "sign-in-error");
    await ctx.close();
  });

  it("/help/deprecations links each entry by its anchor", async () => {
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/help/deprecations#oauth-implicit-grant`);
    const entry = page.locator("tr#oauth-implicit-grant");
    expect(await entry.textContent()).toContain("Removed at this version");
    await shot(page, "deprecations", { fullPage: false });
    await ctx.close();
  });
});
