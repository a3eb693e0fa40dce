import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { recordAudit } from "../../src/db/audit";
import { getDb } from "../../src/db/client";
import { makePat, makeUser, unique } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";
import { callAt } from "../helpers/versioned";

/**
 * GitLab's keyset pagination (REST API docs, "Keyset-based pagination"): pagination=keyset with an
 * order GitLab offers it for, the next page in the Link header (rel="next": id_after/id_before for
 * projects, an opaque cursor for groups and users), no X-Total; an order without keyset is 405.
 */
let admin: { token: string; user: { id: number } };
let viewer: { token: string; user: { id: number } };
let other: { id: number };

/**
 * The file shares its runtime with the other workers files (vitest.config.ts), whose users,
 * projects, groups and events are listed too: every walk reads this file's rows only, by a search
 * for the tag in their names (a substring, src/db/search.ts) or, for audit events, the entity
 * filter. The visibility rules still apply inside the search: the other user's private project and
 * group carry the tag and must not be listed to the viewer.
 */
const TAG = unique("keyset");
const tagged = (path: string) => `${path}${path.includes("?") ? "&" : "?"}search=${TAG}`;
let events: string;

/** A user whose username (and so name) holds the tag, with a token. */
async function taggedUser(n: number, isAdmin = false) {
  const user = await makeUser({ username: `${TAG}_u${n}`, isAdmin });
  return { user, token: await makePat(user.id) };
}

beforeAll(async () => {
  admin = await taggedUser(0, true);
  viewer = await taggedUser(1);
  for (let i = 0; i < 5; i++) {
    await taggedUser(2 + i);
    await makeProject(viewer.user.id, { visibility: i % 2 ? "public" : "private", path: `${TAG}-p${i}` });
    await makeGroup(viewer.user.id, { visibility: i % 2 ? "internal" : "private", path: `${TAG}-g${i}` });
  }
  // Rows the viewer must not see: another user's private project and group.
  other = (await taggedUser(7)).user;
  await makeProject(other.id, { visibility: "private", path: `${TAG}-hidden` });
  await makeGroup(other.id, { visibility: "private", path: `${TAG}-hidden` });
  for (let i = 0; i < 5; i++) await recordAudit(getDb(env.DB), { action: "user_blocked", entityType: "user", entityId: other.id, actor: { id: admin.user.id, ip: null } });
  events = `/api/v4/audit_events?entity_type=User&entity_id=${other.id}`;
});

/** Follows rel="next" from the first page; the ids in order, and every page's headers. */
async function walk(first: string, token: string) {
  const ids: number[] = [];
  const pages: Headers[] = [];
  let url: string | null = first;
  while (url && pages.length < 200) {
    const res = await callAt("16.0", url, { token });
    expect(res.status, await res.clone().text()).toBe(200);
    ids.push(...((await res.json()) as { id: number }[]).map((r) => r.id));
    pages.push(res.headers);
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get("Link") ?? "");
    url = next ? next[1] : null;
  }
  return { ids, pages };
}

/** The whole listing in one offset page, for comparison. */
async function all(path: string, token: string) {
  const res = await callAt("16.0", `${path}${path.includes("?") ? "&" : "?"}per_page=100`, { token });
  return ((await res.json()) as { id: number }[]).map((r) => r.id);
}

describe("keyset pagination: GET /projects (order_by=id)", () => {
  it("walks every visible project with id_after, in ascending id order, without totals", async () => {
    const { ids, pages } = await walk(tagged("/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2"), viewer.token);
    expect(ids).toEqual(await all(tagged("/api/v4/projects?order_by=id&sort=asc"), viewer.token));
    // The viewer's five, not the other user's private one.
    expect(ids.length).toBe(5);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(pages.length).toBe(Math.ceil(ids.length / 2));
    for (const h of pages) {
      expect(h.get("X-Total")).toBeNull();
      expect(h.get("X-Total-Pages")).toBeNull();
    }
    expect(pages[0].get("Link")).toMatch(/id_after=\d+/);
  });
  it("sort=desc pages with id_before", async () => {
    const { ids, pages } = await walk(tagged("/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=3"), viewer.token);
    expect(ids).toEqual(await all(tagged("/api/v4/projects?order_by=id&sort=desc"), viewer.token));
    expect(ids.length).toBe(5);
    expect(pages[0].get("Link")).toMatch(/id_before=\d+/);
  });
  it("another order is 405 with GitLab's message", async () => {
    const res = await callAt("16.0", "/api/v4/projects?pagination=keyset&order_by=created_at", { token: viewer.token });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: "Keyset pagination is not yet available for this type of request" });
  });
});

describe("keyset pagination: GET /groups (order_by=name, ascending)", () => {
  it("walks every visible group with a cursor", async () => {
    const { ids, pages } = await walk(tagged("/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=2"), viewer.token);
    expect(ids).toEqual(await all(tagged("/api/v4/groups?order_by=name&sort=asc"), viewer.token));
    expect(ids.length).toBe(5);
    expect(pages[0].get("Link")).toMatch(/cursor=[A-Za-z0-9_=-]+/);
    expect(pages[0].get("Link")).not.toMatch(/[?&]page=/);
  });
  it("descending or by id is 405", async () => {
    for (const q of ["order_by=name&sort=desc", "order_by=id"]) {
      expect((await callAt("16.0", `/api/v4/groups?pagination=keyset&${q}`, { token: viewer.token })).status).toBe(405);
    }
  });
});

