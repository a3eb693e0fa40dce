import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeUrl,
  callbackPage,
  pagesSession,
  registerApplication,
  shot,
  signIn,
  startServer,
  unique,
} from "./pages-support";
import { until } from "./wait";

/**
 * Issue 3 in headless Chromium: register an application on /profile/applications, authorize it
 * as another user, deny, revoke it from "Authorized applications", and the consent page's
 * protections (no framing; no cross-site POST without the CSRF token).
 */
// Every test makes its own owner, application, user and browser context (one Chromium for the
// file): they run side by side, their page loads and sign-ins overlapping.
const pages = pagesSession();
const base = pages.base;
let client: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  client = await startServer(callbackPage);
});
afterAll(async () => {
  await client?.close();
});

async function ownerAndApp(scopes = ["read_user", "api"]) {
  const owner = await pages.createUser("owner");
  const ctx = await pages.newContext();
  const page = await ctx.newPage();
  await signIn(page, base, owner.username, owner.password, "/profile/applications");
  const name = unique("Client app ");
  const app = await registerApplication(page, base, { name, redirectUri: `${client.origin}/callback`, scopes });
  return { owner, ctx, page, name, ...app };
}

/**
 * One application registered on the page (registering is the first test's subject), shared by the
 * tests that authorize, deny, revoke and frame it, each as a user of its own: a user's decisions
 * and revocations are theirs alone, and an owner's sign-in and registration less per test.
 */
let shared: Promise<{ clientId: string; secret: string; name: string }> | undefined;
function registeredApp() {
  shared ??= ownerAndApp().then(async ({ ctx, clientId, secret, name }) => {
    await ctx.close();
    return { clientId, secret, name };
  });
  return shared;
}

async function exchange(clientId: string, secret: string, code: string, redirectUri: string) {
  const res = await fetch(`${base}/oauth/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, client_secret: secret, code, redirect_uri: redirectUri }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

describe.concurrent("applications registered on the page, authorized by another user (spec: registration through /profile/applications)", () => {
  it("registers an application and shows its Application ID and secret once", async () => {
    const { page, secret, clientId, ctx } = await ownerAndApp();
    expect(secret).toMatch(/^gloas-/);
    expect(clientId.length).toBeGreaterThan(10);
    expect(await page.textContent("main")).toContain("This is the only time the secret is shown.");
    await shot(page, "applications-created");
    // The application's own page never shows the secret again.
    await page.goto(`${base}/profile/applications`);
    await page.getByRole("link", { name: /Client app / }).first().click();
    expect(await page.content()).not.toContain(secret);
    await ctx.close();
  });

  it("another user signs in from the authorize link, sees the consent page, presses Authorize, and the code works", async () => {
    const { clientId, secret, name } = await registeredApp();
    const user = await pages.createUser("consenter");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    const redirectUri = `${client.origin}/callback`;
    await page.goto(authorizeUrl(base, { client_id: clientId, redirect_uri: redirectUri, state: "state-123", scope: "read_user" }));
    expect(page.url()).toContain("/users/sign_in");
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForLoadState("load");
    expect(page.url()).toContain("/oauth/authorize");
    const consent = await page.textContent("main");
    expect(consent).toContain(name);
    expect(consent).toContain(user.username);
    expect(consent).toContain("read_user");
    await shot(page, "consent");
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL(`${client.origin}/callback**`);
    const url = new URL(page.url());
    expect(url.searchParams.get("state")).toBe("state-123");
    const code = url.searchParams.get("code")!;
    await shot(page, "authorized-callback");
    const tokens = await exchange(clientId, secret, code, redirectUri);
    const me = await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(user.username);
    await ctx.close();
  });

  it("Deny sends the browser back with error=access_denied and the state", async () => {
    const { clientId } = await registeredApp();
    const user = await pages.createUser("denier");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password);
    await page.goto(authorizeUrl(base, { client_id: clientId, redirect_uri: `${client.origin}/callback`, state: "deny-state", scope: "read_user" }));
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL(`${client.origin}/callback**`);
    const url = new URL(page.url());
    expect(url.searchParams.get("error")).toBe("access_denied");
    expect(url.searchParams.get("state")).toBe("deny-state");
    expect(url.searchParams.get("code")).toBeNull();
    await shot(page, "denied-callback");
    await ctx.close();
  });

  it("Revoke under Authorized applications makes the application's tokens fail at once", async () => {
    const { clientId, secret, name } = await registeredApp();
    const user = await pages.createUser("revoker");
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, base, user.username, user.password);
    const redirectUri = `${client.origin}/callback`;
    const tokens = [];
    for (const state of ["one", "two"]) {
      await page.goto(authorizeUrl(base, { client_id: clientId, redirect_uri: redirectUri, state, scope: "read_user" }));
      await page.getByRole("button", { name: "Authorize" }).click();
      await page.waitForURL(`${client.origin}/callback**`);
      tokens.push(await exchange(clientId, secret, new URL(page.url()).searchParams.get("code")!, redirectUri));
    }
    for (const t of tokens) expect((await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${t.access_token}` } })).status).toBe(200);

    await page.goto(`${base}/profile/applications`);
    const row = page.locator("section[aria-labelledby=authorized-heading] tr", { hasText: name });
    expect(await row.textContent()).toContain("read_user");
    await shot(page, "authorized-applications");
    await row.getByRole("button", { name: `Revoke ${name}` }).click();
    await page.waitForLoadState("load");
    expect(await page.textContent("main")).toContain("was revoked");
    for (const t of tokens) {
      expect((await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${t.access_token}` } })).status).toBe(401);
      const refresh = await fetch(`${base}/oauth/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "refresh_token", client_id: clientId, client_secret: secret, refresh_token: t.refresh_token, redirect_uri: redirectUri }),
      });
      expect(refresh.status).toBe(400);
    }
    await shot(page, "authorized-application-revoked");
    await ctx.close();
  });
});

