import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken } from "../helpers/fixtures";
import { queryPlan, recordingEnv, type RecordedStatement } from "../helpers/d1-recording";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";

/**
 * docs/scaling.md, "Listings" (issue 23's rows that were not flat): a project's packages, a group
 * tree's packages and a repository listing with tags_count. Each rule below is read from the plan
 * SQLite makes of exactly what the request ran (EXPLAIN QUERY PLAN through the real D1 binding):
 * - a total stops reading at COUNT_CAP + 1 rows (GitLab gives no total above 10,000);
 * - tags_count is read from the repository row, never counted over registry_tags;
 * - the packages of several projects are sorted only after each project gave at most a page of
 *   them from its own index range, never all of them.
 */
let member: { token: string; user: { id: number } };
let group: { id: number; fullPath: string };
let projects: { id: number; pathWithNamespace: string }[];

beforeAll(async () => {
  member = await makeUserWithToken();
  group = await makeGroup(member.user.id, { visibility: "private" });
  const sub = await makeGroup(member.user.id, { visibility: "private", parentId: group.id });
  projects = [
    await makeProject(member.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "private" }),
    await makeProject(member.user.id, { groupId: sub.id, groupPath: sub.fullPath, visibility: "private" }),
  ];
  for (const p of projects) await addMemberTo("project", p.id, member.user.id, AccessLevel.MAINTAINER);
  // Packages interleaved in time across the two projects: the first holds the even ones.
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
     INSERT INTO packages (project_id, name, version, package_type, status, created_at)
     SELECT CASE WHEN i % 2 = 0 THEN ? ELSE ? END, 'pkg' || printf('%03d', i), '1.0.' || i, 'generic', 'default', 1700000000000 + i FROM n`,
  ).bind(projects[0].id, projects[1].id).run();
  const now = Date.now();
  await env.DB.prepare("INSERT INTO registry_repositories (project_id, name, path, created_at, updated_at) VALUES (?, '', ?, ?, ?)").bind(projects[0].id, projects[0].pathWithNamespace.toLowerCase(), now, now).run();
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
     INSERT INTO registry_tags (repository_id, name, digest, revision, total_size, created_at)
     SELECT (SELECT id FROM registry_repositories WHERE project_id = ?), 'v' || i, 'sha256:' || i, 'r', 10, ? FROM n`,
  ).bind(projects[0].id, now).run();
});

