import { describe, expect, it } from "vitest";
import { call, unique } from "../helpers/fixtures";
import { signedInUser, textOf } from "../helpers/browser";

/** DESIGN "Pages people find their way through": an app developer is told how to connect. */

describe("OpenID Connect Discovery §3 service_documentation: a /help page that exists", () => {
  it("discovery names /help, and /help is a page linking the documentation topics", async () => {
    const meta = (await (await call("/.well-known/openid-configuration")).json()) as { service_documentation: string; issuer: string };
    expect(meta.service_documentation).toBe(`${meta.issuer}/help`);
    const res = await call(new URL(meta.service_documentation).pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const text = textOf(await res.text());
    for (const topic of ["docs/oauth.md", "docs/oidc.md", "docs/rest-api.md", "docs/git.md"]) expect(text).toContain(topic);
  });
});

describe("GitLab's own page paths redirect to ours", () => {
  it("/oauth/applications and /-/user_settings/personal_access_tokens answer 301 to /profile/…", async () => {
    for (const [from, to] of [
      ["/oauth/applications", "/profile/applications"],
      ["/-/user_settings/personal_access_tokens?name=ci&scopes=api", "/profile/personal_access_tokens?name=ci&scopes=api"],
    ]) {
      const res = await call(from!, { redirect: "manual" });
      expect(res.status, from).toBe(301);
      expect(new URL(res.headers.get("location")!, "http://localhost").pathname + new URL(res.headers.get("location")!, "http://localhost").search).toBe(to);
    }
  });
});

describe("The page after creating an application tells how to connect", () => {
  it("shows the issuer, the discovery URL and an openid-client snippet with the application's id", async () => {
    const { browser } = await signedInUser();
    await browser.get("/profile/applications");
    const res = await browser.post("/profile/applications", { name: unique("app"), redirect_uri: "https://app.example/cb", scopes: ["openid", "read_user"], confidential: "1" });
    expect(res.status).toBe(201);
    const html = await res.text();
    const text = textOf(html);
    expect(html).toContain('<code id="issuer">http://localhost</code>');
    expect(html).toContain('<code id="discovery-url">http://localhost/.well-known/openid-configuration</code>');
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(html)![1];
    expect(text).toContain(`client.discovery(new URL("http://localhost"), "${uid}", process.env.CLIENT_SECRET)`);
    expect(text).toContain('redirect_uri: "https://app.example/cb"');
  });

  it("the signed-in home links discovery and help", async () => {
    const { browser } = await signedInUser();
    const html = await (await browser.get("/")).text();
    expect(html).toContain('href="/.well-known/openid-configuration"');
    expect(html).toContain('href="/help"');
  });
});
