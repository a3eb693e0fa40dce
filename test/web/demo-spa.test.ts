import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withVars } from "../../src/config";
import { findApplicationByUid } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { DEMO_SPA_UID, ensureDemoSpa } from "../../src/setup/demo-spa";
import { call } from "../helpers/fixtures";

describe("demo SPA /-/demo/spa: a PKCE single-page app", () => {
  it("is registered on first start (SEED_DEMO_DATA) as a public application, once, for loopback redirect URIs", async () => {
    const seeded = withVars(env, { SEED_DEMO_DATA: "true" });
    await Promise.all([ensureDemoSpa(seeded), ensureDemoSpa(seeded), ensureDemoSpa(seeded)]);
    const app = await findApplicationByUid(getDb(env.DB), DEMO_SPA_UID);
    expect(app).toMatchObject({ confidential: false, ownerId: null, redirectUri: "http://127.0.0.1/-/demo/spa\nhttp://localhost/-/demo/spa" });
    const n = await env.DB.prepare("SELECT count(*) AS n FROM oauth_applications WHERE uid = ?").bind(DEMO_SPA_UID).first<{ n: number }>();
    expect(n!.n).toBe(1);
  });

  it("the loopback registration matches the SPA's redirect URI on any port (RFC 8252 §7.3)", async () => {
    await ensureDemoSpa(withVars(env, { SEED_DEMO_DATA: "true" }));
    const q = new URLSearchParams({
      client_id: DEMO_SPA_UID,
      redirect_uri: "http://127.0.0.1:49152/-/demo/spa",
      response_type: "code",
      state: "s",
      scope: "read_user",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const res = await call(`http://127.0.0.1:49152/oauth/authorize?${q}`, { redirect: "manual" });
    // Not the "unknown redirect URI" error page: the browser is sent to sign in first.
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toContain("/users/sign_in");
  });

  it("serves the page and its script with a strict CSP, no referrer and no framing", async () => {
    const page = await call("/-/demo/spa");
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain(`data-client-id="${DEMO_SPA_UID}"`);
    expect(html).toContain('<script src="/-/demo/spa.js" defer="">');
    const js = await call("/-/demo/spa.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    const src = await js.text();
    expect(src).toContain("code_challenge_method");
    expect(src).toContain("sessionStorage");
  });
});
