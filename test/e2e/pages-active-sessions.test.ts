import { describe, expect, it } from "vitest";
import { pagesSession, shot, signIn } from "./pages-support";

/**
 * Issue 12, "Account controls", in headless Chromium: /profile/active_sessions lists two browsers
 * of one user, marks the current one, asks before revoking, and a revoked browser is signed out.
 */
const pages = pagesSession();
const base = pages.base;

/** A new user signed in from two browsers of their own (a laptop and a phone). */
async function twoBrowsers(name: string) {
  const user = await pages.createUser(name);
  const contexts = [await pages.newContext(), await pages.newContext()];
  const [laptop, phone] = await Promise.all(contexts.map((ctx) => ctx.newPage()));
  await signIn(laptop, base, user.username, user.password);
  await signIn(phone, base, user.username, user.password);
  return { laptop, phone, close: () => Promise.all(contexts.map((ctx) => ctx.close())) };
}

describe("/profile/active_sessions in Chromium (Account controls: two browsers, ending the other)", () => {
  it("lists both browsers, confirms before revoking, and signs the other browser out", async () => {
    const { laptop, phone, close } = await twoBrowsers("sessions");

    await laptop.goto(`${base}/profile/active_sessions`);
    const rows = laptop.locator("tbody tr");
    expect(await rows.count()).toBe(2);
    const current = laptop.locator('tr[data-session="current"]');
    expect(await current.textContent()).toContain("This is your current session");
    expect(await current.getByRole("button", { name: /Revoke/ }).count()).toBe(0);
    expect(await laptop.locator('tr[data-session="other"]').textContent()).toContain("Chrome");
    await shot(laptop, "active-sessions");

    // Dismissing the confirmation keeps the session.
    const revoke = laptop.locator('tr[data-session="other"]').getByRole("button", { name: /Revoke/ });
    laptop.once("dialog", (d) => {
      expect(d.message()).toBe("Are you sure? The device will be signed out of GitLab.");
      void d.dismiss();
    });
    await revoke.click();
    expect(await laptop.locator("tbody tr").count()).toBe(2);
    await phone.goto(`${base}/profile/active_sessions`);
    expect(new URL(phone.url()).pathname).toBe("/profile/active_sessions");

    // Accepting it revokes: the laptop sees one session, the phone is sent to sign-in.
    laptop.once("dialog", (d) => void d.accept());
    await revoke.click();
    await laptop.waitForLoadState("load");
    expect(await laptop.textContent("main")).toContain("The session was revoked.");
    expect(await laptop.locator("tbody tr").count()).toBe(1);
    await phone.goto(`${base}/profile/active_sessions`);
    expect(new URL(phone.url()).pathname).toBe("/users/sign_in");

    await close();
  });

  it("Sign out everywhere: confirmed, it signs the other browser out and keeps this one", async () => {
    const { laptop, phone, close } = await twoBrowsers("everywhere");

    await laptop.goto(`${base}/-/user_settings/active_sessions`);
    expect(await laptop.locator("tbody tr").count()).toBe(2);
    laptop.once("dialog", (d) => {
      expect(d.message()).toBe("Are you sure? Every other browser, application and device will be signed out of GitLab.");
      void d.accept();
    });
    await laptop.getByRole("button", { name: "Sign out everywhere else" }).click();
    await laptop.waitForLoadState("load");
    expect(await laptop.textContent("main")).toContain("You were signed out everywhere else.");
    expect(await laptop.locator("tbody tr").count()).toBe(1);
    await phone.goto(`${base}/profile/active_sessions`);
    expect(new URL(phone.url()).pathname).toBe("/users/sign_in");

    await close();
  });
});
