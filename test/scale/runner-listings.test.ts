import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { queryPlan, recordingEnv } from "../helpers/d1-recording";
import { makeProject, makeRunner } from "../helpers/resources";

/**
 * docs/scaling.md, "Listings", the runners row: a runner listing reads the page it
 * answers and no more. Every statement that walks the runners table (a SCAN in SQLite's EXPLAIN
 * QUERY PLAN, even through an index) must stop at a LIMIT; a count of every row is run only when
 * GraphQL's `count` is asked for, and REST's X-Total count stops at GitLab's 10,000.
 */
async function run(path: string, token: string, init: RequestInit = {}) {
  const { env: recording, statements } = recordingEnv();
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  const res = await app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), recording, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(text).not.toMatch(/"errors"/);
  const reads = statements.filter((s) => /^\s*(select|with)/i.test(s.sql) && /"runners"|"runner_projects"/.test(s.sql));
  return { res, text, reads };
}

const gqlInit = (query: string): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query }) });

/** The plan lines that walk runners or runner_projects, of statements with no LIMIT to stop them. */
async function unboundedWalks(reads: { sql: string; params: unknown[] }[]) {
  const bad: string[] = [];
  for (const s of reads) {
    const walks = (await queryPlan(s)).filter((line) => /^SCAN (runners|runner_projects)\b/.test(line.trim()));
    if (walks.length && !/\blimit\b/i.test(s.sql)) bad.push(`${walks.join("; ")} <- ${s.sql}`);
  }
  return bad;
}

let admin: { token: string };
beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
  for (let i = 0; i < 3; i++) await makeRunner({ runnerType: "instance_type" });
});

describe("EXPLAIN QUERY PLAN of runner listings: no walk of the runners table without a LIMIT", () => {
  it("GraphQL runners(first: 20) { nodes { id status } } (the benchmark's query) counts nothing", async () => {
    const { reads } = await run("/api/graphql", admin.token, gqlInit("{ runners(first: 20) { nodes { id status } } }"));
    expect(reads.length).toBeGreaterThan(0);
    expect(await unboundedWalks(reads)).toEqual([]);
  });
  it("GraphQL runners sorted by contact, and pageInfo.hasNextPage, count nothing either", async () => {
    const { reads } = await run("/api/graphql", admin.token, gqlInit("{ runners(first: 2, sort: CONTACTED_ASC) { pageInfo { hasNextPage } nodes { id } } }"));
    expect(await unboundedWalks(reads)).toEqual([]);
  });
  it("GET /runners/all: the X-Total count stops at COUNT_CAP + 1 rows", async () => {
    const { reads } = await run("/api/v4/runners/all", admin.token);
    expect(await unboundedWalks(reads)).toEqual([]);
  });
});

describe("CiRunner.projectCount of a page: one statement, not one per runner (docs/scaling.md, runners row)", () => {
  it("a page of 5 and a page of 20 project runners read runner_projects in the same number of statements", async () => {
    const owner = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    const tag = unique("pc");
    for (let i = 0; i < 20; i++) await makeRunner({ runnerType: "project_type", projectId: project.id, tagList: [tag] });
    const countOf = async (first: number) => {
      const q = `{ runners(first: ${first}, tagList: ["${tag}"]) { nodes { id projectCount } } }`;
      const { reads, text } = await run("/api/graphql", admin.token, gqlInit(q));
      const nodes = JSON.parse(text).data.runners.nodes as { projectCount: number }[];
      expect(nodes).toHaveLength(first);
      expect(nodes.every((n) => n.projectCount === 1)).toBe(true);
      return reads.filter((s) => /"runner_projects"/.test(s.sql)).length;
    };
    const five = await countOf(5);
    const twenty = await countOf(20);
    expect(five).toBeGreaterThan(0);
    expect(twenty).toBe(five);
  });
});

describe("counts stay right without counting every row", () => {
  it("GraphQL count, when asked, is the exact number; hasNextPage comes from the page's extra row", async () => {
    const tag = unique("cnt");
    for (let i = 0; i < 3; i++) await makeRunner({ runnerType: "instance_type", tagList: [tag] });
    const q = (args: string) => `{ runners(tagList: ["${tag}"]${args}) { count pageInfo { hasNextPage hasPreviousPage } nodes { id } } }`;
    const first = JSON.parse((await run("/api/graphql", admin.token, gqlInit(q(", first: 2")))).text).data.runners;
    expect(first).toMatchObject({ count: 3, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    expect(first.nodes).toHaveLength(2);
    const all = JSON.parse((await run("/api/graphql", admin.token, gqlInit(q(", first: 3")))).text).data.runners;
    expect(all).toMatchObject({ count: 3, pageInfo: { hasNextPage: false } });
    const last = JSON.parse((await run("/api/graphql", admin.token, gqlInit(q(", last: 1")))).text).data.runners;
    expect(last).toMatchObject({ count: 3, pageInfo: { hasNextPage: false, hasPreviousPage: true } });
  });

});
