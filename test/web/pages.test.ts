import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../../src/versioning/catalogue";
import { call, makePat, unique } from "../helpers/fixtures";
import { Browser, signedInUser, textOf } from "../helpers/browser";
import { callAt } from "../helpers/versioned";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe("/profile/personal_access_tokens: create, list and revoke", () => {
  it("has labelled Token name, Expiration date (required, at most a year) and scope checkboxes", async () => {
    const { browser: b } = await signedInUser();
    const html = await (await b.get("/profile/personal_access_tokens")).text();
    expect(html).toContain('<label for="personal_access_token_name">Token name</label>');
    expect(html).toContain('<label for="personal_access_token_expires_at">Expiration date</label>');
    expect(html).toMatch(new RegExp(`type="date"[^>]*required[^>]*max="${day(365)}"`));
    expect(html).toContain('<label for="pat_scope_read_user">read_user</label>');
    expect(html).not.toContain('id="pat_scope_openid"');
  });

  it("creates a token shown once that works on /api/v4/user; the list shows last use; revoke kills it", async () => {
    const { user, browser: b } = await signedInUser();
    await b.get("/profile/personal_access_tokens");
    const name = unique("script ");
    const res = await b.post("/profile/personal_access_tokens", { name, expires_at: day(10), scopes: "read_user" });
    expect(res.status).toBe(201);
    const html = await res.text();
    const token = /<code id="created-personal-access-token">(glpat-[0-9a-f]+)<\/code>/.exec(html)![1];
    expect(textOf(html)).toContain("you won't be able to access it again");
    const me = await call("/api/v4/user", { headers: { "PRIVATE-TOKEN": token } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: user.id });
    const list = await (await b.get("/profile/personal_access_tokens")).text();
    expect(list).not.toContain(token);
    const row = textOf(list).split(name)[1];
    expect(row).toMatch(/read_user .*UTC .*\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC .*/); // created and last used
    const { id } = (await env.DB.prepare("SELECT id FROM personal_access_tokens WHERE name = ?").bind(name).first<{ id: number }>())!;
    const revoked = await b.post(`/profile/personal_access_tokens/${id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect((await call("/api/v4/user", { headers: { "PRIVATE-TOKEN": token } })).status).toBe(401);
  });

  it("refuses a missing or too distant expiry and no scopes, with clear messages", async () => {
    const { browser: b } = await signedInUser();
    await b.get("/profile/personal_access_tokens");
    const noExpiry = await b.post("/profile/personal_access_tokens", { name: "x", expires_at: "", scopes: "api" });
    expect(noExpiry.status).toBe(422);
    expect(textOf(await noExpiry.text())).toContain("Expiration date can't be blank.");
    const tooFar = await b.post("/profile/personal_access_tokens", { name: "x", expires_at: day(400), scopes: "api" });
    expect(textOf(await tooFar.text())).toContain(`Expiration date must be before ${day(365)}.`);
    const noScopes = await b.post("/profile/personal_access_tokens", { name: "x", expires_at: day(5) });
    expect(textOf(await noScopes.text())).toContain("Scopes can't be blank.");
  });

  it("GitLab's access tokens page toggles DPoP (user preference dpop_enabled): on, a PAT without a proof is refused; off again, it works", async () => {
    const { user, browser: b } = await signedInUser();
    const token = await makePat(user.id, ["api"]);
    const page = await (await b.get("/profile/personal_access_tokens")).text();
    expect(textOf(page)).toContain("DPoP is off .");
    const on = await b.post("/profile/dpop", { dpop_enabled: "true" });
    expect(on.status).toBe(303);
    expect(textOf(await (await b.get("/profile/personal_access_tokens")).text())).toContain("DPoP is on .");
    expect((await call("/api/v4/user", { token })).status).toBe(401);
    await b.post("/profile/dpop", { dpop_enabled: "false" });
    expect((await call("/api/v4/user", { token })).status).toBe(200);
  });

  it("cannot revoke another user's token", async () => {
    const a = await signedInUser();
    await a.browser.get("/profile/personal_access_tokens");
    const created = await a.browser.post("/profile/personal_access_tokens", { name: unique("a"), expires_at: day(3), scopes: "api" });
    const token = /<code id="created-personal-access-token">([^<]+)<\/code>/.exec(await created.text())![1];
    const { id } = (await env.DB.prepare("SELECT id FROM personal_access_tokens WHERE user_id = ?").bind(a.user.id).first<{ id: number }>())!;
    const other = await signedInUser();
    await other.browser.get("/profile/personal_access_tokens");
    await other.browser.post(`/profile/personal_access_tokens/${id}/revoke`, {});
    expect((await call("/api/v4/user", { token })).status).toBe(200);
  });
});

describe("/help/deprecations (DESIGN Service versions)", () => {
  it("lists every catalogue entry with an anchor, milestone, date and state at the configured version", async () => {
    const res = await new Browser().get("/help/deprecations");
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const e of CATALOGUE) expect(html).toContain(`id="${e.id}"`);
    expect(textOf(html)).toContain("runs as version 16.0");
    expect(html).toMatch(/id="oauth-implicit-grant"[\s\S]*?2022-05-22[\s\S]*?Removed at this version/);
  });

  it("at 14.10 the implicit grant is deprecated but still served", async () => {
    const res = await callAt("14.10", "/help/deprecations");
    const html = await res.text();
    expect(textOf(html)).toContain("runs as version 14.10");
    expect(html).toMatch(/id="oauth-implicit-grant"[\s\S]*?Deprecated, still served/);
  });
});

describe("every page: security headers, no CORS, the layout", () => {
  const paths = ["/", "/users/sign_in", "/help/deprecations"];
  for (const path of paths) {
    it(`${path} sends CSP with frame-ancestors 'none', nosniff, Referrer-Policy, and no CORS`, async () => {
      const res = await new Browser().get(path, { Origin: "https://other.example" });
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("strict-transport-security")).toBeNull(); // plain http
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(await res.text()).toContain('<link rel="stylesheet" href="/-/assets/pages.css"/>');
    });
  }

  it("a preflight to a page gets no CORS headers", async () => {
    const res = await call("/profile/applications", { method: "OPTIONS", headers: { Origin: "https://other.example", "Access-Control-Request-Method": "POST" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("signed-in pages show the navigation bar with a sign-out form carrying the CSRF token", async () => {
    const { user, browser: b } = await signedInUser();
    const html = await (await b.get("/")).text();
    expect(html).toContain('<nav aria-label="Main">');
    expect(html).toContain('href="/profile/applications"');
    expect(html).toMatch(/<form method="post" action="\/users\/sign_out"><input type="hidden" name="authenticity_token" value="[^"]+"/);
    expect(html).toContain(`aria-label="Sign out ${user.username}"`);
  });

  it("serves the stylesheet and script as files", async () => {
    const css = await call("/-/assets/pages.css");
    expect(css.headers.get("content-type")).toContain("text/css");
    const js = await call("/-/assets/pages.js");
    expect(js.headers.get("content-type")).toContain("javascript");
  });
});
