import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import { AccessLevel } from "../../src/domain/access";
import { getDb } from "../../src/db/client";
import { groupMemberships } from "../../src/db/group-memberships";
import { makeUserWithToken } from "../helpers/fixtures";
import { queryPlan, recordingEnv, scalarSubqueryPlans, type RecordedStatement } from "../helpers/d1-recording";
import { addMemberTo, makeGroup, makeProject, makeRunner } from "../helpers/resources";

/**
 * docs/scaling.md, "What bounds each table": every listing's statements, as the request ran them
 * through the real D1 binding, are planned by SQLite with EXPLAIN QUERY PLAN, and none may read a
 * large table in full. Large tables are those that grow with users and their activity (below);
 * a SCAN of one through an index ("USING INDEX", "USING COVERING INDEX") walks it in the order
 * the LIMIT stops, and is allowed; a bare SCAN, a temporary B-tree built per request for an
 * automatic index, or a sort of a large table's rows is not.
 */
const LARGE = [
  "users",
  "groups",
  "projects",
  "members",
  "audit_events",
  "runners",
  "runner_projects",
  "packages",
  "package_files",
  "registry_repositories",
  "registry_tags",
  "personal_access_tokens",
];

/**
 * The offending plan lines of a statement: full scans of a large table, automatic indexes. A bare
 * SCAN walks the table in rowid order, which reads no further than the LIMIT only when the
 * statement is ordered by that id and nothing is sorted afterwards.
 */
export function fullScans(sqlText: string, plan: string[]): string[] {
  const sorts = plan.some((line) => /USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY/.test(line));
  return plan.filter((line) => {
    // An automatic index over a large table is a temporary B-tree of all its rows, per request.
    const auto = /^(?:SEARCH|SCAN) (\S+).*AUTOMATIC/.exec(line.trim());
    if (auto) return LARGE.includes(auto[1]);
    const m = /^SCAN (\S+)(?: AS \S+)?(.*)$/.exec(line.trim());
    if (!m || !LARGE.includes(m[1])) return false;
    if (/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(m[2])) return false;
    const inIdOrder = new RegExp(`order by "${m[1]}"\\."id" (asc|desc)[^()]*limit \\?`, "i").test(sqlText);
    return sorts || !inIdOrder;
  });
}

/** Lookups by path (GET /projects/:path, group(fullPath:)) are checked by the path-lookup tests. */
const PATH_LOOKUP = /where lower\("(groups|projects)"\."(full_path|path_with_namespace)"\) = \? limit \?$/;

async function planOf(path: string, token: string, init: RequestInit = {}) {
  const { env, statements } = recordingEnv();
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
  const reads = statements.filter((s) => /^\s*(select|with)/i.test(s.sql) && !PATH_LOOKUP.test(s.sql));
  const bad: { sql: string; lines: string[] }[] = [];
  for (const s of reads) {
    const lines = fullScans(s.sql, await queryPlan(s));
    if (lines.length) bad.push({ sql: s.sql, lines });
  }
  return { bad, reads: reads as RecordedStatement[], text };
}

const gqlInit = (query: string, variables: Record<string, unknown> = {}): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ query, variables }),
});

let admin: { token: string };
let member: { token: string; user: { id: number } };
let group: { id: number; fullPath: string };
let project: { id: number; pathWithNamespace: string };

beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
  member = await makeUserWithToken();
  group = await makeGroup(member.user.id, { visibility: "private" });
  const sub = await makeGroup(member.user.id, { visibility: "internal", parentId: group.id });
  project = await makeProject(member.user.id, { groupId: sub.id, groupPath: sub.fullPath, visibility: "private" });
  await addMemberTo("project", project.id, member.user.id, AccessLevel.MAINTAINER);
  await makeRunner({ runnerType: "group_type", groupId: group.id });
  await makeRunner({ runnerType: "project_type", projectId: project.id });
});

