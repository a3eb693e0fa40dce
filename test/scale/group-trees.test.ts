import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createRepository } from "../../src/db/registry";
import { findOrCreatePackage } from "../../src/db/packages";
import { AccessLevel } from "../../src/domain/access";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeRunner } from "../helpers/resources";
import { callAt } from "../helpers/versioned";
import { gql } from "../graphql/helpers";

/**
 * docs/scaling.md, "No query binds one parameter per row": D1 allows 100 bound parameters per
 * statement, so a group tree's projects are always a subquery (or one JSON parameter), never one
 * parameter each. A tree of 160 projects over a group and a subgroup, each with a package and an
 * image repository, is listed whole through every group-wide listing.
 */
const PROJECTS = 160;
let owner: { token: string; user: { id: number } };
let reporter: { token: string; user: { id: number } };
let group: { id: number; fullPath: string };

beforeAll(async () => {
  owner = await makeUserWithToken();
  reporter = await makeUserWithToken();
  group = await makeGroup(owner.user.id, { visibility: "private" });
  const sub = await makeGroup(owner.user.id, { visibility: "private", parentId: group.id });
  await addMemberTo("group", group.id, reporter.user.id, AccessLevel.REPORTER);
  // Inserted in batches of statements (one statement per project, so each binds a handful).
  const now = Date.now();
  const inserts = [];
  for (let i = 0; i < PROJECTS; i++) {
    const parent = i % 2 ? sub : group;
    const path = unique("p");
    inserts.push(
      env.DB.prepare(
        `INSERT INTO projects (name, path, path_with_namespace, namespace_kind, namespace_id, visibility, creator_id, created_at, last_activity_at)
         VALUES (?, ?, ?, 'group', ?, 'private', ?, ?, ?)`,
      ).bind(path, path, `${parent.fullPath}/${path}`, parent.id, owner.user.id, now + i, now + i),
    );
  }
  await env.DB.batch(inserts);
  const rows = await env.DB.prepare(
    `SELECT id, path_with_namespace AS p FROM projects WHERE namespace_kind = 'group' AND namespace_id IN (?, ?)`,
  )
    .bind(group.id, sub.id)
    .all<{ id: number; p: string }>();
  expect(rows.results.length).toBe(PROJECTS);
  for (const r of rows.results) {
    await findOrCreatePackage(getDb(env.DB), r.id, "pkg", "1.0.0", "generic", "default");
    await createRepository(getDb(env.DB), r.id, r.p, "");
  }
  await makeRunner({ runnerType: "project_type", projectId: rows.results[0].id });
  await makeRunner({ runnerType: "project_type", projectId: rows.results[PROJECTS - 1].id });
}, 120_000);

describe("group trees of any size in every group-wide listing", () => {
  it("GET /groups/:id/registry/repositories lists the images of all 160 projects (totals and pages)", async () => {
    const res = await callAt("15.11", `/api/v4/groups/${group.id}/registry/repositories?per_page=100&page=2`, { token: reporter.token });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect(res.headers.get("X-Total")).toBe(String(PROJECTS));
    expect((JSON.parse(body) as unknown[]).length).toBe(PROJECTS - 100);
  });
  it("GET /groups/:id/registry/repositories?tags=true (below 15.0) with a full page of 100 repositories", async () => {
    const res = await callAt("14.10", `/api/v4/groups/${group.id}/registry/repositories?per_page=100&tags=true&tags_count=true`, { token: reporter.token });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    expect((JSON.parse(body) as { tags_count: number }[]).map((r) => r.tags_count)).toEqual(new Array(100).fill(0));
  });
  it("GraphQL group { packages } counts and lists the packages of all 160 projects", async () => {
    const r = await gql(`query($p: ID!) { group(fullPath: $p) { packages(first: 100) { count nodes { name } } } }`, {
      variables: { p: group.fullPath },
      token: reporter.token,
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.group.packages.count).toBe(PROJECTS);
    expect(r.body.data.group.packages.nodes.length).toBe(100);
  });
  it("GraphQL group { runners(membership: DESCENDANTS) } finds project runners anywhere in the tree", async () => {
    const r = await gql(`query($p: ID!) { group(fullPath: $p) { runners(membership: DESCENDANTS) { count } } }`, {
      variables: { p: group.fullPath },
      token: owner.token,
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.group.runners.count).toBe(2);
  });
  it("GET /projects for a member of the tree pages through all 160 projects", async () => {
    const res = await callAt("16.0", `/api/v4/projects?membership=true&per_page=100&page=2`, { token: reporter.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total")).toBe(String(PROJECTS));
    expect(((await res.json()) as unknown[]).length).toBe(PROJECTS - 100);
  });
});