describe("keyset pagination: GET /users (id, name, username, created_at; both directions)", () => {
  for (const order of ["id", "name", "username", "created_at"]) {
    for (const sort of ["asc", "desc"]) {
      it(`order_by=${order}&sort=${sort} walks every user`, async () => {
        const { ids } = await walk(tagged(`/api/v4/users?pagination=keyset&order_by=${order}&sort=${sort}&per_page=3`), admin.token);
        expect(ids).toEqual(await all(tagged(`/api/v4/users?order_by=${order}&sort=${sort}`), admin.token));
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(8);
      });
    }
  }
  it("the cursor is GitLab's: URL-safe base64 of the order value and id as strings, with _kd", async () => {
    const res = await callAt("16.0", "/api/v4/users?pagination=keyset&order_by=username&sort=asc&per_page=1", { token: admin.token });
    const [first] = (await res.json()) as { id: number; username: string }[];
    const cursor = new URL(/<([^>]+)>; rel="next"/.exec(res.headers.get("Link")!)![1]).searchParams.get("cursor")!;
    expect(JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")))).toEqual({ username: first.username, id: String(first.id), _kd: "n" });
  });
  it("a cursor that is not one, or for another order, is 400", async () => {
    for (const q of ["order_by=id&cursor=notacursor", `order_by=name&cursor=${btoa(JSON.stringify({ id: "3", _kd: "n" }))}`]) {
      const res = await callAt("16.0", `/api/v4/users?pagination=keyset&${q}`, { token: admin.token });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "cursor is invalid" });
    }
  });
});

describe("keyset pagination: GET /audit_events (GitLab: order_by=id, sort=desc only)", () => {
  it("walks every event by id descending with a cursor, with no total, the same events as offset pages", async () => {
    const { ids, pages } = await walk(`${events}&pagination=keyset&per_page=2`, admin.token);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    // The offset listing (newest first) holds the same events, and so does D1.
    expect([...(await all(events, admin.token))].sort((a, b) => b - a)).toEqual(ids);
    const stored = await env.DB.prepare("SELECT id FROM audit_events WHERE entity_type = 'user' AND entity_id = ? ORDER BY id DESC").bind(String(other.id)).all<{ id: number }>();
    expect(stored.results.map((r) => r.id)).toEqual(ids);
    for (const h of pages) {
      expect(h.get("X-Total")).toBeNull();
      expect(h.get("X-Total-Pages")).toBeNull();
    }
    expect(pages[0].get("Link")).toMatch(/[?&]cursor=[A-Za-z0-9_=-]+/);
  });
  it("the cursor is GitLab's: URL-safe base64 of the last id as a string, with _kd", async () => {
    const res = await callAt("16.0", "/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=1", { token: admin.token });
    const [first] = (await res.json()) as { id: number }[];
    const cursor = new URL(/<([^>]+)>; rel="next"/.exec(res.headers.get("Link")!)![1]).searchParams.get("cursor")!;
    expect(JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")))).toEqual({ id: String(first.id), _kd: "n" });
  });
  it("another order or ascending is 405 with GitLab's message; a cursor that is not one is 400", async () => {
    for (const q of ["order_by=created_at", "sort=asc"]) {
      const res = await callAt("16.0", `/api/v4/audit_events?pagination=keyset&${q}`, { token: admin.token });
      expect(res.status).toBe(405);
      expect(await res.json()).toEqual({ error: "Keyset pagination is not yet available for this type of request" });
    }
    const bad = await callAt("16.0", "/api/v4/audit_events?pagination=keyset&cursor=notacursor", { token: admin.token });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "cursor is invalid" });
  });
});

/**
 * GitLab's keyset pages link to the next page only (Gitlab::Pagination::Keyset::HeaderBuilder: one
 * rel="next", no rel="first", "prev" or "last", which would need a count or a backwards walk), and the
 * last page has no Link at all.
 */
describe("keyset pagination: the Link header carries rel=\"next\" only, and none on the last page", () => {
  const LISTINGS: [string, () => string, () => string][] = [
    ["/api/v4/projects", () => tagged("/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=1"), () => viewer.token],
    ["/api/v4/groups", () => tagged("/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=1"), () => viewer.token],
    ["/api/v4/users", () => tagged("/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=1"), () => admin.token],
    ["/api/v4/audit_events", () => `${events}&pagination=keyset&per_page=1`, () => admin.token],
  ];
  for (const [listing, first, token] of LISTINGS) {
    it(listing, async () => {
      const { pages } = await walk(first(), token());
      expect(pages.length).toBeGreaterThan(1);
      for (const h of pages.slice(0, -1)) {
        const rels = [...(h.get("Link") ?? "").matchAll(/rel="([^"]+)"/g)].map((m) => m[1]);
        expect(rels).toEqual(["next"]);
        expect(h.get("X-Next-Page")).toBeNull();
      }
      expect(pages[pages.length - 1].get("Link")).toBeNull();
    });
  }
});
