import { describe, expect, it } from "vitest";
import { Browser } from "../helpers/browser";
import { TEST_PASSWORD, call, makeUserWithToken } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { appRoutes, fillTemplate, shapeDefect } from "./sweep-model";

/**
 * DESIGN, Hardening ("no input yields a 5xx"), for control characters in search and filter
 * strings: every GET route of every family, with each search and filter parameter carrying C0
 * controls (NUL first) and DEL, in a word long enough to reach the full-text index and in a short
 * exact one. docs/security.md, "Search": a search string holding a control character matches
 * nothing (src/db/search.ts), never a 5xx.
 */
const admin = await makeUserWithToken({ isAdmin: true });
const group = await makeGroup(admin.user.id, { visibility: "public" });
const project = await makeProject(admin.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "public" });
const browser = new Browser();
if ((await browser.signIn(admin.user.username, TEST_PASSWORD, "/")).status !== 303) throw new Error("sign-in failed");

/** Every C0 control and DEL, inside a word of the full-text index's length, alone, and between two words. */
const CONTROL_VALUES = [
  "%00abc",
  "abc%00",
  `${project.path.slice(0, 4)}%00`,
  "%00",
  "a%00b",
  ...Array.from({ length: 32 }, (_, i) => i)
    .filter((i) => ![0x09, 0x0a, 0x0d].includes(i))
    .map((i) => `abc%${i.toString(16).padStart(2, "0").toUpperCase()}def`),
  "xyz%7Fxyz",
  "%22%00abc%22",
  "abc%20%00%01%02",
];

/** The search and filter parameters the routes read (REST, GraphQL-over-GET excluded, pages). */
const FILTER_PARAMS = [
  "search", "username", "name", "order_by", "sort", "status", "type", "tag_list", "tag_list[]", "scopes[]", "state", "visibility", "topic",
  "package_name", "package_type", "package_version", "owned", "membership", "paused", "tags", "filter", "q", "query", "external_uid",
  "provider", "extern_uid", "job_title", "title", "labels", "author_username", "scope",
];

describe("control characters in search strings (docs/security.md, Search)", () => {
  for (const [path, anonymous] of [["/api/v4/projects", true], ["/api/v4/groups", true], ["/api/v4/users", false]] as const) {
    it(`GET ${path}?search=%00abc answers 200 with no match${anonymous ? ", anonymously and" : ""} as an administrator`, async () => {
      for (const token of anonymous ? [undefined, admin.token] : [admin.token]) {
        const res = await call(`${path}?search=%00abc`, { token });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual([]);
      }
    });
  }

  it("every control value of the sweep is a search that matches nothing on GET /api/v4/projects (the search parser, once per value)", async () => {
    for (const value of CONTROL_VALUES) {
      const res = await call(`/api/v4/projects?search=${value}`, { token: admin.token });
      expect(res.status, value).toBe(200);
      expect(await res.json(), value).toEqual([]);
    }
  });

  it("a control character in a word of a real name matches nothing, where the name without it matches", async () => {
    const found = (await (await call(`/api/v4/projects?search=${project.path}`, { token: admin.token })).json()) as { id: number }[];
    expect(found.map((p) => p.id)).toContain(project.id);
    for (const value of [`${project.path}%00`, `%01${project.path}`, `${project.path.slice(0, 6)}%7F${project.path.slice(6)}`]) {
      const res = await call(`/api/v4/projects?search=${value}`, { token: admin.token });
      expect(res.status, value).toBe(200);
      expect(await res.json(), value).toEqual([]);
    }
  });

  it("GET /admin/users?search=%00abc answers the page, with no user listed", async () => {
    const res = await browser.get("/admin/users?search=%00abc");
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(`/admin/users/${admin.user.username}"`);
  });
});

/** Filter parameters per request: few enough that one refused parameter rarely hides the others. */
const PARAMS_PER_REQUEST = 4;

describe("hostile-input sweep: control characters in every search and filter string of every GET route", () => {
  const known = [String(project.id), encodeURIComponent(project.pathWithNamespace), String(group.id), String(admin.user.id)];
  const routes = appRoutes().filter((r) => r.method === "GET");
  const credentials: Record<string, string>[] = [{}, { Authorization: `Bearer ${admin.token}` }, { Cookie: browser.cookieHeader() }];

  it(`every GET route answers below 500 in its family's shape (${routes.length} routes)`, async () => {
    let sent = 0;
    const send = async (route: (typeof routes)[number], query: string) => {
      const path = `${fillTemplate(route.path, known)}?${query}`;
      const res = await call(path, { headers: credentials[sent++ % credentials.length] });
      expect(await shapeDefect(route.family, "GET", path, res), `GET ${path}`).toBeNull();
    };
    for (const [r, route] of routes.entries()) {
      // Each value meets the search parser once above; here each route's surface meets search
      // twice, one of the first five values and one of the others in turn (every value meets
      // dozens of routes); the other parameters a few at a time, each with a value in turn; then
      // all at once.
      for (const value of [CONTROL_VALUES[r % 5], CONTROL_VALUES[5 + (r % (CONTROL_VALUES.length - 5))]]) await send(route, `search=${value}`);
      for (let i = 0; i < FILTER_PARAMS.length; i += PARAMS_PER_REQUEST) {
        const params = FILTER_PARAMS.slice(i, i + PARAMS_PER_REQUEST);
        await send(route, params.map((p, j) => `${p}=${CONTROL_VALUES[(r + i + j) % CONTROL_VALUES.length]}`).join("&"));
      }
      await send(route, FILTER_PARAMS.map((p) => `${p}=%00abc`).join("&"));
    }
    expect(sent).toBe(routes.length * (2 + Math.ceil(FILTER_PARAMS.length / PARAMS_PER_REQUEST) + 1));
  }, 600_000);
});
