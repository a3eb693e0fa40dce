import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApplication, saveMetadataDocumentApplication } from "../../src/db/applications";
import { getDb } from "../../src/db/client";
import { Browser, textOf } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUser, makeUserWithToken } from "../helpers/fixtures";

/** DESIGN.md "Pages people find their way through": the admin area (/admin, /admin/users, /admin/applications). */
async function adminBrowser() {
  const admin = await makeUser({ isAdmin: true });
  const b = new Browser();
  expect((await b.signIn(admin.username, TEST_PASSWORD)).status).toBe(303);
  return { admin, b };
}

const auditRows = async (action: string, entityId: number) =>
  (
    await env.DB.prepare("SELECT action, author_id AS author, entity_type AS type, ip_address AS ip FROM audit_events WHERE action = ? AND entity_id = ?")
      .bind(action, String(entityId))
      .all()
  ).results;

describe("the admin area is for administrators only", () => {
  it("another signed-in user gets the ordinary 404 page on every admin path; a visitor is sent to sign in", async () => {
    const user = await makeUser();
    const b = new Browser();
    await b.signIn(user.username, TEST_PASSWORD);
    const notFound = await (await b.get("/no/such/page/here")).text();
    for (const path of ["/admin", "/admin/users", `/admin/users/${user.username}`, "/admin/applications", "/admin/applications/new"]) {
      const res = await b.get(path);
      expect(res.status, path).toBe(404);
      expect(textOf(await res.text()), path).toBe(textOf(notFound));
    }
    const anonymous = await call("/admin/users", { redirect: "manual" });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe("/users/sign_in?redirect_to=%2Fadmin%2Fusers");
  });

  it("admin pages refuse framing like every page, and every form needs the CSRF token", async () => {
    const { b } = await adminBrowser();
    const target = await makeUser();
    for (const path of ["/admin", "/admin/users", "/admin/applications"]) {
      const res = await b.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("X-Frame-Options"), path).toBe("DENY");
      expect(res.headers.get("Content-Security-Policy"), path).toContain("frame-ancestors 'none'");
    }
    await b.get(`/admin/users/${target.username}`);
    expect((await b.post(`/admin/users/${target.username}/block`, {}, { csrf: false })).status).toBe(403);
    expect((await b.post("/admin/applications", { name: "x", redirect_uri: "https://x.example/cb", scopes: "api" }, { csrf: false })).status).toBe(403);
    expect((await call(`/api/v4/users/${target.id}`, { token: (await makeUserWithToken({ isAdmin: true })).token }).then((r) => r.json())) as { state: string }).toMatchObject({ state: "active" });
  });
});

