import { describe, expect, it } from "vitest";
import { call, makeUserWithToken, unique } from "../helpers/fixtures";
import { DAY, makeGroup, makeProject, makeRunner } from "../helpers/resources";

/**
 * GitLab's listing filters (docs/api.md, "Listings"): the runners `scope` (python-gitlab's
 * `runner list --scope`), public projects and groups without a token, and Grape's 400 for a value
 * a filter does not have.
 */
const admin = await makeUserWithToken({ isAdmin: true });

async function ids(path: string, token?: string): Promise<number[]> {
  const res = await call(path, { token });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { id: number }[]).map((r) => r.id);
}

describe("GET /runners/all?scope= (GitLab Ci::Runner::AVAILABLE_SCOPES)", () => {
  it("online, offline, never_contacted, paused, active and the types select as their names say", async () => {
    const tag = unique("scope");
    const online = (await makeRunner({ runnerType: "instance_type", contactedAt: Date.now(), tagList: [tag] })).runner;
    const offline = (await makeRunner({ runnerType: "group_type", groupId: (await makeGroup(admin.user.id)).id, contactedAt: Date.now() - 3 * 3600_000, tagList: [tag] })).runner;
    const never = (await makeRunner({ runnerType: "instance_type", tagList: [tag] })).runner;
    const stale = (await makeRunner({ runnerType: "instance_type", contactedAt: Date.now() - 100 * DAY, createdAt: Date.now() - 200 * DAY, tagList: [tag] })).runner;
    const paused = (await makeRunner({ runnerType: "instance_type", contactedAt: Date.now(), paused: true, tagList: [tag] })).runner;
    const q = (scope: string) => ids(`/api/v4/runners/all?tag_list=${tag}&scope=${scope}&per_page=100`, admin.token);
    expect((await q("online")).sort()).toEqual([online.id, paused.id].sort());
    expect(await q("offline")).toEqual([offline.id]);
    expect(await q("never_contacted")).toEqual([never.id]);
    expect(await q("stale")).toEqual([stale.id]);
    expect(await q("paused")).toEqual([paused.id]);
    expect((await q("active")).sort()).toEqual([online.id, offline.id, never.id, stale.id].sort());
    expect(await q("group_type")).toEqual([offline.id]);
    expect(await q("specific")).toEqual([offline.id]);
    expect((await q("shared")).sort()).toEqual([online.id, never.id, stale.id, paused.id].sort());
  });
  it("an unknown scope is Grape's 400 {\"error\":\"scope does not have a valid value\"}; GET /runners accepts statuses only", async () => {
    for (const path of ["/api/v4/runners/all?scope=sideways", "/api/v4/runners?scope=sideways", "/api/v4/runners?scope=shared"]) {
      const res = await call(path, { token: admin.token });
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ error: "scope does not have a valid value" });
    }
    expect((await call("/api/v4/runners?scope=online", { token: admin.token })).status).toBe(200);
  });
});

describe("GET /projects and GET /groups without a token (GitLab: public ones)", () => {
  it("lists public projects and groups only; a bad token is still 401", async () => {
    const owner = await makeUserWithToken();
    const pub = await makeGroup(owner.user.id, { visibility: "public" });
    const internal = await makeGroup(owner.user.id, { visibility: "internal" });
    const pubProject = await makeProject(owner.user.id, { groupId: pub.id, groupPath: pub.fullPath, visibility: "public" });
    const privProject = await makeProject(owner.user.id, { groupId: pub.id, groupPath: pub.fullPath, visibility: "private" });
    const projects = await ids(`/api/v4/projects?order_by=id&sort=desc&per_page=100`);
    expect(projects).toContain(pubProject.id);
    expect(projects).not.toContain(privProject.id);
    const groups = await ids(`/api/v4/groups?order_by=id&sort=desc&per_page=100`);
    expect(groups).toContain(pub.id);
    expect(groups).not.toContain(internal.id);
    expect(await ids(`/api/v4/projects?search=${pubProject.path}`)).toEqual([pubProject.id]);
    expect((await call("/api/v4/projects", { token: "glpat-not-a-real-token-000000" })).status).toBe(401);
    expect((await call("/api/v4/groups", { token: "glpat-not-a-real-token-000000" })).status).toBe(401);
  });
});

describe("a value a listing filter does not have: Grape's 400", () => {
  it("visibility, order_by and sort of /projects, /groups and /users", async () => {
    for (const [path, param] of [
      ["/api/v4/projects?visibility=secret", "visibility"],
      ["/api/v4/projects?order_by=stars", "order_by"],
      ["/api/v4/projects?sort=up", "sort"],
      ["/api/v4/groups?order_by=stars", "order_by"],
      ["/api/v4/users?order_by=stars", "order_by"],
      ["/api/v4/runners/all?type=robot_type", "type"],
      ["/api/v4/runners/all?status=sleepy", "status"],
    ]) {
      const res = await call(path, { token: admin.token });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toEqual({ error: `${param} does not have a valid value` });
    }
  });
});