const REST: [string, string, "admin" | "member"][] = [
  ["GET /projects as an administrator (default order created_at)", "/api/v4/projects", "admin"],
  ["GET /projects as an administrator, a deep page", "/api/v4/projects?page=40&per_page=100", "admin"],
  ["GET /projects order_by=last_activity_at", "/api/v4/projects?order_by=last_activity_at", "admin"],
  ["GET /projects order_by=id", "/api/v4/projects?order_by=id&sort=asc", "admin"],
  ["GET /projects as an ordinary user", "/api/v4/projects", "member"],
  ["GET /projects?membership=true", "/api/v4/projects?membership=true", "member"],
  ["GET /projects?visibility=public", "/api/v4/projects?visibility=public", "member"],
  ["GET /projects keyset", "/api/v4/projects?pagination=keyset&order_by=id&sort=asc", "member"],
  ["GET /groups as an administrator", "/api/v4/groups", "admin"],
  ["GET /groups as an ordinary user", "/api/v4/groups", "member"],
  ["GET /groups?owned=true", "/api/v4/groups?owned=true", "member"],
  ["GET /groups keyset", "/api/v4/groups?pagination=keyset&order_by=name&sort=asc", "member"],
  ["GET /users", "/api/v4/users", "member"],
  ["GET /users keyset", "/api/v4/users?pagination=keyset&order_by=id&sort=asc", "member"],
  ["GET /audit_events", "/api/v4/audit_events", "admin"],
  ["GET /audit_events deep page", "/api/v4/audit_events?page=30", "admin"],
  ["GET /audit_events keyset", "/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc", "admin"],
  ["GET /projects as an ordinary user, a deep page", "/api/v4/projects?page=40&per_page=100", "member"],
  ["GET /groups as an ordinary user, a deep page", "/api/v4/groups?page=40&per_page=100", "member"],
  ["GET /runners/all", "/api/v4/runners/all", "admin"],
  ["GET /runners/all order_by=contacted_at", "/api/v4/runners/all?order_by=contacted_at", "admin"],
  ["GET /runners (the caller's)", "/api/v4/runners", "member"],
];

describe("EXPLAIN QUERY PLAN of every listing: no full scan of a large table", () => {
  for (const [name, path, who] of REST) {
    it(name, async () => {
      const { bad } = await planOf(path, who === "admin" ? admin.token : member.token);
      expect(bad).toEqual([]);
    });
  }
  it("GET /groups/:id/projects, /groups/:id/runners, /projects/:id/runners", async () => {
    for (const path of [`/api/v4/groups/${group.id}/projects`, `/api/v4/groups/${group.id}/runners`, `/api/v4/projects/${project.id}/runners`]) {
      const { bad } = await planOf(path, member.token);
      expect(bad, path).toEqual([]);
    }
  });
  it("GET /projects/:id/packages", async () => {
    const { bad } = await planOf(`/api/v4/projects/${project.id}/packages`, member.token);
    expect(bad).toEqual([]);
  });
  it("GET /projects/:id/registry/repositories and /groups/:id/registry/repositories", async () => {
    for (const path of [`/api/v4/projects/${project.id}/registry/repositories?tags=true&tags_count=true`, `/api/v4/groups/${group.id}/registry/repositories`]) {
      const { bad } = await planOf(path, member.token);
      expect(bad, path).toEqual([]);
    }
  });
  it("GraphQL runners (instance, sorted by creation and by contact) and group runners", async () => {
    for (const q of [
      "{ runners(first: 20) { nodes { id } } }",
      "{ runners(first: 20, sort: CONTACTED_ASC) { nodes { id } } }",
      `{ group(fullPath: "${group.fullPath}") { runners(first: 20) { nodes { id } } } }`,
    ]) {
      const { bad, text } = await planOf("/api/graphql", q.startsWith("{ runners") ? admin.token : member.token, gqlInit(q));
      expect(text).not.toMatch(/"errors"/);
      expect(bad, q).toEqual([]);
    }
  });
  it("GraphQL project and group packages", async () => {
    for (const q of [
      `{ project(fullPath: "${project.pathWithNamespace}") { packages(first: 20) { nodes { name } } } }`,
      `{ group(fullPath: "${group.fullPath}") { packages(first: 20) { nodes { name } } } }`,
    ]) {
      const { bad, text } = await planOf("/api/graphql", member.token, gqlInit(q));
      expect(text).not.toMatch(/"errors"/);
      expect(bad, q).toEqual([]);
    }
  });
});

/**
 * docs/scaling.md, "Search": a search reads the rows it matches, found through the FTS5 trigram
 * index (a word of three characters or more) or a lower(...) index (a shorter, exact query), never
 * by walking a large table, even in an index's order (a filter that few rows pass would walk it all).
 */
const SEARCHES: [string, string, "admin" | "member", string | null][] = [
  ["GET /users?search= (a word)", "/api/v4/users?search=alice", "member", "users_fts"],
  ["GET /users?search= as an administrator (a word, or a whole email)", "/api/v4/users?search=alice%40example.com", "admin", "users_fts"],
  ["GET /users?search= (short: exact)", "/api/v4/users?search=al", "member", null],
  ["GET /users?search= keyset ordered by name", "/api/v4/users?search=alice&pagination=keyset&order_by=name&sort=asc", "member", "users_fts"],
  ["GET /projects?search= as an administrator", "/api/v4/projects?search=widget", "admin", "projects_fts"],
  ["GET /projects?search= as an ordinary user", "/api/v4/projects?search=widget", "member", "projects_fts"],
  ["GET /projects?search= ordered by name", "/api/v4/projects?search=widget&order_by=name", "member", "projects_fts"],
  ["GET /projects?search=&search_namespaces=true", "/api/v4/projects?search=widget&search_namespaces=true", "member", "projects_fts"],
  ["GET /projects?search= (short: exact)", "/api/v4/projects?search=wd", "member", null],
  ["GET /groups?search= as an ordinary user", "/api/v4/groups?search=team", "member", "groups_fts"],
  ["GET /groups?search= as an administrator", "/api/v4/groups?search=team", "admin", "groups_fts"],
  ["GET /groups?search= (short: exact)", "/api/v4/groups?search=te", "member", null],
];

