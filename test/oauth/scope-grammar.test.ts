import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { checkScopes, parseScopeList, parseScopes } from "../../src/domain/scopes";
import { AccessLevel } from "../../src/domain/access";
import { signedInUser } from "../helpers/browser";
import { TEST_PASSWORD, call, json, makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { basicAuth, claimsOf, tokenResponse } from "../registry/helpers";
import { REDIRECT, authorizeUrl, makeApp, tokenRequest } from "./helpers";

/*
 * One scope parser for every entry point (docs/security.md "Scopes"). Two grammars, as GitLab's:
 * an OAuth scope string (RFC 6749 §3.3, split on white space as Doorkeeper does; a literal `+` or `,`
 * is part of a scope-token), and a REST/page scope list (Grape's Array[String] with
 * CommaSeparatedToArray). Every variant gets the same answer at every entry point of its grammar,
 * and what is stored is exactly the list that was checked.
 */

/** OAuth scope strings, as the value after form or JSON decoding, and the list each must yield. */
const OAUTH_STRINGS: [string, string[] | null][] = [
  ["api read_user", ["api", "read_user"]],
  ["api\tread_user", ["api", "read_user"]],
  ["api\nread_user", ["api", "read_user"]],
  ["  api   read_user\r\n", ["api", "read_user"]],
  ["api read_user api", ["api", "read_user"]],
  ["api,read_user", null],
  ["api+read_user", null],
  ["api\u00a0read_user", null],
  ["api\u2028read_user", null],
  ["api nonsense", null],
  ["API", null],
];

/** REST and page scope lists (each element a comma list) and the list each must yield. */
const LISTS: [string[], string[] | null][] = [
  [["api", "read_user"], ["api", "read_user"]],
  [["api,read_user"], ["api", "read_user"]],
  [["api, read_user"], ["api", "read_user"]],
  [["api,", "read_user"], ["api", "read_user"]],
  [["api read_user"], null],
  [["api+read_user"], null],
  [["api", "nonsense"], null],
  [["api;read_user"], null],
];

/** The variants that smuggled sudo past the registration check (the check split on spaces, storage on [\s+,]). */
const SUDO_SMUGGLING = ["api sudo", "api,sudo", "api+sudo", "api\tsudo", "api\nsudo", "api\rsudo", "api\fsudo", "api\vsudo", "sudo", "api  sudo", "admin_mode api"];

let address = 0;
function register(body: unknown) {
  return call("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${++address}` } });
}

const storedScopes = async (table: string, id: number) => (await env.DB.prepare(`SELECT scopes FROM ${table} WHERE id = ?`).bind(id).first<{ scopes: string }>())!.scopes;

describe("scope grammar: the parser (RFC 6749 §3.3; GitLab's CommaSeparatedToArray)", () => {
  it.each(OAUTH_STRINGS)("OAuth scope string %j", (value, expected) => {
    const checked = checkScopes(parseScopes(value));
    expect(checked.ok ? checked.scopes : null).toEqual(expected);
  });
  it.each(LISTS)("scope list %j", (value, expected) => {
    const checked = checkScopes(parseScopeList(value));
    expect(checked.ok ? checked.scopes : null).toEqual(expected);
  });
});

describe("RFC 7591 POST /oauth/register: one parser, and never sudo or admin_mode for a self-registered client", () => {
  it.each(SUDO_SMUGGLING)("refuses %j with invalid_client_metadata and stores no client", async (scope) => {
    const name = unique("smuggler");
    const res = await register({ client_name: name, redirect_uris: [REDIRECT], scope });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client_metadata");
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_applications WHERE name LIKE ?").bind(`%${name}`).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });

  it.each(OAUTH_STRINGS)("scope %j: accepted exactly when the parser accepts it, and the stored scopes are the checked list", async (scope, expected) => {
    const res = await register({ client_name: "grammar", redirect_uris: [REDIRECT], scope });
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_client_metadata");
      return;
    }
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id: string; scope: string };
    expect(body.scope).toBe(expected.join(" "));
    const row = await env.DB.prepare("SELECT scopes FROM oauth_applications WHERE uid = ?").bind(body.client_id).first<{ scopes: string }>();
    expect(row!.scopes).toBe(expected.join(" "));
  });
});

describe("GitLab applications API POST /api/v4/applications: `scopes` a space-separated string or an array", () => {
  it.each([...OAUTH_STRINGS.map(([v, e]) => [v, e] as const), ...LISTS.map(([v, e]) => [v, e] as const)])("scopes %j", async (scopes, expected) => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const res = await call("/api/v4/applications", { ...json({ name: unique("app"), redirect_uri: REDIRECT, scopes }), token: admin.token });
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: { scopes: ["doesn't match configured on the server."] } });
      return;
    }
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: number; scopes?: unknown };
    expect(await storedScopes("oauth_applications", body.id)).toBe(expected.join(" "));
  });
});