describe.concurrent("the consent page's protections (spec GET /oauth/authorize: consent)", () => {
  it("cannot be framed by another site (frame-ancestors 'none', X-Frame-Options DENY)", async () => {
    const { clientId } = await registeredApp();
    const user = await pages.createUser("framed");
    const target = authorizeUrl(base, { client_id: clientId, redirect_uri: `${client.origin}/callback`, state: "f", scope: "read_user" });
    const evil = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(`<!DOCTYPE html><title>Another site</title><h1>Another site framing the consent page</h1><iframe id="victim" src="${target.replace(/&/g, "&amp;")}" width="800" height="500"></iframe>`);
    });
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password);
    const direct = await page.goto(target);
    const headers = direct!.headers();
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["x-frame-options"]).toBe("DENY");
    await page.goto(`${evil.origin}/`);
    // The frame exists once the page has parsed its iframe; its document (Chromium's error page
    // when refused) has loaded when the frame's load event has fired.
    await until(() => page.frames().length > 1, 10_000, "the framing page's iframe");
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.waitForLoadState("load");
    // Chromium replaces a refused frame with its error page: the consent form is not there.
    expect(await frame.locator("button", { hasText: "Authorize" }).count()).toBe(0);
    await shot(page, "consent-not-framed");
    await ctx.close();
    await evil.close();
  });

  it("a cross-site POST without the CSRF token is refused, though the browser sends the session cookie", async () => {
    const user = await pages.createUser("csrf");
    const evil = await startServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(
        `<!DOCTYPE html><title>Another site</title><form id="f" method="post" action="${base}/profile/personal_access_tokens">` +
          `<input name="name" value="stolen"><input name="expires_at" value="2099-01-01"><input name="scopes" value="api"></form>` +
          `<script>document.getElementById("f").submit()</script>`,
      );
    });
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await signIn(page, base, user.username, user.password);
    const response = page.waitForResponse((r) => r.url() === `${base}/profile/personal_access_tokens` && r.request().method() === "POST");
    await page.goto(`${evil.origin}/`);
    const res = await response;
    expect(res.status()).toBe(403);
    await page.waitForLoadState("load");
    expect(await page.textContent("main")).toContain("security token is missing or out of date");
    await shot(page, "cross-site-post-refused");
    await page.goto(`${base}/profile/personal_access_tokens`);
    expect(await page.textContent("main")).not.toContain("stolen");
    await ctx.close();
    await evil.close();
  });
});