describe("EXPLAIN QUERY PLAN of every search: found through an index, no walk of a large table", () => {
  for (const [name, path, who, fts] of SEARCHES) {
    it(name, async () => {
      const { reads } = await planOf(path, who === "admin" ? admin.token : member.token);
      const plans = await Promise.all(reads.map(async (s) => ({ sql: s.sql, plan: await queryPlan(s) })));
      const walks = plans.flatMap(({ sql, plan }) =>
        plan.filter((line) => /^SCAN (\S+)/.test(line.trim()) && LARGE.includes(/^SCAN (\S+)/.exec(line.trim())![1])).map((line) => `${line} <- ${sql}`),
      );
      expect(walks).toEqual([]);
      if (fts) expect(plans.some(({ plan }) => plan.some((line) => line.includes(`SCAN ${fts} VIRTUAL TABLE`)))).toBe(true);
    });
  }
});

describe("EXPLAIN QUERY PLAN of the OIDC group claims' query (src/db/group-memberships.ts)", () => {
  it("walks members(user_id) and groups(parent_id), never the whole groups table", async () => {
    const { env: recording, statements } = recordingEnv();
    await groupMemberships(getDb(recording.DB), member.user.id);
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      const plan = await queryPlan(s);
      const walks = plan.filter((line) => /^SCAN (groups|members)\b/.test(line.trim()) && !/COVERING INDEX/.test(line));
      expect(walks, s.sql).toEqual([]);
    }
  });
});

/**
 * docs/scaling.md, "Listings": what an ordinary user sees is found from their memberships, read by
 * (user_id, source_type) from members_user_source_idx. The unique (source_type, source_id, user_id)
 * index serves only `source_type = ?` for that lookup: a walk of every membership of that type,
 * which grows with the whole instance (a user in 30,000 groups made it 1.5-1.8x slower at 300k).
 */
describe("EXPLAIN QUERY PLAN: an ordinary user's memberships are read by user, never by walking a membership type", () => {
  for (const path of ["/api/v4/projects", "/api/v4/groups", "/api/v4/projects?search=widget", "/api/v4/groups?search=team", "/api/v4/projects?membership=true"]) {
    it(`GET ${path}`, async () => {
      const { reads } = await planOf(path, member.token);
      const lines = (await Promise.all(reads.map((s) => queryPlan(s)))).flat().filter((line) => /\bmembers\b/.test(line));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => !/members_user_source_idx \(user_id=\? AND source_type=\?/.test(line))).toEqual([]);
    });
  }
});

/**
 * docs/scaling.md, "Listings": the total of GET /projects and /groups counts a whole visibility (or,
 * for an administrator, the whole table) from row_counts, kept by triggers, rather than reading up
 * to 10,000 entries of a visibility index per branch on every request.
 */
describe("EXPLAIN QUERY PLAN: the totals of /projects and /groups read row_counts, not the visibility indexes", () => {
  for (const [path, who] of [
    ["/api/v4/projects", "admin"],
    ["/api/v4/projects?page=40&per_page=100", "admin"],
    ["/api/v4/groups", "admin"],
    ["/api/v4/projects", "member"],
    ["/api/v4/groups", "member"],
  ] as const) {
    it(`GET ${path} as ${who === "admin" ? "an administrator" : "an ordinary user"}`, async () => {
      const { reads } = await planOf(path, who === "admin" ? admin.token : member.token);
      // The total is a scalar subquery of the page's own statement (one statement per listing),
      // and of a second one only when the page is past the end (no row to carry it).
      const counts = reads.filter((s) => /count\(\*\)|row_counts/.test(s.sql));
      expect(counts.length).toBeGreaterThanOrEqual(1);
      expect(counts.length).toBeLessThanOrEqual(2);
      for (const statement of counts) {
        const plan = await scalarSubqueryPlans(statement);
        expect(plan.some((line) => /row_counts/.test(line))).toBe(true);
        expect(plan.filter((line) => /(projects|groups)_visibility|^SCAN (projects|groups)\b/.test(line.trim()))).toEqual([]);
      }
    });
  }
});

/**
 * docs/scaling.md, "Search": one word is one FTS5 phrase under a column set, so each of its
 * trigrams' posting lists is read once, not once per searched column (a word of common trigrams
 * read lists as long as the table three times); several words keep the per-column rule (all in
 * the same column, GitLab's Gitlab::SQL::Pattern).
 */