describe("/profile/applications: each checkbox value a scope list", () => {
  it.each(LISTS)("scopes %j", async (scopes, expected) => {
    const { user, browser } = await signedInUser();
    await browser.get("/profile/applications");
    const name = unique("page app");
    const res = await browser.post("/profile/applications", { name, redirect_uri: REDIRECT, scopes });
    const row = await env.DB.prepare("SELECT scopes FROM oauth_applications WHERE owner_id = ? AND name = ?").bind(user.id, name).first<{ scopes: string }>();
    if (expected === null) {
      expect(res.status).toBe(422);
      expect(row).toBeNull();
      return;
    }
    expect(res.status).toBe(201);
    expect(row!.scopes).toBe(expected.join(" "));
  });
});

describe("personal access tokens: GitLab's API and the page take a scope list", () => {
  const expiresAt = new Date(Date.now() + 10 * 86400_000).toISOString().slice(0, 10);
  it.each(LISTS)("POST /api/v4/users/:id/personal_access_tokens scopes %j", async (scopes, expected) => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const res = await call(`/api/v4/users/${user.id}/personal_access_tokens`, { ...json({ name: "t", scopes, expires_at: expiresAt }), token: admin.token });
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM personal_access_tokens WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: { scopes: ["can only contain available scopes"] } });
      expect(count!.n).toBe(0);
      return;
    }
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: number; scopes: string[] };
    expect(body.scopes).toEqual(expected);
    expect(await storedScopes("personal_access_tokens", body.id)).toBe(expected.join(" "));
  });

  it.each(LISTS)("the page /profile/personal_access_tokens scopes %j", async (scopes, expected) => {
    const { user, browser } = await signedInUser();
    await browser.get("/profile/personal_access_tokens");
    const res = await browser.post("/profile/personal_access_tokens", { name: "page token", expires_at: expiresAt, scopes });
    const row = await env.DB.prepare("SELECT scopes FROM personal_access_tokens WHERE user_id = ?").bind(user.id).first<{ scopes: string }>();
    if (expected === null) {
      expect(res.status).toBe(422);
      expect(row).toBeNull();
      return;
    }
    expect(res.status).toBeLessThan(400);
    expect(row!.scopes).toBe(expected.join(" "));
  });
});

/** Deploy tokens take deploy-token scopes; the same list variants with those names. */
const DEPLOY_LISTS: [string[], string[] | null][] = LISTS.map(([v, e]) => [
  v.map((s) => s.replace(/\bapi\b/, "read_repository").replace(/\bread_user\b/, "read_registry")),
  e && e.map((s) => (s === "api" ? "read_repository" : "read_registry")),
]);

