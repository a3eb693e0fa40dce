import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import { familyOf } from "../../src/http/families";
import { requestPattern } from "../../src/http/router";
import { declaredDoor, type PageDoor } from "../../src/web/door";
import { Browser, ORIGIN, signedInUser } from "../helpers/browser";
import { TEST_PASSWORD, makeUser } from "../helpers/fixtures";

/**
 * The page door (docs/architecture.md; docs/security.md, "CSRF"), swept over every route the app
 * registers (`app.routes`), so a page added without its door fails here rather than ships:
 * every page route declares a door; every unsafe page route refuses a missing CSRF token and a
 * foreign Origin; every signed-in or administrator route sends an anonymous visitor to sign in
 * with the path to come back to (GitLab's redirect), and the admin area answers a signed-in user
 * who is not an administrator "Page not found".
 */

/** Not pages although their paths fall to the pages family: the probes and the benchmark floor (plain text / JSON). */
const NOT_PAGES = new Set(["/-/health", "/-/readiness"]);

type PageRoute = { method: string; pattern: string; path: string; door: PageDoor | undefined };

/** A request path that the route's pattern matches (any value: the door answers before the handler looks). */
function concretePath(pattern: string): string {
  return pattern
    .replace(/^\/:namespace\/:project/, "/door-sweep/some-project")
    .replace(/^\/-\/user\/:username$/, "/door-sweep-user")
    .replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "1")
    .replace(/\*$/, "x");
}

