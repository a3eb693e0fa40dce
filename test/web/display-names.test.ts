import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { cleanDisplayName } from "../../src/domain/display-name";
import { signedInUser } from "../helpers/browser";
import { call, json, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { REDIRECT, authorizeUrl, makeApp } from "../oauth/helpers";

/*
 * docs/security.md "Names shown to others": invisible format characters (Unicode Cf: bidi
 * embeddings, overrides and isolates, zero-width characters, ...) and control characters are
 * stripped from every name a person types that another person reads, by one function at the input
 * layer; the consent and device pages render names isolated (<bdi>, HTML §4.5.23), so that a
 * U+202E in a name cannot reverse the rest of the sentence.
 */
const RLO = "\u202E";
const HOSTILE = `Evil${RLO}moc.elpmaxe\u200B\u2066x\u2069\uFEFF`;
const CLEAN = "Evilmoc.elpmaxex";

describe("the rule: cleanDisplayName", () => {
  it.each([
    [HOSTILE, CLEAN],
    ["a\u202Ab\u202Bc\u202Cd\u202De\u2067f\u2068g\u200Eh\u200Fi\u061Cj", "abcdefghij"],
    ["soft\u00ADhyphen", "softhyphen"],
    ["tag\u{E0041}chars", "tagchars"],
    ["two\nlines\tand\rtabs", "two lines and tabs"],
    ["nul\u0000", "nul"],
    // Kept: the joiners Persian and emoji need inside words; they reorder nothing.
    ["می\u200Cخواهم", "می\u200Cخواهم"],
    ["👩\u200D💻", "👩\u200D💻"],
    ["  spaced  ", "spaced"],
  ])("%j → %j", (input, output) => expect(cleanDisplayName(input)).toBe(output));
});

describe("every name field strips them at input", () => {
  it("applications API (POST /api/v4/applications): stored without them; a name of nothing else is blank", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const res = await call("/api/v4/applications", { ...json({ name: HOSTILE, redirect_uri: REDIRECT, scopes: "api" }), token: admin.token });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { application_name: string }).application_name).toBe(CLEAN);
    const blank = await call("/api/v4/applications", { ...json({ name: `${RLO}\u200B`, redirect_uri: REDIRECT, scopes: "api" }), token: admin.token });
    expect(blank.status).toBe(400);
    expect(await blank.json()).toEqual({ message: { name: ["can't be blank"] } });
  });

  it("/profile/applications", async () => {
    const { user, browser } = await signedInUser();
    await browser.get("/profile/applications");
    expect((await browser.post("/profile/applications", { name: HOSTILE, redirect_uri: REDIRECT, scopes: ["api"] })).status).toBe(201);
    const row = await env.DB.prepare("SELECT name FROM oauth_applications WHERE owner_id = ?").bind(user.id).first<{ name: string }>();
    expect(row!.name).toBe(CLEAN);
  });

  it("dynamic registration (RFC 7591 client_name)", async () => {
    const res = await call("/oauth/register", {
      method: "POST",
      body: JSON.stringify({ client_name: HOSTILE, redirect_uris: [REDIRECT] }),
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.77" },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { client_name: string }).client_name).toBe(`[Unverified Dynamic Application] ${CLEAN}`);
  });

  it("personal access tokens: API and page", async () => {
    const expires_at = new Date(Date.now() + 5 * 86400_000).toISOString().slice(0, 10);
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const res = await call(`/api/v4/users/${user.id}/personal_access_tokens`, { ...json({ name: HOSTILE, scopes: ["api"], expires_at }), token: admin.token });
    expect(((await res.json()) as { name: string }).name).toBe(CLEAN);
    const { user: other, browser } = await signedInUser();
    await browser.get("/profile/personal_access_tokens");
    await browser.post("/profile/personal_access_tokens", { name: HOSTILE, expires_at, scopes: "read_user" });
    const row = await env.DB.prepare("SELECT name FROM personal_access_tokens WHERE user_id = ?").bind(other.id).first<{ name: string }>();
    expect(row!.name).toBe(CLEAN);
  });

  it("deploy tokens: API and page", async () => {
    const { user, browser } = await signedInUser();
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const res = await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: HOSTILE, scopes: ["read_repository"] }), token: owner.token });
    expect(((await res.json()) as { name: string }).name).toBe(CLEAN);
    const group = await makeGroup(user.id);
    const mine = await makeProject(user.id, { groupId: group.id, groupPath: group.fullPath });
    const path = `/${mine.pathWithNamespace}/-/settings/repository`;
    await browser.get(path);
    await browser.post(`${path}/deploy_tokens`, { name: HOSTILE, scopes: ["read_repository"] });
    const row = await env.DB.prepare("SELECT name FROM deploy_tokens WHERE project_id = ?").bind(mine.id).first<{ name: string }>();
    expect(row!.name).toBe(CLEAN);
  });

  it("users, groups and projects (GitLab's REST API): the display name", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const username = unique("u");
    const u = await call("/api/v4/users", { ...json({ username, name: HOSTILE, email: `${username}@example.com`, password: "a long enough password 1" }), token: admin.token });
    expect(((await u.json()) as { name: string }).name).toBe(CLEAN);
    const g = await call("/api/v4/groups", { ...json({ name: HOSTILE, path: unique("g") }), token: admin.token });
    expect(((await g.json()) as { name: string }).name).toBe(CLEAN);
    const p = await call("/api/v4/projects", { ...json({ name: HOSTILE, path: unique("p") }), token: admin.token });
    expect(((await p.json()) as { name: string }).name).toBe(CLEAN);
  });
});

describe("consent and device pages render names isolated (HTML §4.5.23 bdi)", () => {
  it("a name stored before the input rule is isolated on the consent page, the redirect origin too", async () => {
    // Stored directly: rows written before the rule still hold the characters.
    const { app } = await makeApp({ name: HOSTILE, scopes: ["api"] });
    const { browser } = await signedInUser();
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", scope: "api", state: "s" }));
    expect(res.status).toBe(200);
    const html = await res.text();
    const names = [...html.matchAll(/<strong><bdi>([^<]*)<\/bdi><\/strong>/g)].map((m) => m[1]);
    expect(names.filter((n) => n === HOSTILE)).toHaveLength(2);
    expect(html).toContain(`<code><bdi dir="ltr">${new URL(REDIRECT).origin}</bdi></code>`);
    // Nowhere on the page does the name stand outside an isolate.
    expect(html.replace(/<bdi>[^<]*<\/bdi>/g, "")).not.toContain(RLO);
  });

  it("the device flow's consent page isolates the application's name", async () => {
    const { app } = await makeApp({ name: HOSTILE, scopes: ["api"], confidential: false });
    const auth = (await (
      await call("/oauth/authorize_device", { method: "POST", body: new URLSearchParams({ client_id: app.uid }), headers: { "Content-Type": "application/x-www-form-urlencoded" } })
    ).json()) as { user_code: string };
    const { browser } = await signedInUser();
    await browser.get("/oauth/device");
    const res = await browser.post("/oauth/device", { user_code: auth.user_code });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect([...html.matchAll(/<strong><bdi>([^<]*)<\/bdi><\/strong>/g)].map((m) => m[1]).filter((n) => n === HOSTILE)).toHaveLength(2);
    expect(html.replace(/<bdi>[^<]*<\/bdi>/g, "")).not.toContain(RLO);
  });
});
