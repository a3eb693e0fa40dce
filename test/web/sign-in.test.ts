import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyPasswordLogin } from "../../src/services/accounts/password-login";
import { AppError } from "../../src/domain/errors";
import { getDb } from "../../src/db/client";
import { findUserById } from "../../src/db/users";
import { TEST_PASSWORD, call, callFrom, makeUser, unique } from "../helpers/fixtures";
import { Browser, textOf } from "../helpers/browser";

describe("sign-in page /users/sign_in", () => {
  it("shows a form with fields labelled Username and Password and a Sign in button", async () => {
    const b = new Browser();
    const res = await b.get("/users/sign_in");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<label for="user_login">Username<\/label>/);
    expect(html).toMatch(/<label for="user_password">Password<\/label>/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(html).toContain('name="authenticity_token"');
  });

  it("signs in by username or email, case-insensitively, with an HttpOnly SameSite=Lax session cookie", async () => {
    const user = await makeUser();
    for (const login of [user.username.toUpperCase(), user.email]) {
      const b = new Browser();
      await b.get("/users/sign_in");
      const res = await b.post("/users/sign_in", { username: login, password: TEST_PASSWORD });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith("_edge_auth_session="))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Max-Age=\d+/);
      expect(cookie).not.toMatch(/Secure/); // plain http here; Secure over HTTPS is tested below
      const home = await b.get("/");
      expect(await home.text()).toContain(`@${user.username}`);
    }
  });

  it("sets Secure on the session cookie over HTTPS and sends HSTS", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.get("https://localhost/users/sign_in");
    const res = await b.post("https://localhost/users/sign_in", { username: user.username, password: TEST_PASSWORD }, { origin: "https://localhost" });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().find((c) => c.startsWith("_edge_auth_session="))).toMatch(/Secure/);
    expect(res.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
  });

  it("stores only the SHA-256 of the session id", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const raw = b.cookies.get("_edge_auth_session")!;
    const rows = await env.DB.prepare("SELECT id_hash FROM sessions WHERE user_id = ?").bind(user.id).all<{ id_hash: string }>();
    expect(rows.results.length).toBe(1);
    expect(rows.results[0].id_hash).not.toBe(raw);
    expect(rows.results[0].id_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells a wrong password clearly and sets no session", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.get("/users/sign_in");
    const res = await b.post("/users/sign_in", { username: user.username, password: "wrong password!" });
    expect(res.status).toBe(401);
    expect(textOf(await res.text())).toContain("Invalid username or password.");
    expect(b.cookies.has("_edge_auth_session")).toBe(false);
  });

  it("refuses a POST without the CSRF token (403) and one from another origin", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.get("/users/sign_in");
    const token = b.csrf();
    const noToken = await b.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD }, { csrf: false });
    expect(noToken.status).toBe(403);
    const crossSite = await b.post(
      "/users/sign_in",
      { username: user.username, password: TEST_PASSWORD, authenticity_token: token },
      { origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    const forged = await b.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD, authenticity_token: "forged" });
    expect(forged.status).toBe(403);
    expect(b.cookies.has("_edge_auth_session")).toBe(false);
  });

  it("a CSRF token of one browser does not work with another browser's cookie", async () => {
    const user = await makeUser();
    const a = new Browser();
    await a.get("/users/sign_in");
    const b = new Browser();
    await b.get("/users/sign_in");
    const res = await b.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD, authenticity_token: a.csrf() });
    expect(res.status).toBe(403);
  });
});