describe("EXPLAIN QUERY PLAN of a search: one word is matched once over the column set", () => {
  const matchOf = async (path: string) => {
    const { reads } = await planOf(path, member.token);
    // These words match nothing: an empty first page is not followed by a count (one statement).
    const matching = reads.filter((s) => /_fts" MATCH/.test(s.sql));
    expect(matching, path).toHaveLength(1);
    const plan = await queryPlan(matching[0]);
    expect(plan.filter((line) => /VIRTUAL TABLE/.test(line)), path).toHaveLength(1);
    return matching[0].params.find((p) => typeof p === "string" && p.includes(":"));
  };
  it("GET /projects?search=, /groups?search=, /users?search= with one word: one phrase under {columns}", async () => {
    expect(await matchOf("/api/v4/projects?search=widget")).toBe('{name path description} : "widget"');
    expect(await matchOf("/api/v4/projects?search=widget&search_namespaces=true")).toBe('{name path description path_with_namespace} : "widget"');
    expect(await matchOf("/api/v4/groups?search=team")).toBe('{name path full_path} : "team"');
    expect(await matchOf("/api/v4/users?search=alice")).toBe('{username name} : "alice"');
  });
  it("GET /projects?search= with two words: every word in the same column", async () => {
    expect(await matchOf("/api/v4/projects?search=widget%20gadget")).toBe(
      'name : ("widget" AND "gadget") OR path : ("widget" AND "gadget") OR description : ("widget" AND "gadget")',
    );
  });
});

/**
 * docs/scaling.md, "Search": a search's page and its total read the matches found once (a CTE that
 * SQLite materializes), so the FTS match, whose cost grows with the table, runs once per request.
 */
describe("a search runs its FTS match once per request: the page and the total share it", () => {
  it("GET /projects, /groups and /users?search= with matches: one statement holds the match, and it is materialized once", async () => {
    const word = `quokka${Date.now()}`;
    await makeProject(member.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "public" }).then((p) =>
      recordingEnv().env.DB.prepare("UPDATE projects SET name = ? WHERE id = ?").bind(`${word} project`, p.id).run(),
    );
    const g = await makeGroup(member.user.id, { visibility: "public" });
    await recordingEnv().env.DB.prepare("UPDATE groups SET name = ? WHERE id = ?").bind(`${word} group`, g.id).run();
    const u = await makeUserWithToken();
    await recordingEnv().env.DB.prepare("UPDATE users SET name = ? WHERE id = ?").bind(`${word} person`, u.user.id).run();
    for (const path of [`/api/v4/projects?search=${word}`, `/api/v4/groups?search=${word}`, `/api/v4/users?search=${word}`]) {
      const { reads, text } = await planOf(path, member.token);
      expect((JSON.parse(text) as unknown[]).length, path).toBe(1);
      const matching = reads.filter((s) => /_fts" MATCH/.test(s.sql));
      expect(matching, path).toHaveLength(1);
      const plan = await queryPlan(matching[0]);
      expect(plan.filter((line) => /MATCH|VIRTUAL TABLE/.test(line)), path).toHaveLength(1);
      expect(plan.some((line) => /MATERIALIZE hits/.test(line)), path).toBe(true);
    }
  });
});

/**
 * docs/scaling.md, "Listings at GitLab's sizes": an ordinary user's page is the merge of the
 * visibility branches, each delivered in the listing's order by its index (MERGE (UNION ALL),
 * stopping at offset + page + 1 rows in all), and only the page's rows are read from the table.
 * Sorting the union of every branch's first offset + page rows instead made page 200 cost 5x
 * the first page at 100k projects.
 */
describe("EXPLAIN QUERY PLAN: an ordinary user's page merges the branches in index order", () => {
  for (const path of ["/api/v4/projects?page=40&per_page=100", "/api/v4/groups?page=40&per_page=100", "/api/v4/projects?order_by=name&sort=asc"]) {
    it(`GET ${path}`, async () => {
      const { reads } = await planOf(path, member.token);
      // The page's ids: the branches' arms merged in the order of their key (k).
      const page = reads.filter((s) => /UNION ALL/.test(s.sql) && /ORDER BY k /.test(s.sql));
      expect(page).toHaveLength(1);
      const plan = await queryPlan(page[0]);
      expect(plan.filter((line) => /MERGE \(UNION ALL\)/.test(line)).length).toBeGreaterThan(0);
      // The public and internal branches come from the (visibility, order column, id) index, unsorted.
      expect(plan.filter((line) => /SEARCH (projects|groups) USING COVERING INDEX (projects|groups)_visibility_\w+ \(visibility=\?\)/.test(line))).toHaveLength(2);
    });
  }
});
