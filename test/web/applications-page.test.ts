import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TEST_PASSWORD, call, unique } from "../helpers/fixtures";
import { Browser, signedInUser, textOf } from "../helpers/browser";

async function register(b: Browser, fields: Record<string, string | string[]>) {
  await b.get("/profile/applications");
  return b.post("/profile/applications", fields);
}

describe("/profile/applications: register, edit and delete applications", () => {
  it("offers Name, Redirect URI, Confidential, Expire access tokens and a checkbox per scope with its description", async () => {
    const { browser: b } = await signedInUser();
    const html = await (await b.get("/profile/applications")).text();
    expect(html).toContain('<label for="application_name">Name</label>');
    expect(html).toContain('<label for="application_redirect_uri">Redirect URI</label>');
    expect(html).toContain('<label for="application_confidential">Confidential</label>');
    expect(html).toContain('<label for="application_expire_access_tokens">Expire access tokens</label>');
    for (const scope of ["api", "read_user", "read_repository", "openid", "profile"]) expect(html).toContain(`<label for="scope_${scope}">${scope}</label>`);
    expect(textOf(html)).toContain("Grants read-only access to the authenticated user's profile");
    expect(textOf(html)).toContain("Authorized applications");
  });

  it("creates an application and shows the Application ID and the secret once", async () => {
    const { user, browser: b } = await signedInUser();
    const name = unique("My app ");
    const res = await register(b, { name, redirect_uri: "https://app.example/cb\nhttp://127.0.0.1/cb", scopes: ["read_user", "api"], confidential: "1", expire_access_tokens: "1" });
    expect(res.status).toBe(201);
    const html = await res.text();
    const secret = /<code id="client_secret">(gloas-[0-9a-f]{64})<\/code>/.exec(html)![1];
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(html)![1];
    expect(textOf(html)).toContain("This is the only time the secret is shown.");
    const row = await env.DB.prepare("SELECT * FROM oauth_applications WHERE uid = ?").bind(uid).first<Record<string, unknown>>();
    expect(row).toMatchObject({ name, owner_id: user.id, confidential: 1, expire_access_tokens: 1, scopes: "read_user api", redirect_uri: "https://app.example/cb\nhttp://127.0.0.1/cb" });
    expect(JSON.stringify(row)).not.toContain(secret);
    const show = await (await b.get(`/profile/applications/${row!.id}`)).text();
    expect(show).not.toContain(secret);
    expect(show).toContain(uid);
    const list = await (await b.get("/profile/applications")).text();
    expect(list).toContain(name);
  });

  it("a public application: Confidential unchecked is stored as not confidential", async () => {
    const { browser: b } = await signedInUser();
    const res = await register(b, { name: unique("spa"), redirect_uri: "https://spa.example/", scopes: "read_user" });
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(await res.text())![1];
    const row = await env.DB.prepare("SELECT confidential, expire_access_tokens FROM oauth_applications WHERE uid = ?").bind(uid).first();
    expect(row).toEqual({ confidential: 0, expire_access_tokens: 0 });
  });

  it("RFC 7591 §2 on the page: public keys and private_key_jwt are registered; a private key is refused with a clear error", async () => {
    const { browser: b } = await signedInUser();
    const jwk = { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", kid: "k1" };
    const res = await register(b, {
      name: unique("machine"),
      redirect_uri: "https://machine.example/cb",
      scopes: "api",
      confidential: "1",
      token_endpoint_auth_method: "private_key_jwt",
      jwks: JSON.stringify({ keys: [jwk] }),
    });
    expect(res.status).toBe(201);
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(await res.text())![1];
    const row = await env.DB.prepare("SELECT id, jwks, token_endpoint_auth_method FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number; jwks: string; token_endpoint_auth_method: string }>();
    expect(row!.token_endpoint_auth_method).toBe("private_key_jwt");
    expect(JSON.parse(row!.jwks)).toEqual({ keys: [jwk] });
    const edit = await (await b.get(`/profile/applications/${row!.id}/edit`)).text();
    expect(edit).toContain('<option value="private_key_jwt" selected="">');
    const bad = await register(b, { name: "keys", redirect_uri: "https://machine.example/cb", scopes: "api", confidential: "1", jwks: JSON.stringify({ keys: [{ ...jwk, d: "secret" }] }) });
    expect(bad.status).toBe(422);
    expect(textOf(await bad.text())).toContain("Public keys must hold public keys only");
  });

  it("shows clear errors for bad input and keeps what was typed", async () => {
    const { browser: b } = await signedInUser();
    const res = await register(b, { name: "kept name", redirect_uri: "http://insecure.example/cb", scopes: [] });
    expect(res.status).toBe(422);
    const text = textOf(await res.text());
    expect(text).toContain("Redirect URI must be an HTTPS/SSL URI.");
    expect(text).toContain("Scopes can't be blank");
    expect(b.lastHtml).toContain('value="kept name"');
  });

  it("edits, renews the secret (the old one stops working) and deletes after confirmation", async () => {
    const { browser: b } = await signedInUser();
    const created = await register(b, { name: unique("edit"), redirect_uri: "https://a.example/cb", scopes: "api", confidential: "1" });
    const html = await created.text();
    const oldSecret = /<code id="client_secret">([^<]+)<\/code>/.exec(html)![1];
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(html)![1];
    const { id } = (await env.DB.prepare("SELECT id FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number }>())!;

    await b.get(`/profile/applications/${id}/edit`);
    const edited = await b.post(`/profile/applications/${id}`, { name: "Renamed", redirect_uri: "https://b.example/cb", scopes: "read_user", confidential: "1" });
    expect(edited.status).toBe(303);
    expect(await env.DB.prepare("SELECT name, redirect_uri, scopes FROM oauth_applications WHERE id = ?").bind(id).first()).toEqual({ name: "Renamed", redirect_uri: "https://b.example/cb", scopes: "read_user" });

    await b.get(`/profile/applications/${id}`);
    const renewed = await b.post(`/profile/applications/${id}/renew`, {});
    const newSecret = /<code id="client_secret">([^<]+)<\/code>/.exec(await renewed.text())![1];
    expect(newSecret).not.toBe(oldSecret);
    const revoke = (secret: string) =>
      call("/oauth/revoke", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ client_id: uid, client_secret: secret, token: "x" }) });
    expect((await revoke(oldSecret)).status).toBe(401);
    expect((await revoke(newSecret)).status).toBe(200);

    const confirm = await b.get(`/profile/applications/${id}/delete`);
    expect(textOf(await confirm.text())).toContain("Delete application Renamed?");
    const deleted = await b.post(`/profile/applications/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(await env.DB.prepare("SELECT id FROM oauth_applications WHERE id = ?").bind(id).first()).toBeNull();
  });

  it("another user's application is not found, and cannot be edited or deleted", async () => {
    const owner = await signedInUser();
    const created = await register(owner.browser, { name: unique("mine"), redirect_uri: "https://a.example/cb", scopes: "api" });
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(await created.text())![1];
    const { id } = (await env.DB.prepare("SELECT id FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number }>())!;
    const other = await signedInUser();
    expect((await other.browser.get(`/profile/applications/${id}`)).status).toBe(404);
    await other.browser.get("/profile/applications");
    expect((await other.browser.post(`/profile/applications/${id}/delete`, {})).status).toBe(404);
    expect(await env.DB.prepare("SELECT id FROM oauth_applications WHERE id = ?").bind(id).first()).not.toBeNull();
  });

  it("sends a signed-out visitor to sign-in and back", async () => {
    const res = await new Browser().get("/profile/applications");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/users/sign_in?redirect_to=%2Fprofile%2Fapplications");
  });

  it("refuses a creation POST without the CSRF token", async () => {
    const { browser: b } = await signedInUser();
    await b.get("/profile/applications");
    const res = await b.post("/profile/applications", { name: "x", redirect_uri: "https://a.example/", scopes: "api" }, { csrf: false });
    expect(res.status).toBe(403);
  });
});

describe("Authorized applications: Revoke revokes every token family of the application at once", () => {
  it("lists an application holding the user's tokens with its scopes, and Revoke kills its tokens", async () => {
    const { user, browser: b } = await signedInUser();
    const owner = await signedInUser();
    const created = await register(owner.browser, { name: unique("Third party "), redirect_uri: "https://a.example/cb", scopes: ["read_user", "api"], confidential: "1" });
    const html = await created.text();
    const uid = /<code id="application_id">([^<]+)<\/code>/.exec(html)![1];
    const secret = /<code id="client_secret">([^<]+)<\/code>/.exec(html)![1];
    const grant = () =>
      call("/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${uid}:${secret}`)}` },
        body: new URLSearchParams({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope: "read_user" }),
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const tokens = [await grant(), await grant()];
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(200);

    const page = await (await b.get("/profile/applications")).text();
    const { id } = (await env.DB.prepare("SELECT id FROM oauth_applications WHERE uid = ?").bind(uid).first<{ id: number }>())!;
    expect(page).toContain(`/profile/applications/authorized/${id}/revoke`);
    expect(textOf(page)).toMatch(/Third party .* read_user/);

    const res = await b.post(`/profile/applications/authorized/${id}/revoke`, {});
    expect(res.status).toBe(303);
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(401);
    const after = await (await b.get("/profile/applications")).text();
    expect(after).not.toContain(`/profile/applications/authorized/${id}/revoke`);
  });
});
