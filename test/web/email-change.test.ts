import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, makeUser, unique } from "../helpers/fixtures";
import { latestMailTo, mailCountTo } from "../helpers/outbox";

/**
 * GitLab's unconfirmed_email (Devise's reconfirmable): a person changing their e-mail address on
 * /profile/email proves their password, gets a confirmation link at the new address, and the new
 * address takes effect only once the link is opened.
 */
describe("/profile/email: a changed e-mail address is confirmed by mail", () => {
  it("asks for the current password; the old address stays until the link is opened; then the new one signs in", async () => {
    const { user, browser } = await signedInUser();
    const email = `${unique("mine")}@example.com`;
    await browser.get("/profile/email");
    const wrong = await browser.post("/profile/email", { email, current_password: "not my password" });
    expect(wrong.status).toBe(422);
    expect(textOf(await wrong.text())).toContain("You must provide a valid current password.");
    expect(await mailCountTo(email)).toBe(0);
    const sent = await browser.post("/profile/email", { email, current_password: TEST_PASSWORD });
    expect(sent.status).toBe(303);
    const page = textOf(await (await browser.get("/profile/email")).text());
    expect(page).toContain(`A confirmation link was sent to ${email}`);
    expect(page).toContain(`Your email address is ${user.email}`);
    // Until confirmed, the new address is not the account's: it cannot sign in with it.
    expect((await new Browser().signIn(email, TEST_PASSWORD)).status).toBe(401);
    const link = /http:\/\/localhost(\/users\/confirmation\?confirmation_token=[0-9a-f]{64})/.exec((await latestMailTo(email)).body_text)![1];
    await new Browser().get(link);
    expect((await new Browser().signIn(email, TEST_PASSWORD, "/")).status).toBe(303);
    const row = await env.DB.prepare("SELECT email, unconfirmed_email FROM users WHERE id = ?").bind(user.id).first<{ email: string; unconfirmed_email: string | null }>();
    expect(row).toEqual({ email, unconfirmed_email: null });
  });

  it("an address another account holds is refused before any mail", async () => {
    const { browser } = await signedInUser();
    const other = await makeUser();
    await browser.get("/profile/email");
    const res = await browser.post("/profile/email", { email: other.email, current_password: TEST_PASSWORD });
    expect(res.status).toBe(422);
    expect(textOf(await res.text())).toContain("Email has already been taken.");
    expect(await mailCountTo(other.email)).toBe(0);
  });

  it("a confirmation link expires after three days", async () => {
    const { user, browser } = await signedInUser();
    const email = `${unique("late")}@example.com`;
    await browser.get("/profile/email");
    await browser.post("/profile/email", { email, current_password: TEST_PASSWORD });
    const link = /http:\/\/localhost(\/users\/confirmation\?confirmation_token=[0-9a-f]{64})/.exec((await latestMailTo(email)).body_text)![1];
    await env.DB.prepare("UPDATE users SET confirmation_sent_at = confirmation_sent_at - 259200000 WHERE id = ?").bind(user.id).run();
    const b = new Browser();
    await b.get(link);
    expect(textOf(await (await b.get("/users/sign_in")).text())).toContain("Confirmation token is invalid or has expired");
    expect((await env.DB.prepare("SELECT email FROM users WHERE id = ?").bind(user.id).first<{ email: string }>())!.email).toBe(user.email);
  });
});
