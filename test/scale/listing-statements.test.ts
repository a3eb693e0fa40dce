import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../src/app";
import { AccessLevel } from "../../src/domain/access";
import { recordAudit } from "../../src/db/audit";
import { getDb } from "../../src/db/client";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject, makeRunner } from "../helpers/resources";
import { countingEnv } from "../helpers/d1-counting";

/**
 * docs/scaling.md, "Listings at GitLab's sizes": a listing costs one D1 round trip of one
 * statement, the page and its total together (the rows carry the total; a branch found from the
 * user's memberships is read once for both), since one D1 read is already most of the goal of
 * twice `GET /api/v4/user`. Counted on the real D1 binding through a wrapper that sees every
 * prepared statement and every round trip (test/helpers/d1-counting.ts); the totals and pages are
 * checked against what the user can see.
 */

let member: { token: string; user: { id: number } };
let admin: { token: string; user: { id: number } };
let privateIds: number[];

beforeAll(async () => {
  const owner = await makeUserWithToken();
  member = await makeUserWithToken();
  admin = await makeUserWithToken({ isAdmin: true });
  // Private groups and projects the member reaches through three group memberships, one of them a subgroup's parent.
  privateIds = [];
  for (let g = 0; g < 3; g++) {
    const group = await makeGroup(owner.user.id, { visibility: "private" });
    await addMemberTo("group", group.id, member.user.id, AccessLevel.DEVELOPER);
    const sub = await makeGroup(owner.user.id, { visibility: "private", parentId: group.id });
    for (const ns of [group, sub]) {
      for (let i = 0; i < 2; i++) privateIds.push((await makeProject(owner.user.id, { groupId: ns.id, groupPath: ns.fullPath, visibility: "private" })).id);
    }
  }
});

async function counted(path: string, token: string) {
  const { env: e, counts } = countingEnv();
  const get = async () => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${path}`, { headers: { Authorization: `Bearer ${token}` } }), e, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  await get(); // the token's object loaded, its last use recorded
  counts.statements = counts.roundTrips = 0;
  const res = await get();
  expect(res.status, path).toBe(200);
  return { res, body: (await res.json()) as { id: number }[], statements: counts.statements, roundTrips: counts.roundTrips };
}

describe("listings are one D1 statement: the page and its total together", () => {
  it("GET /projects of a member of groups (membership=true): one statement, the exact total and the member's private projects", async () => {
    const r = await counted("/api/v4/projects?membership=true&per_page=4", member.token);
    expect(r.statements).toBe(1);
    expect(r.roundTrips).toBe(1);
    expect(r.res.headers.get("x-total")).toBe(String(privateIds.length));
    expect(r.res.headers.get("x-next-page")).toBe("2");
    expect(r.body.map((p) => p.id)).toEqual([...privateIds].sort((a, b) => b - a).slice(0, 4));
  });

  it("GET /projects and GET /groups of an ordinary user and of an administrator: one statement each", async () => {
    for (const [path, token] of [
      ["/api/v4/projects", member.token],
      ["/api/v4/projects?page=2&per_page=5", member.token],
      ["/api/v4/projects?order_by=name&sort=asc", member.token],
      ["/api/v4/projects", admin.token],
      ["/api/v4/projects?visibility=private", admin.token],
      ["/api/v4/groups", member.token],
      ["/api/v4/groups", admin.token],
      ["/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=1", member.token],
    ] as const) {
      const r = await counted(path, token);
      expect(r.statements, path).toBe(1);
      expect(r.roundTrips, path).toBe(1);
      expect(r.body.length, path).toBeGreaterThan(0);
    }
  });

  it("GET /audit_events and GET /runners/all of an administrator: one statement, the total carried by the rows", async () => {
    await makeRunner({ runnerType: "instance_type" });
    await recordAudit(getDb(env.DB), { action: "sign_in", entityType: "User", entityId: admin.user.id, authorId: admin.user.id });
    for (const path of ["/api/v4/audit_events", "/api/v4/runners/all"]) {
      const r = await counted(path, admin.token);
      expect(r.statements, path).toBe(1);
      expect(r.roundTrips, path).toBe(1);
      expect(r.body.length, path).toBeGreaterThan(0);
      // The total GitLab sends (none above 10,000), never less than what the page shows.
      const total = r.res.headers.get("x-total");
      if (total !== null) expect(Number(total), path).toBeGreaterThanOrEqual(r.body.length);
    }
  });

  it("a page past the end still answers its total (counted by a second statement only then)", async () => {
    const r = await counted("/api/v4/projects?membership=true&per_page=4&page=50", member.token);
    expect(r.body).toEqual([]);
    expect(r.res.headers.get("x-total")).toBe(String(privateIds.length));
    expect(r.statements).toBe(2);
  });
});