describe("deploy tokens: GitLab's API and the page take a scope list", () => {
  async function maintained() {
    const owner = await makeUserWithToken();
    const group = await makeGroup(owner.user.id);
    const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
    return { owner, project };
  }

  it.each(DEPLOY_LISTS)("POST /api/v4/projects/:id/deploy_tokens scopes %j", async (scopes, expected) => {
    const { owner, project } = await maintained();
    const res = await call(`/api/v4/projects/${project.id}/deploy_tokens`, { ...json({ name: "d", scopes }), token: owner.token });
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM deploy_tokens WHERE project_id = ?").bind(project.id).first<{ n: number }>();
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: { scopes: ["can only contain available scopes"] } });
      expect(count!.n).toBe(0);
      return;
    }
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: number; scopes: string[] };
    expect(body.scopes).toEqual(expected);
    expect(await storedScopes("deploy_tokens", body.id)).toBe(expected.join(" "));
  });

  it.each(DEPLOY_LISTS)("the project page's deploy token form scopes %j", async (scopes, expected) => {
    const { user, browser } = await signedInUser();
    const group = await makeGroup(user.id);
    const project = await makeProject(user.id, { groupId: group.id, groupPath: group.fullPath });
    const path = `/${project.pathWithNamespace}/-/settings/repository`;
    expect((await browser.get(path)).status).toBe(200);
    const res = await browser.post(`${path}/deploy_tokens`, { name: "page deploy", scopes });
    const row = await env.DB.prepare("SELECT scopes FROM deploy_tokens WHERE project_id = ?").bind(project.id).first<{ scopes: string }>();
    if (expected === null) {
      expect(res.status).toBe(422);
      expect(row).toBeNull();
      return;
    }
    expect(res.status).toBeLessThan(400);
    expect(row!.scopes).toBe(expected.join(" "));
  });
});

describe("OAuth `scope` parameters (RFC 6749 §3.3) at authorize, token and device authorization", () => {
  it.each(OAUTH_STRINGS)("GET /oauth/authorize scope %j: the consent page for the parsed list, else invalid_scope at the redirect URI", async (scope, expected) => {
    const { app } = await makeApp({ scopes: ["api", "read_user"], confidential: true });
    const { browser } = await signedInUser();
    const res = await browser.fetch(authorizeUrl({ client_id: app.uid, redirect_uri: REDIRECT, response_type: "code", state: "s", scope }));
    if (expected === null) {
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_scope");
      return;
    }
    expect(res.status).toBe(200);
    const hidden = /<input type="hidden" name="scope" value="([^"]*)"/.exec(await res.text());
    expect(hidden![1]).toBe(expected.join(" "));
  });

  it.each(OAUTH_STRINGS)("POST /oauth/token (password grant) scope %j", async (scope, expected) => {
    const { app, secret } = await makeApp({ scopes: ["api", "read_user"] });
    const user = await makeUser();
    const res = await tokenRequest({ grant_type: "password", username: user.username, password: TEST_PASSWORD, scope }, { basic: [app.uid, secret] });
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_scope");
      return;
    }
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe(expected.join(" "));
  });

  it.each(OAUTH_STRINGS)("POST /oauth/authorize_device scope %j", async (scope, expected) => {
    const { app } = await makeApp({ scopes: ["api", "read_user"], confidential: false });
    const res = await call("/oauth/authorize_device", {
      method: "POST",
      body: new URLSearchParams({ client_id: app.uid, scope }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": `198.18.0.${++address % 250}` },
    });
    if (expected === null) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_scope");
      return;
    }
    expect(res.status).toBe(200);
    const stored = await env.DB.prepare("SELECT scopes FROM oauth_device_grants WHERE application_id = ?").bind(app.id).first<{ scopes: string }>();
    expect(stored!.scopes).toBe(expected.join(" "));
  });
});

describe("/jwt/auth (Docker token protocol): `scope` repeats, and one value may hold several separated by white space", () => {
  it("grants each resource scope of a space- or tab-separated value, as if sent separately", async () => {
    const owner = await makeUser();
    const group = await makeGroup(owner.id);
    const a = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath });
    const b = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath });
    const dev = await makeUser();
    for (const p of [a, b]) await addMemberTo("project", p.id, dev.id, AccessLevel.DEVELOPER);
    const auth = basicAuth(dev.username, await makePat(dev.id, ["read_registry"]));
    const [na, nb] = [a.pathWithNamespace.toLowerCase(), b.pathWithNamespace.toLowerCase()];
    for (const joined of [`repository:${na}:pull repository:${nb}:pull`, `repository:${na}:pull\trepository:${nb}:pull`]) {
      const res = await tokenResponse([joined], auth);
      expect(res.status).toBe(200);
      const access = claimsOf(((await res.json()) as { token: string }).token).access;
      expect(access.map((e) => [e.name, e.actions])).toEqual([
        [na, ["pull"]],
        [nb, ["pull"]],
      ]);
    }
  });
});


