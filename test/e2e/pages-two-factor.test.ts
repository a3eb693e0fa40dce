import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { PASSWORD, pagesSession, shot, signIn, totpCode } from "./pages-support";

/**
 * Issue 3 in headless Chromium: two-factor enrolment, sign-in with a TOTP code and with a
 * recovery code, the password grant refused for that user, and a personal access token created
 * on the page working on /api/v4/user.
 */
const pages = pagesSession();
const base = pages.base;

/** Enrols through the page; returns the secret and the recovery codes the page showed once. */
async function enrol(page: Page): Promise<{ secret: string; codes: string[] }> {
  await page.goto(`${base}/profile/two_factor_auth`);
  const secret = (await page.locator("#otp-secret").getAttribute("data-secret"))!;
  expect(await page.locator(".qr svg").count()).toBe(1);
  await page.getByText("Show the otpauth:// URI").click();
  expect(await page.locator("#otp-uri").textContent()).toMatch(/^otpauth:\/\/totp\//);
  await shot(page, "two-factor-enrol");
  await page.getByLabel("Verification code").fill(await totpCode(secret));
  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByRole("button", { name: "Register with two-factor app" }).click();
  await page.waitForLoadState("load");
  const codes = (await page.locator("#recovery-codes code").allTextContents()).map((c) => c.trim());
  await shot(page, "two-factor-recovery-codes");
  return { secret, codes };
}

async function signInSecondStep(page: Page, username: string, code: string): Promise<void> {
  await signIn(page, base, username, PASSWORD, "/profile/personal_access_tokens");
  expect(page.url()).toContain("/users/sign_in/two_factor");
  await page.getByLabel("Two-factor code").fill(code);
  await page.getByRole("button", { name: "Verify code" }).click();
  await page.waitForLoadState("load");
}

// Each test has its own user and browser contexts (one Chromium for the file): they run side by side.
describe.concurrent("two-factor authentication in Chromium (spec: password flow disabled with 2FA)", () => {
  it("enrols, then signs in with a TOTP code and with a recovery code (each once)", async () => {
    const user = await pages.createUser("tfa");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password);
    const { secret, codes } = await enrol(page);
    expect(codes.length).toBe(10);
    expect(await page.textContent("main")).toContain("Two-factor authentication is now enabled.");
    await ctx.close();

    // TOTP: the next step's code (the enrolment used this step's, and a code works only once).
    const totpCtx = await pages.newContext();
    const p1 = await totpCtx.newPage();
    await signIn(p1, base, user.username, user.password);
    await shot(p1, "sign-in-two-factor-step");
    await p1.getByLabel("Two-factor code").fill(await totpCode(secret, 1));
    await p1.getByRole("button", { name: "Verify code" }).click();
    await p1.waitForLoadState("load");
    expect(await p1.textContent("main")).toContain(`@${user.username}`);
    await shot(p1, "signed-in-with-totp");
    await totpCtx.close();

    // A recovery code signs in once, and not twice.
    const recCtx = await pages.newContext();
    const p2 = await recCtx.newPage();
    await signInSecondStep(p2, user.username, codes[0]);
    expect(p2.url()).toBe(`${base}/profile/personal_access_tokens`);
    await shot(p2, "signed-in-with-recovery-code");
    await recCtx.close();
    const againCtx = await pages.newContext();
    const p3 = await againCtx.newPage();
    await signInSecondStep(p3, user.username, codes[0]);
    expect(await p3.textContent("main")).toContain("Invalid two-factor code.");
    await shot(p3, "recovery-code-reused");
    await againCtx.close();
  });

  it("refuses the password grant for that user, while a personal access token made on the page works on /api/v4/user", async () => {
    const user = await pages.createUser("tfapat");
    const grantBefore = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: PASSWORD }) });
    expect(grantBefore.status).toBe(200);

    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password);
    await enrol(page);

    const grant = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: user.username, password: PASSWORD }) });
    expect(grant.status).toBe(400);
    expect(((await grant.json()) as { error: string }).error).toBe("invalid_grant");

    await page.goto(`${base}/profile/personal_access_tokens`);
    await page.getByLabel("Token name").fill("laptop script");
    const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("Expiration date").fill(expiry);
    await page.getByLabel("read_user", { exact: true }).check();
    await page.getByRole("button", { name: "Create personal access token" }).click();
    await page.waitForLoadState("load");
    const token = (await page.locator("#created-personal-access-token").textContent())!.trim();
    expect(token).toMatch(/^glpat-/);
    await shot(page, "personal-access-token-created");

    const me = await fetch(`${base}/api/v4/user`, { headers: { "PRIVATE-TOKEN": token } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: user.username, two_factor_enabled: true });

    // The list shows it with its last use; revoking it ends it.
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${base}/profile/personal_access_tokens`);
    const row = page.locator("tr", { hasText: "laptop script" });
    expect(await row.textContent()).toContain(expiry);
    await shot(page, "personal-access-tokens");
    await row.getByRole("button", { name: "Revoke laptop script" }).click();
    await page.waitForLoadState("load");
    expect((await fetch(`${base}/api/v4/user`, { headers: { "PRIVATE-TOKEN": token } })).status).toBe(401);
    await ctx.close();
  });

  it("after 10 failed sign-ins the address is locked out with the same message as a wrong password (no username enumeration)", async () => {
    const user = await pages.createUser("lock");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    for (let i = 0; i < 10; i++) await signIn(page, base, user.username, `wrong-password-${i}`);
    expect(await page.textContent("main")).toContain("Invalid username or password.");
    await signIn(page, base, user.username, user.password);
    expect(await page.textContent("main")).toContain("Invalid username or password.");
    expect(page.url()).toContain("/users/sign_in");
    await shot(page, "sign-in-locked");
    await ctx.close();
  });
});