describe("/admin/users", () => {
  it("searches by username, name or email and links each user's page", async () => {
    const { b } = await adminBrowser();
    const user = await makeUser();
    const html = await (await b.get(`/admin/users?search=${encodeURIComponent(user.username.slice(2))}`)).text();
    expect(html).toContain(`href="/admin/users/${user.username}"`);
    const none = textOf(await (await b.get("/admin/users?search=no-such-user-anywhere")).text());
    expect(none).toContain("No user matches this search.");
  });

  it("Block writes the admin API's audit row and the user can no longer sign in; Unblock lets them back", async () => {
    const { admin, b } = await adminBrowser();
    const user = await makeUser();
    const page = await (await b.get(`/admin/users/${user.username}`)).text();
    expect(page).toContain(`data-confirm="Block @${user.username}?`);
    const res = await b.post(`/admin/users/${user.username}/block`, {});
    expect(res.status).toBe(303);
    expect(textOf(await (await b.get(res.headers.get("location")!)).text())).toContain(`@${user.username} was blocked.`);
    // The same row as POST /api/v4/users/:id/block writes (src/services/accounts/user-state.ts).
    expect(await auditRows("user_blocked", user.id)).toMatchObject([{ action: "user_blocked", author: admin.id, type: "user" }]);
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).not.toBe(303);
    await b.get(`/admin/users/${user.username}`);
    expect((await b.post(`/admin/users/${user.username}/unblock`, {})).status).toBe(303);
    expect(await auditRows("user_unblocked", user.id)).toHaveLength(1);
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).toBe(303);
  });

  it("deactivating a recently active user is refused with the account rule's words; an administrator is offered no action on their own account", async () => {
    const { admin, b } = await adminBrowser();
    const user = await makeUser();
    await new Browser().signIn(user.username, TEST_PASSWORD);
    await b.get(`/admin/users/${user.username}`);
    const res = await b.post(`/admin/users/${user.username}/deactivate`, {});
    expect(textOf(await (await b.get(res.headers.get("location")!)).text())).toContain("has been active in the past 90 days and cannot be deactivated");
    expect(await auditRows("user_deactivated", user.id)).toEqual([]);
    const own = await (await b.get(`/admin/users/${admin.username}`)).text();
    expect(own).not.toContain(`/admin/users/${admin.username}/block`);
  });

  it("Delete user (GitLab's admin page): confirmed, CSRF-checked, the API's deletion and audit row; Delete user and contributions sends hard_delete; none on one's own page", async () => {
    const { admin, b } = await adminBrowser();
    const user = await makeUser();
    const page = await (await b.get(`/admin/users/${user.username}`)).text();
    expect(page).toContain(`data-confirm="Delete @${user.username}?`);
    expect(page).toContain('name="hard_delete" value="true"');
    expect((await b.post(`/admin/users/${user.username}/delete`, {}, { csrf: false })).status).toBe(403);
    expect((await call(`/api/v4/users/${user.id}`, { token: (await makeUserWithToken({ isAdmin: true })).token })).status).toBe(200);
    await b.get(`/admin/users/${user.username}`);
    const res = await b.post(`/admin/users/${user.username}/delete`, {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/users");
    expect(textOf(await (await b.get("/admin/users")).text())).toContain(`@${user.username} was deleted; their contributions now belong to the Ghost User.`);
    // The same row as DELETE /api/v4/users/:id writes (src/services/accounts/user-delete.ts).
    expect(await auditRows("user_destroyed", user.id)).toMatchObject([{ action: "user_destroyed", author: admin.id, type: "user" }]);
    expect((await b.get(`/admin/users/${user.username}`)).status).toBe(404);
    expect((await new Browser().signIn(user.username, TEST_PASSWORD)).status).not.toBe(303);

    const hard = await makeUser();
    await b.get(`/admin/users/${hard.username}`);
    expect((await b.post(`/admin/users/${hard.username}/delete`, { hard_delete: "true" })).status).toBe(303);
    const [row] = (await env.DB.prepare("SELECT details FROM audit_events WHERE action = 'user_destroyed' AND entity_id = ?").bind(String(hard.id)).all<{ details: string }>()).results;
    expect(JSON.parse(row.details)).toMatchObject({ hard_delete: true });
    expect(await (await b.get(`/admin/users/${admin.username}`)).text()).not.toContain(`/admin/users/${admin.username}/delete`);
  });

  it("an unknown user is a 404 page", async () => {
    const { b } = await adminBrowser();
    expect((await b.get("/admin/users/no-such-user-zz")).status).toBe(404);
  });
});

