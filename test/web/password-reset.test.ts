import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { withVars } from "../../src/config";
import { Browser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, callFrom, makeUser, unique } from "../helpers/fixtures";
import { latestMailTo, mailCountTo, settledMailCountTo } from "../helpers/outbox";
import { pkceTokens, refresh } from "../oauth/helpers";

/**
 * DESIGN, "Pages people find their way through": a person resets a forgotten password by a
 * single-use, time-limited mailed link (the same answer whether the address exists or not,
 * throttled), as GitLab's "Forgot your password?" (Devise's Recoverable, paranoid mode).
 */
const NEW_PASSWORD = "a reset Password of mine 9";
const SENT = "If your email address exists in our database, you will receive a password recovery link at your email address in a few minutes.";

/** Asks for a link from a browser at `ip`; answers the response and the page it leads to. */
async function ask(email: string, ip = "198.51.100.7") {
  const browser = new Browser(callFrom(ip));
  await browser.get("/users/password/new");
  const res = await browser.post("/users/password", { email });
  const next = await browser.get(res.headers.get("location") ?? "/");
  return { res, text: textOf(await next.text()) };
}

const requestsAudited = async (userId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE entity_type = 'user' AND entity_id = ? AND action = 'password_reset_requested'").bind(String(userId)).first<number>("n")) ?? 0;

/**
 * Waits (bounded) until `count` requests of the user have been audited: the link is mailed after
 * the answer, and the audit row is the last step of that work.
 */
async function untilRequested(userId: number, count: number, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await requestsAudited(userId)) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} password_reset_requested rows after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The link of the user's `count`-th requested mail (the newest), once its work is done. */
async function linkFor(user: { id: number; email: string }, count = 1): Promise<string> {
  await untilRequested(user.id, count);
  const mail = await latestMailTo(user.email, { count });
  return /http:\/\/localhost(\/users\/password\/edit\?reset_password_token=[0-9a-f]{64})/.exec(mail.body_text)![1];
}

async function setNewPassword(link: string, password = NEW_PASSWORD, confirmation = password) {
  const browser = new Browser();
  const form = await browser.get(link);
  if (form.status !== 200) return form;
  const token = new URL(link, "http://localhost").searchParams.get("reset_password_token")!;
  return browser.post("/users/password", { reset_password_token: token, password, password_confirmation: confirmation });
}

