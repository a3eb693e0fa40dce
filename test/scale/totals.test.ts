import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";

/**
 * GitLab's offset pagination omits X-Total and X-Total-Pages (and the rel="last" link) when a
 * listing has more than 10,000 rows; the count stops reading there (docs/rest-api.md, Pagination).
 *
 * The file shares its runtime with the other workers files, one file at a time (vitest.config.ts):
 * their rows are listed and counted too, so every expected total is counted in D1 at the moment of
 * the request, and the rows seeded here are deleted afterwards (10,005 audit events and users would
 * otherwise sit in every later file's listings).
 */
let admin: { token: string };
/** The entity ids of this file's audit events: 5 counted ones and 10,000 others. */
const COUNTED = unique("counted");
const BULK = unique("bulk");
const sqlCount = async (q: string, ...binds: unknown[]) => (await env.DB.prepare(q).bind(...binds).first<{ n: number }>())!.n;

beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
  // 10,005 audit events in one statement, 5 of them for one entity.
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10005)
     INSERT INTO audit_events (action, entity_type, entity_id, details, created_at)
     SELECT 'sign_in', 'user', CASE WHEN i <= 5 THEN ?1 ELSE ?2 END, '{}', 1700000000000 + i FROM n`,
  ).bind(COUNTED, BULK).run();
});

afterAll(async () => {
  await env.DB.prepare("DELETE FROM audit_events WHERE entity_id IN (?, ?)").bind(COUNTED, BULK).run();
});

describe("no exact total above 10,000 rows", () => {
  it("above 10,000: no X-Total, X-Total-Pages or rel=last; the next page is still announced", async () => {
    const res = await callAt("16.0", "/api/v4/audit_events?per_page=100&page=3", { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBeNull();
    expect(res.headers.get("X-Total-Pages")).toBeNull();
    expect(res.headers.get("X-Next-Page")).toBe("4");
    expect(res.headers.get("X-Prev-Page")).toBe("2");
    const link = res.headers.get("Link")!;
    expect(link).toMatch(/rel="next"/);
    expect(link).toMatch(/rel="first"/);
    expect(link).not.toMatch(/rel="last"/);
  });
  it("the last page beyond 10,000 has no next page", async () => {
    const last = Math.ceil((await sqlCount("SELECT count(*) AS n FROM audit_events")) / 100);
    expect(last).toBeGreaterThan(100);
    const res = await callAt("16.0", `/api/v4/audit_events?per_page=100&page=${last}`, { token: admin.token });
    expect(((await res.json()) as unknown[]).length).toBeGreaterThan(0);
    expect(res.headers.get("X-Next-Page")).toBe("");
    expect(res.headers.get("Link")).not.toMatch(/rel="next"/);
  });
  it("at or below 10,000 the total is exact", async () => {
    const res = await callAt("16.0", `/api/v4/audit_events?entity_type=User&entity_id=${COUNTED}&per_page=2`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBe("5");
    expect(res.headers.get("X-Total-Pages")).toBe("3");
    expect(res.headers.get("Link")).toMatch(/rel="last"/);
  });
});

describe("members listings follow the same rule (src/db/page.ts, listPage)", () => {
  it("a project with more than 10,000 members: no X-Total or X-Total-Pages; the next page is announced", async () => {
    const owner = await makeUserWithToken();
    const created = await callAt("16.0", "/api/v4/projects", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ path: `crowded-${Date.now()}` }),
      token: owner.token,
    });
    const project = (await created.json()) as { id: number };
    const { n } = (await env.DB.prepare("SELECT coalesce(max(id), 0) AS n FROM users").first<{ n: number }>())!;
    await env.DB.prepare(
      `WITH RECURSIVE s(i) AS (SELECT ?1 + 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?1 + 10005)
       INSERT INTO users (id, username, name, email, password_hash, created_at)
       SELECT i, 'crowd' || i, 'Crowd ' || i, 'crowd' || i || '@example.com', 'x', 1700000000000 FROM s`,
    ).bind(n).run();
    await env.DB.prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, created_at)
       SELECT 'project', ?, id, 30, 1700000000000 FROM users WHERE id > ?`,
    ).bind(project.id, n).run();
    try {
      const res = await callAt("16.0", `/api/v4/projects/${project.id}/members?per_page=100&page=2`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(((await res.json()) as unknown[]).length).toBe(100);
      expect(res.headers.get("X-Total")).toBeNull();
      expect(res.headers.get("X-Total-Pages")).toBeNull();
      expect(res.headers.get("X-Next-Page")).toBe("3");
      expect(res.headers.get("Link")).not.toMatch(/rel="last"/);
    } finally {
      await env.DB.batch([
        env.DB.prepare("DELETE FROM members WHERE source_type = 'project' AND source_id = ? AND user_id > ?").bind(project.id, n),
        env.DB.prepare("DELETE FROM users WHERE id > ? AND id <= ? AND username GLOB 'crowd*'").bind(n, n + 10005),
      ]);
    }
  });
});

describe("the totals of /projects and /groups follow every insert, delete and change of visibility (row_counts triggers)", () => {
  const total = async (path: string, token: string) => Number((await callAt("16.0", path, { token })).headers.get("X-Total"));

  it("an administrator's and an ordinary user's X-Total equal the rows they may see", async () => {
    const owner = await makeUserWithToken();
    const other = await makeUserWithToken();
    const create = (path: string, visibility: string) =>
      callAt("16.0", "/api/v4/projects", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ path, visibility }), token: owner.token });
    const ids: number[] = [];
    for (const v of ["public", "internal", "private", "private"]) ids.push(((await (await create(`counted-${v}-${ids.length}-${Date.now()}`, v)).json()) as { id: number }).id);
    await callAt("16.0", "/api/v4/groups", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "Counted", path: `counted-${Date.now()}`, visibility: "internal" }), token: owner.token });
    // A change of visibility outside the API, and a deletion through it.
    await env.DB.prepare("UPDATE projects SET visibility = 'public' WHERE id = ?").bind(ids[2]).run();
    expect((await callAt("16.0", `/api/v4/projects/${ids[3]}`, { method: "DELETE", token: owner.token })).status).toBe(202);

    expect(await total("/api/v4/projects", admin.token)).toBe(await sqlCount("SELECT count(*) AS n FROM projects"));
    expect(await total("/api/v4/groups", admin.token)).toBe(await sqlCount("SELECT count(*) AS n FROM groups"));
    // The other user is nobody's member: public and internal rows only.
    expect(await total("/api/v4/projects", other.token)).toBe(await sqlCount("SELECT count(*) AS n FROM projects WHERE visibility IN ('public', 'internal')"));
    expect(await total("/api/v4/groups", other.token)).toBe(await sqlCount("SELECT count(*) AS n FROM groups WHERE visibility IN ('public', 'internal')"));
    // With a filter the rows are counted: the counters only stand for whole visibilities.
    expect(await total("/api/v4/projects?visibility=private", owner.token)).toBe(await sqlCount("SELECT count(*) AS n FROM projects WHERE visibility = 'private' AND namespace_kind = 'user' AND namespace_id = ?", owner.user.id));
  });
});