describe("/admin/applications", () => {
  it("lists 50 applications a page, newest first, with links to the next and previous pages", async () => {
    const { b } = await adminBrowser();
    const ids: number[] = [];
    for (let i = 0; i < 51; i++) ids.push((await createApplication(getDb(env.DB), { name: `Paged ${i}`, redirectUri: "https://paged.example/cb", scopes: ["api"], ownerId: null })).row.id);
    const listed = (html: string) => [...html.matchAll(/href="\/admin\/applications\/(\d+)"/g)].map((m) => Number(m[1]));
    const first = await (await b.get("/admin/applications")).text();
    expect(listed(first)).toHaveLength(50);
    expect(listed(first)[0]).toBe(ids[50]);
    expect(listed(first)).not.toContain(ids[0]);
    expect(first).toContain('href="/admin/applications?page=2"');
    const second = await (await b.get("/admin/applications?page=2")).text();
    expect(listed(second)).toContain(ids[0]);
    expect(second).toContain('href="/admin/applications?page=1"');
  });

  it("creates an instance-wide application (secret shown once, hash stored, audited as the API does), sets trusted, renews and deletes", async () => {
    const { admin, b } = await adminBrowser();
    await b.get("/admin/applications/new");
    const created = await b.post("/admin/applications", { name: "Instance CI", redirect_uri: "https://ci.example/cb", scopes: ["api", "read_user"], confidential: "1", trusted: "1" });
    expect(created.status).toBe(201);
    const html = await created.text();
    const secret = /id="client_secret">([^<]+)</.exec(html)![1];
    expect(secret).toMatch(/^gloas-/);
    const id = Number(/\/admin\/applications\/(\d+)\/edit/.exec(html)![1]);
    const row = await env.DB.prepare("SELECT owner_id, trusted, secret_hash FROM oauth_applications WHERE id = ?").bind(id).first<{ owner_id: number | null; trusted: number; secret_hash: string }>();
    expect(row).toMatchObject({ owner_id: null, trusted: 1 });
    expect(row!.secret_hash).not.toContain(secret);
    expect(await auditRows("application_created", id)).toMatchObject([{ action: "application_created", author: admin.id, type: "oauth_application" }]);
    // The secret is not on the application's page afterwards.
    expect(await (await b.get(`/admin/applications/${id}`)).text()).not.toContain(secret);
    // Listed, and by GET /api/v4/applications too.
    expect(await (await b.get("/admin/applications")).text()).toContain(`href="/admin/applications/${id}"`);
    // Edit: clear the trusted flag.
    await b.get(`/admin/applications/${id}/edit`);
    expect((await b.post(`/admin/applications/${id}`, { name: "Instance CI", redirect_uri: "https://ci.example/cb", scopes: ["api"], confidential: "1" })).status).toBe(303);
    expect((await env.DB.prepare("SELECT trusted FROM oauth_applications WHERE id = ?").bind(id).first<{ trusted: number }>())!.trusted).toBe(0);
    expect(await auditRows("application_updated", id)).toHaveLength(1);
    await b.get(`/admin/applications/${id}`);
    const renewed = await (await b.post(`/admin/applications/${id}/renew`, {})).text();
    const second = /id="client_secret">([^<]+)</.exec(renewed)![1];
    expect(second).not.toBe(secret);
    expect(await auditRows("application_secret_renewed", id)).toHaveLength(1);
    await b.get(`/admin/applications/${id}/delete`);
    expect((await b.post(`/admin/applications/${id}/delete`, {})).status).toBe(303);
    expect(await env.DB.prepare("SELECT id FROM oauth_applications WHERE id = ?").bind(id).first()).toBeNull();
    expect(await auditRows("application_deleted", id)).toHaveLength(1);
  });

  it("an invalid form is answered 422 with the field's message; a user's own application is not the admin area's (404)", async () => {
    const { b } = await adminBrowser();
    await b.get("/admin/applications/new");
    const bad = await b.post("/admin/applications", { name: "", redirect_uri: "http://ci.example/cb", scopes: "api" });
    expect(bad.status).toBe(422);
    expect(textOf(await bad.text())).toContain("Redirect URI must be an HTTPS/SSL URI.");
    const owner = await makeUser();
    const { row } = await createApplication(getDb(env.DB), { name: "Mine", redirectUri: "https://mine.example/cb", scopes: ["api"], ownerId: owner.id });
    expect((await b.get(`/admin/applications/${row.id}`)).status).toBe(404);
  });

  it("marks dynamically registered clients (RFC 7591)", async () => {
    const { b } = await adminBrowser();
    const reg = await call("/oauth/register", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: "Self-registered", redirect_uris: ["http://127.0.0.1:7777/cb"], token_endpoint_auth_method: "none" }),
    });
    expect(reg.status).toBe(201);
    const html = await (await b.get("/admin/applications")).text();
    const row = /<tr>(?:(?!<\/tr>)[\s\S])*Self-registered[\s\S]*?<\/tr>/.exec(html)![0];
    expect(textOf(row)).toContain("Dynamic (registered by the client, RFC 7591)");
  });

  it("marks clients known by their Client ID Metadata Document, with the document's host, as unverified", async () => {
    const { b } = await adminBrowser();
    const uid = `https://agent-${crypto.randomUUID()}.example/client.json`;
    await saveMetadataDocumentApplication(getDb(env.DB), {
      uid,
      name: "Document client",
      redirectUri: "http://127.0.0.1:7777/cb",
      scopes: ["read_api"],
      accessTokenTtlSeconds: 7200,
      expiresAt: Date.now() + 3_600_000,
    });
    const html = await (await b.get("/admin/applications")).text();
    const row = /<tr>(?:(?!<\/tr>)[\s\S])*Document client[\s\S]*?<\/tr>/.exec(html)![0];
    expect(textOf(row)).toContain(`Metadata document at ${new URL(uid).host} (unverified)`);
    expect(textOf(row)).not.toContain("RFC 7591");
  });
});