describe("Forgot your password? (GitLab's password reset by mail)", () => {
  it("the sign-in page links to /users/password/new, a form asking for the email address", async () => {
    const signIn = await (await call("/users/sign_in")).text();
    expect(signIn).toContain('<a href="/users/password/new">Forgot your password?</a>');
    const form = await call("/users/password/new");
    expect(form.status).toBe(200);
    expect(await form.text()).toMatch(/<input type="email" id="user_email" name="email"/);
  });

  it("answers the same whether or not the address belongs to anyone; only an account's address gets mail", async () => {
    const user = await makeUser();
    const known = await ask(user.email, "198.51.100.11");
    const unknown = await ask(`${unique("nobody")}@example.com`, "198.51.100.11");
    expect(known.res.status).toBe(303);
    expect(unknown.res.status).toBe(303);
    expect(unknown.res.headers.get("location")).toBe(known.res.headers.get("location"));
    expect(known.text).toContain(SENT);
    expect(unknown.text).toContain(SENT);
    await untilRequested(user.id, 1);
    const mail = await latestMailTo(user.email);
    expect(mail.subject).toBe("Reset password instructions");
    expect(mail.from_address).toBe("gitlab@localhost");
  });

  it("no enumeration: an unknown and a known address get the same redirect and the same flash, and the known one's link is mailed after the answer", async () => {
    const user = await makeUser();
    const flashOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith("_edge_auth_flash="));
    const known = await ask(user.email, "198.51.100.19");
    const unknown = await ask(`${unique("nobody")}@example.com`, "198.51.100.19");
    expect([known.res.status, known.res.headers.get("location")]).toEqual([303, "/users/sign_in"]);
    expect([unknown.res.status, unknown.res.headers.get("location")]).toEqual([303, "/users/sign_in"]);
    expect(flashOf(known.res)).toBeDefined();
    expect(flashOf(unknown.res)).toBe(flashOf(known.res));
    // The cookie holds the message URI-encoded, then encoded again as a cookie value.
    expect(decodeURIComponent(decodeURIComponent(flashOf(known.res)!.split(";")[0]!.split("=")[1]!))).toBe(SENT);
    expect(known.text).toBe(unknown.text);
    expect(await linkFor(user)).toMatch(/^\/users\/password\/edit\?reset_password_token=/);
  });

  it("no enumeration by time: the answer comes before the address is looked up; the link is mailed by the work handed to waitUntil, for a known and an unknown address alike", async () => {
    const user = await makeUser();
    // The Worker called with an execution context that keeps what it is handed, so the test
    // sees the state at the moment of the answer and then lets the deferred work finish.
    const deferred: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void deferred.push(p), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const browser = new Browser(async (path, init) => {
      const headers = new Headers(init.headers);
      headers.set("CF-Connecting-IP", "198.51.100.20");
      return app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), env, ctx);
    });
    for (const email of [`${unique("nobody")}@example.com`, user.email]) {
      await browser.get("/users/password/new");
      deferred.length = 0;
      const res = await browser.post("/users/password", { email });
      expect([res.status, res.headers.get("location")]).toEqual([303, "/users/sign_in"]);
      expect(deferred.length).toBeGreaterThan(0);
      expect(await mailCountTo(user.email)).toBe(0);
      expect(await requestsAudited(user.id)).toBe(0);
      await Promise.all(deferred);
    }
    expect(await mailCountTo(user.email)).toBe(1);
    expect(await requestsAudited(user.id)).toBe(1);
  });

  it("only the SHA-256 of the link's token is stored", async () => {
    const user = await makeUser();
    await ask(user.email.toUpperCase(), "198.51.100.12");
    const token = new URL(await linkFor(user), "http://localhost").searchParams.get("reset_password_token")!;
    const row = await env.DB.prepare("SELECT reset_password_token_hash AS h FROM users WHERE id = ?").bind(user.id).first<{ h: string }>();
    expect(row!.h).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.h).not.toBe(token);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(row!.h).toBe(digest);
  });

  it("the link sets a new password once: the old password stops working, the new one signs in, and the link is spent", async () => {
    const user = await makeUser();
    await ask(user.email, "198.51.100.13");
    const link = await linkFor(user);
    const done = await setNewPassword(link);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/users/sign_in");
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).toBe(401);
    expect((await new Browser().signIn(user.username, NEW_PASSWORD, "/")).headers.get("location")).toBe("/");
    const again = await setNewPassword(link, "yet another Password 11");
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/users/password/new");
    const audit = await env.DB.prepare("SELECT action FROM audit_events WHERE entity_type = 'user' AND entity_id = ? AND action LIKE 'password_reset%' ORDER BY id").bind(String(user.id)).all<{ action: string }>();
    expect(audit.results.map((r) => r.action)).toEqual(["password_reset_requested", "password_reset"]);
  });

  it("a reset ends every session and OAuth grant of the user (the password-change mechanism)", async () => {
    const { user, app: client, tokens, browser } = await pkceTokens();
    expect((await browser.get("/profile/password/edit")).status).toBe(200);
    await ask(user.email, "198.51.100.14");
    expect((await setNewPassword(await linkFor(user))).status).toBe(303);
    expect((await browser.get("/profile/password/edit")).status).toBe(302);
    expect((await call("/api/v4/user", { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(client, tokens.refresh_token)).status).toBe(400);
  });

  it("the link expires after two hours, and a newer request replaces it", async () => {
    const user = await makeUser();
    await ask(user.email, "198.51.100.15");
    const first = await linkFor(user);
    await ask(user.email, "198.51.100.15");
    const second = await linkFor(user, 2);
    expect(second).not.toBe(first);
    expect((await setNewPassword(first)).headers.get("location")).toBe("/users/password/new");
    await env.DB.prepare("UPDATE users SET reset_password_sent_at = reset_password_sent_at - 7200000 WHERE id = ?").bind(user.id).run();
    const expired = await setNewPassword(second);
    expect(expired.status).toBe(303);
    expect(expired.headers.get("location")).toBe("/users/password/new");
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).toBe(303);
  });

  it("a weak or mismatched new password is refused on the form, and the link still works after", async () => {
    const user = await makeUser();
    await ask(user.email, "198.51.100.16");
    const link = await linkFor(user);
    const weak = await setNewPassword(link, "short");
    expect(weak.status).toBe(422);
    expect(textOf(await weak.text())).toMatch(/too short/);
    const mismatch = await setNewPassword(link, NEW_PASSWORD, "something else entirely");
    expect(mismatch.status).toBe(422);
    expect(textOf(await mismatch.text())).toContain("Password confirmation doesn't match Password.");
    expect((await setNewPassword(link)).status).toBe(303);
  });

  it("throttled per account: at most 3 mails an hour, from any address, the answer unchanged", async () => {
    const user = await makeUser();
    for (let i = 0; i < 5; i++) expect((await ask(user.email, `203.0.113.${20 + i}`)).text).toContain(SENT);
    await untilRequested(user.id, 3);
    expect(await settledMailCountTo(user.email)).toBe(3);
    expect(await requestsAudited(user.id)).toBe(3);
  });

  it("throttled per client address: after 10 requests an hour, an address gets no more mail, the answer unchanged", async () => {
    const ip = "203.0.113.77";
    for (let i = 0; i < 10; i++) await ask(`${unique("nobody")}@example.com`, ip);
    const user = await makeUser();
    expect((await ask(user.email, ip)).text).toContain(SENT);
    expect(await settledMailCountTo(user.email)).toBe(0);
    await ask(user.email, "203.0.113.78");
    await untilRequested(user.id, 1);
    expect(await settledMailCountTo(user.email)).toBe(1);
  });

  it("a blocked account gets no link", async () => {
    const user = await makeUser();
    await env.DB.prepare("UPDATE users SET state = 'blocked' WHERE id = ?").bind(user.id).run();
    expect((await ask(user.email, "198.51.100.17")).text).toContain(SENT);
    expect(await settledMailCountTo(user.email)).toBe(0);
    expect(await requestsAudited(user.id)).toBe(0);
  });
});