/** Every (method, pattern) the app answers as a page (the pages family and the authorization endpoint's HTML). */
function pageRoutes(): PageRoute[] {
  const routes = new Map<string, PageRoute>();
  for (const r of app.routes) {
    // Global middleware (request log, readiness, path decoding) sits on "/*" for every family.
    if (r.method === "ALL" && r.path === "/*") continue;
    const pattern = requestPattern(r.path);
    if (r.path.startsWith("/-/bench") || NOT_PAGES.has(pattern)) continue;
    const family = familyOf(pattern);
    if (family !== "pages" && family !== "authorize") continue;
    const method = r.method === "ALL" ? "POST" : r.method;
    const key = `${method} ${pattern}`;
    const seen = routes.get(key) ?? { method, pattern, path: concretePath(pattern), door: undefined };
    seen.door ??= declaredDoor(r.handler);
    routes.set(key, seen);
  }
  return [...routes.values()];
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const routes = pageRoutes();
/** Unsafe routes whose door takes another site's form POST on purpose (PageDoor crossSiteForm). */
const crossSite = routes.filter((r) => !SAFE.has(r.method) && r.door?.crossSiteForm);
const unsafe = routes.filter((r) => !SAFE.has(r.method) && !r.door?.crossSiteForm);
const behindSignIn = routes.filter((r) => r.door && r.door.enter !== "anyone");
const key = (r: PageRoute) => `${r.method} ${r.pattern}`;

/** The pages anyone may open (or post to, behind the CSRF check): a new one is a decision made here. */
const OPEN_TO_ANYONE = [
  "GET /",
  "GET /-/assets/pages.css",
  "GET /-/assets/pages.js",
  "GET /-/demo/spa",
  "GET /-/demo/spa.js",
  "GET /-/mail",
  "GET /-/mail/:id",
  "GET /-/user/:username",
  "GET /explore",
  "GET /explore/projects",
  "GET /favicon.ico",
  "GET /help",
  "GET /help/deprecations",
  "GET /oauth/authorize",
  "POST /oauth/authorize",
  "GET /oauth/logout",
  "POST /oauth/logout",
  "POST /oauth/logout/confirm",
  "GET /users/confirmation",
  "GET /users/password/edit",
  "GET /users/password/new",
  "POST /users/password",
  "GET /users/sign_in",
  "POST /users/sign_in",
  "GET /users/sign_in/two_factor",
  "POST /users/sign_in/two_factor",
  "POST /users/sign_out",
];

describe("the page door, swept over app.routes", () => {
  let member: Browser;
  let memberToken: string;
  let admin: Browser;
  let adminToken: string;
  beforeAll(async () => {
    member = (await signedInUser()).browser;
    admin = new Browser();
    const administrator = await makeUser({ isAdmin: true });
    expect((await admin.signIn(administrator.username, TEST_PASSWORD)).status).toBe(303);
    await member.get("/");
    memberToken = member.csrf();
    await admin.get("/");
    adminToken = admin.csrf();
  });

  it("the sweep sees the pages: at least the 28 state-changing page routes and the sign-in, admin and project pages", () => {
    expect(unsafe.length).toBeGreaterThanOrEqual(28);
    for (const k of ["GET /profile/personal_access_tokens", "GET /admin/users", "POST /:namespace/:project/edit", "POST /oauth/device/decision", "POST /oauth/authorize"]) {
      expect(routes.map(key), k).toContain(k);
    }
  });

  it("every page route declares its door (pageApp, src/web/door.ts): none is guarded otherwise or not at all", () => {
    expect(routes.filter((r) => r.door === undefined).map(key)).toEqual([]);
  });

  it("the routes open to anyone are exactly the public pages and the sign-in, password reset and authorization forms", () => {
    const open = routes.filter((r) => r.door?.enter === "anyone").map(key);
    const gitlabRedirects = open.filter((k) => /^GET \/(oauth\/applications|-\/user_settings\/|-\/profile\/)/.test(k));
    expect(open.filter((k) => !gitlabRedirects.includes(k)).sort()).toEqual([...OPEN_TO_ANYONE].sort());
  });

  it("the only unsafe page route without the CSRF check is RP-Initiated Logout §2's end-session endpoint, and a forged POST to it signs nobody out", async () => {
    expect(crossSite.map(key)).toEqual(["POST /oauth/logout"]);
    const res = await member.fetch("/oauth/logout", { method: "POST", body: new URLSearchParams({ x: "1" }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" } });
    // Without an id_token_hint of the member, the person is asked: still signed in.
    expect(res.status).toBe(200);
    expect((await member.get("/profile/active_sessions")).status).toBe(200);
  });

  it("every unsafe page route refuses a request without the CSRF token (403), from the page's own origin and a signed-in browser", async () => {
    const accepted: string[] = [];
    for (const r of unsafe) {
      const res = await admin.fetch(r.path, { method: r.method, body: new URLSearchParams({ x: "1" }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN } });
      if (res.status !== 403) accepted.push(`${key(r)}: ${res.status}`);
    }
    expect(accepted).toEqual([]);
  });

  it("every unsafe page route refuses a foreign Origin (403) even with the session's valid CSRF token", async () => {
    const accepted: string[] = [];
    for (const r of unsafe) {
      const body = new URLSearchParams({ authenticity_token: adminToken });
      const res = await admin.fetch(r.path, { method: r.method, body, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" } });
      if (res.status !== 403) accepted.push(`${key(r)}: ${res.status}`);
    }
    expect(accepted).toEqual([]);
  });

  it("every signed-in and administrator route sends an anonymous visitor to sign in, with the path to come back to (a valid form token does not let one in)", async () => {
    const visitor = new Browser();
    await visitor.get("/users/sign_in");
    const token = visitor.csrf();
    const wrong: string[] = [];
    for (const r of behindSignIn) {
      const res = SAFE.has(r.method)
        ? await visitor.get(r.path)
        : await visitor.fetch(r.path, { method: r.method, body: new URLSearchParams({ authenticity_token: token }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN } });
      const expected = `/users/sign_in?redirect_to=${encodeURIComponent(r.path)}`;
      if (res.status !== 302 || res.headers.get("location") !== expected) wrong.push(`${key(r)}: ${res.status} ${res.headers.get("location")}`);
    }
    expect(behindSignIn.length).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  it("every administrator route answers a signed-in user who is not an administrator 'Page not found' (the admin area is not revealed)", async () => {
    const adminRoutes = routes.filter((r) => r.door?.enter === "administrator");
    expect(adminRoutes.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const r of adminRoutes) {
      const res = SAFE.has(r.method)
        ? await member.get(r.path)
        : await member.fetch(r.path, { method: r.method, body: new URLSearchParams({ authenticity_token: memberToken }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN } });
      if (res.status !== 404) wrong.push(`${key(r)}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });
});