describe("redirect_to only to paths on this service (no open redirect)", () => {
  const cases: [string, string][] = [
    ["/profile/applications?x=1", "/profile/applications?x=1"],
    ["/oauth/authorize?client_id=a&scope=api", "/oauth/authorize?client_id=a&scope=api"],
    ["//evil.example/x", "/"],
    ["https://evil.example/", "/"],
    ["/\\evil.example", "/"],
    ["\\\\evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["/%0d%0aSet-Cookie:x=1", "/%0d%0aSet-Cookie:x=1"],
    ["/\tevil", "/"],
  ];
  for (const [given, expected] of cases) {
    it(`redirect_to=${JSON.stringify(given)} leads to ${expected}`, async () => {
      const user = await makeUser();
      const b = new Browser();
      const res = await b.signIn(user.username, TEST_PASSWORD, given);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(expected);
    });
  }
});

/** A browser whose requests come from one client address (CF-Connecting-IP, as Cloudflare sets it). */
const fromAddress = (ip: string) => new Browser(callFrom(ip));
const auditCount = async (action: string, entityId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE entity_id = ? AND action = ?").bind(entityId, action).first<{ n: number }>())!.n;

describe("account lockout per account and client address: the lockout is not a weapon", () => {
  it("10 failures lock that address out for 10 minutes: the right password from it is refused like a wrong one; the lock is audited once", async () => {
    const user = await makeUser();
    const attacker = fromAddress("203.0.113.10");
    await attacker.get("/users/sign_in");
    for (let i = 0; i < 10; i++) {
      const r = await attacker.post("/users/sign_in", { username: user.username, password: `wrong-${i}` });
      expect(r.status).toBe(401);
    }
    const right = await attacker.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD });
    expect(right.status).toBe(401);
    expect(textOf(await right.text())).toContain("Invalid username or password.");
    expect(await auditCount("lockout", String(user.id))).toBe(1);
    const fresh = await findUserById(getDb(env.DB), user.id);
    expect(fresh!.lockedUntil).toBeGreaterThan(Date.now() + 9 * 60_000);
  });

  it("the owner signing in from another address is not kept out by the attacker's lock", async () => {
    const user = await makeUser();
    const attacker = fromAddress("203.0.113.11");
    await attacker.get("/users/sign_in");
    for (let i = 0; i < 12; i++) await attacker.post("/users/sign_in", { username: user.username, password: `wrong-${i}` });
    const owner = fromAddress("198.51.100.20");
    await owner.get("/users/sign_in");
    expect((await owner.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD })).status).toBe(303);
  });

  it("no username enumeration: a locked account, an unknown user and a wrong password get the same status and message", async () => {
    const user = await makeUser();
    const b = fromAddress("203.0.113.12");
    await b.get("/users/sign_in");
    for (let i = 0; i < 10; i++) await b.post("/users/sign_in", { username: user.username, password: `wrong-${i}` });
    const answers = [];
    for (const [login, password] of [[user.username, TEST_PASSWORD], [unique("nobody"), TEST_PASSWORD], [(await makeUser()).username, "wrong-password"]]) {
      const r = await b.post("/users/sign_in", { username: login, password });
      const flash = /<div class="flash error"[^>]*>([^<]*)</.exec(await r.text())?.[1];
      answers.push([r.status, flash]);
    }
    expect(answers).toEqual(Array(3).fill([401, "Invalid username or password."]));
  });

  it("counts 20 concurrent failures race-free: exactly one lockout audited", async () => {
    const user = await makeUser();
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => verifyPasswordLogin(env, user.username, `wrong-${i}`, "203.0.113.13")));
    expect(results.every((r) => r.status === "rejected" && (r.reason as AppError).details.reason === "invalid")).toBe(true);
    expect(await auditCount("lockout", String(user.id))).toBe(1);
  });

  it("users.locked_until is the administrators' view only: it refuses nobody by itself", async () => {
    const user = await makeUser();
    await env.DB.prepare("UPDATE users SET locked_until = ? WHERE id = ?").bind(Date.now() + 600_000, user.id).run();
    const ok = await verifyPasswordLogin(env, user.username, TEST_PASSWORD, "198.51.100.21");
    expect(ok.id).toBe(user.id);
  });

  it("unknown users get the same answer as a wrong password", async () => {
    const err = await verifyPasswordLogin(env, unique("nobody"), "whatever-password", null).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.details.reason).toBe("invalid");
  });

  it("a blocked user with the right password is told the account is blocked", async () => {
    const user = await makeUser();
    await env.DB.prepare("UPDATE users SET state = 'blocked' WHERE id = ?").bind(user.id).run();
    const b = new Browser();
    const res = await b.signIn(user.username, TEST_PASSWORD);
    expect(res.status).toBe(403);
    expect(textOf(await res.text())).toContain("Your account has been blocked.");
  });
});

describe("throttle of failed sign-ins per client address (DESIGN Hardening)", () => {
  it("password spraying: the 30th failure bans the address; then 429 with Retry-After and RateLimit-* headers, even for the right password; one throttled audit", async () => {
    const user = await makeUser();
    const sprayer = fromAddress("203.0.113.30");
    await sprayer.get("/users/sign_in");
    for (let i = 0; i < 30; i++) {
      const r = await sprayer.post("/users/sign_in", { username: unique("victim"), password: "Winter2026!" });
      expect(r.status).toBe(401);
    }
    const before = (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE ip_address = ?").bind("203.0.113.30").first<{ n: number }>())!.n;
    const refused = await sprayer.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(refused.headers.get("ratelimit-limit")).toBe("30");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(textOf(await refused.text())).toContain("Too many failed sign-in attempts");
    // Refused requests write no audit rows; the ban itself was audited once.
    await sprayer.post("/users/sign_in", { username: unique("victim"), password: "x" });
    const after = (await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE ip_address = ?").bind("203.0.113.30").first<{ n: number }>())!.n;
    expect(after).toBe(before);
    expect(await auditCount("throttled", "203.0.113.30")).toBe(1);
    // Another address, and valid credentials there, are unaffected.
    const other = fromAddress("198.51.100.30");
    await other.get("/users/sign_in");
    expect((await other.post("/users/sign_in", { username: user.username, password: TEST_PASSWORD })).status).toBe(303);
  });
});

describe("sign-out by POST with CSRF; sessions expire", () => {
  it("POST /users/sign_out ends the session in storage and the cookie", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const raw = b.cookies.get("_edge_auth_session")!;
    await b.get("/");
    const out = await b.post("/users/sign_out", {});
    expect(out.status).toBe(303);
    const again = await visitWithSession("/profile/two_factor_auth", raw);
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toMatch(/^\/users\/sign_in\?redirect_to=/);
  });

  it("a sign-out POST without the token is refused and the session lives on", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const res = await b.post("/users/sign_out", {}, { csrf: false });
    expect(res.status).toBe(403);
    expect((await b.get("/profile/two_factor_auth")).status).toBe(200);
  });

  it("an expired session is not signed in", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(Date.now() - 1, user.id).run();
    const res = await b.get("/profile/two_factor_auth");
    expect(res.status).toBe(302);
  });
});

function visitWithSession(path: string, rawSession: string) {
  const b = new Browser();
  b.cookies.set("_edge_auth_session", rawSession);
  return b.get(path);
}

describe("bad input to the pages never becomes a 500 (brief: clear errors)", () => {
  it("a malformed multipart body is refused as a forgery (403), and an over-long login as invalid", async () => {
    const b = new Browser();
    await b.get("/users/sign_in");
    const res = await call("/users/sign_in", {
      method: "POST",
      body: "--x\r\nbroken",
      headers: { Cookie: b.cookieHeader(), Origin: "http://localhost", "Content-Type": "multipart/form-data; boundary=nope" },
    });
    expect(res.status).toBe(403);
    const long = await b.post("/users/sign_in", { username: "x".repeat(5000), password: "whatever-password" });
    expect(long.status).toBe(401);
  });
});