describe("the local outbox /-/mail (GitLab's letter_opener; DESIGN, Platform: mail)", () => {
  it("under npm start (LOCAL_DEV) lists the mail and shows each with its link", async () => {
    const user = await makeUser();
    await ask(user.email, "198.51.100.18");
    await untilRequested(user.id, 1);
    const list = await call("/-/mail");
    expect(list.status).toBe(200);
    const html = await list.text();
    const id = new RegExp(`<td class="id">${user.email.replace(/[.]/g, "\\.")}</td><td><a href="/-/mail/(\\d+)">Reset password instructions</a>`).exec(html)?.[1];
    expect(id).toBeDefined();
    const one = await (await call(`/-/mail/${id}`)).text();
    expect(one).toMatch(/<a href="http:\/\/localhost\/users\/password\/edit\?reset_password_token=[0-9a-f]{64}" class="id">/);
    expect((await call("/-/mail/999999999")).status).toBe(404);
  });

  it("a deployed Worker (LOCAL_DEV not true) answers 404 at /-/mail and keeps no outbox", async () => {
    const deployed = withVars(env, { LOCAL_DEV: "false", SECRET_KEY_BASE: "0123456789abcdef0123456789abcdef0123456789abcdef" });
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    expect((await app.fetch(new Request("http://localhost/-/mail"), deployed, ctx)).status).toBe(404);
    expect((await app.fetch(new Request("http://localhost/-/mail/1"), deployed, ctx)).status).toBe(404);
  });
});
