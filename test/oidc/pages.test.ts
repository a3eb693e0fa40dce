import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signedInUser, textOf } from "../helpers/browser";
import { call } from "../helpers/fixtures";
import { REDIRECT, authorizeUrl, pkce } from "../oauth/helpers";
import { oidcApp } from "./helpers";

describe("Pages for the identity provider: OpenID scopes on the application form and the consent page; device codes hashed", () => {
  it("the application form offers openid, profile and email, each with its description", async () => {
    const { browser } = await signedInUser();
    const html = await (await browser.get("/profile/applications")).text();
    for (const scope of ["openid", "profile", "email"]) {
      expect(html).toContain(`<input type="checkbox" id="scope_${scope}" name="scopes" value="${scope}"`);
      expect(html).toMatch(new RegExp(`id="scope_${scope}_hint">[^<]*OpenID Connect`));
    }
  });

  it("the consent page lists identity scopes in words a person understands, and other scopes with their descriptions", async () => {
    const { app } = await oidcApp();
    const { browser } = await signedInUser();
    const { challenge } = await pkce();
    const res = await browser.get(
      authorizeUrl({ client_id: app.uid, response_type: "code", redirect_uri: REDIRECT, scope: "openid profile email read_user", code_challenge: challenge, code_challenge_method: "S256" }),
    );
    const text = textOf(await res.text());
    expect(text).toContain("Sign you in with your account");
    expect(text).toContain("See your name, your username and the address of your profile page.");
    expect(text).toContain("See your email address.");
    expect(text).toContain("It will also be able to: read_user");
    expect(text).not.toContain("has not been verified");
  });

  it("DESIGN convention 6: device codes and user codes are stored only as SHA-256 hashes", async () => {
    const { app } = await oidcApp();
    const res = await browserlessAuthorizeDevice(app.uid);
    const { results } = await env.DB.prepare("SELECT * FROM oauth_device_grants").all();
    const dump = JSON.stringify(results);
    expect(results.length).toBeGreaterThan(0);
    expect(dump.includes(res.device_code)).toBe(false);
    expect(dump.includes(res.user_code.replace("-", ""))).toBe(false);
    expect(dump.includes(res.user_code)).toBe(false);
  });
});

async function browserlessAuthorizeDevice(clientId: string) {
  const res = await call("/oauth/authorize_device", { method: "POST", body: new URLSearchParams({ client_id: clientId }), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  return (await res.json()) as { device_code: string; user_code: string };
}