async function run(path: string, init: RequestInit = {}) {
  const { env: recording, statements } = recordingEnv();
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${member.token}`);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), recording, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  return { statements: statements.filter((s) => /^\s*(select|with)/i.test(s.sql)), text };
}

const graphql = (query: string): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query }) });
const mentions = (s: RecordedStatement, table: string) => new RegExp(`"${table}"|\\b${table}\\b`).test(s.sql);
/** A count that reads every matching row: count(*) not over a LIMITed subquery. */
const uncapped = (s: RecordedStatement) => /count\(\*\)/i.test(s.sql) && !/count\(\*\)\s+from\s+\(select 1 from .* limit \?\)/i.test(s.sql);

describe("a listing's total stops at COUNT_CAP + 1 rows", () => {
  for (const [name, path, init] of [
    ["GET /projects/:id/packages", () => `/api/v4/projects/${projects[0].id}/packages`, undefined],
    ["GraphQL project { packages }", () => "/api/graphql", () => graphql(`{ project(fullPath: "${projects[0].pathWithNamespace}") { packages(first: 5) { count nodes { name } } } }`)],
    ["GraphQL group { packages }", () => "/api/graphql", () => graphql(`{ group(fullPath: "${group.fullPath}") { packages(first: 5) { count nodes { name } } } }`)],
    ["GET /projects/:id/registry/repositories/:id/tags", () => `/api/v4/projects/${projects[0].id}/registry/repositories/REPO/tags`, undefined],
  ] as const) {
    it(name, async () => {
      const repo = await env.DB.prepare("SELECT id FROM registry_repositories WHERE project_id = ?").bind(projects[0].id).first<{ id: number }>();
      const { statements, text } = await run(path().replace("REPO", String(repo!.id)), init?.());
      expect(text).not.toMatch(/"errors"/);
      const counts = statements.filter((s) => (mentions(s, "packages") || mentions(s, "registry_tags")) && /count\(/i.test(s.sql));
      expect(counts.length).toBeGreaterThan(0);
      expect(counts.filter(uncapped).map((s) => s.sql)).toEqual([]);
    });
  }
});

describe("tags_count is read from the repository row", () => {
  it("GET /projects/:id/registry/repositories?tags=true&tags_count=true reads registry_tags only through a per-repository LIMIT", async () => {
    const { statements, text } = await run(`/api/v4/projects/${projects[0].id}/registry/repositories?tags=true&tags_count=true`);
    expect(JSON.parse(text)[0].tags_count).toBe(30);
    expect(JSON.parse(text)[0].tags).toHaveLength(20);
    const tagReads = [];
    for (const s of statements) if ((await queryPlan(s)).some((l) => /registry_tags/.test(l))) tagReads.push(s);
    expect(tagReads.length).toBe(1);
    expect(tagReads.filter((s) => !/limit \?/i.test(s.sql)).map((s) => s.sql)).toEqual([]);
  });
});

describe("the packages of a group tree are sorted only after each project gave at most a page", () => {
  it("the statement that sorts packages reads them by primary key from the per-project lists", async () => {
    const { statements, text } = await run("/api/graphql", graphql(`{ group(fullPath: "${group.fullPath}") { packages(first: 5) { nodes { name } } } }`));
    expect(text).not.toMatch(/"errors"/);
    const sorted = [];
    for (const s of statements) {
      const plan = await queryPlan(s);
      if (mentions(s, "packages") && plan.some((l) => /USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY/.test(l))) sorted.push(plan);
    }
    expect(sorted.length).toBeGreaterThan(0);
    for (const plan of sorted) expect(plan.find((l) => /packages/.test(l))).toMatch(/^SEARCH packages USING INTEGER PRIMARY KEY/);
  });
  it("the merged order is the order across the projects, page after page (CREATED_DESC and NAME_ASC)", async () => {
    for (const [sort, expected] of [
      ["CREATED_DESC", Array.from({ length: 60 }, (_, i) => `pkg${String(60 - i).padStart(3, "0")}`)],
      ["NAME_ASC", Array.from({ length: 60 }, (_, i) => `pkg${String(i + 1).padStart(3, "0")}`)],
    ] as const) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 5; page++) {
        const q: string = `{ group(fullPath: "${group.fullPath}") { packages(first: 13, sort: ${sort}${after ? `, after: "${after}"` : ""}) { count pageInfo { hasNextPage endCursor } nodes { name } } } }`;
        const { text } = await run("/api/graphql", graphql(q));
        const conn = JSON.parse(text).data.group.packages;
        expect(conn.count).toBe(60);
        seen.push(...conn.nodes.map((n: { name: string }) => n.name));
        after = conn.pageInfo.endCursor;
        expect(conn.pageInfo.hasNextPage).toBe(page < 4);
      }
      expect(seen).toEqual(expected);
    }
  });
});

describe("no exact package total above 10,000 (GitLab omits X-Total and X-Total-Pages)", () => {
  it("a project with 10,005 packages: no X-Total, the next page announced; GraphQL's count is what is known to exist", async () => {
    const big = await makeProject(member.user.id, { groupId: group.id, groupPath: group.fullPath, visibility: "private" });
    await addMemberTo("project", big.id, member.user.id, AccessLevel.MAINTAINER);
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10005)
       INSERT INTO packages (project_id, name, version, package_type, status, created_at) SELECT ?, 'bulk', '1.' || i, 'generic', 'default', 1700000000000 + i FROM n`,
    ).bind(big.id).run();
    const res = await app.fetch(new Request(`http://localhost/api/v4/projects/${big.id}/packages?per_page=100&page=2`, { headers: { Authorization: `Bearer ${member.token}` } }), env, createExecutionContext());
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBeNull();
    expect(res.headers.get("X-Total-Pages")).toBeNull();
    expect(res.headers.get("X-Next-Page")).toBe("3");
    const { text } = await run("/api/graphql", graphql(`{ project(fullPath: "${big.pathWithNamespace}") { packages(first: 10) { count pageInfo { hasNextPage } } } }`));
    const conn = JSON.parse(text).data.project.packages;
    expect(conn.count).toBe(11);
    expect(conn.pageInfo.hasNextPage).toBe(true);
  });
});
