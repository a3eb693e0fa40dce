import { describe, expect, it } from "vitest";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { addMemberTo, DAY, makeGroup, makeProject, makeRunner } from "../helpers/resources";
import { expectNotice } from "../helpers/notices";
import { body, callAt } from "../helpers/versioned";

/** Runners API on each side of the runner rows of the schedule (spec part b). */
const admin = await makeUserWithToken({ isAdmin: true });
type RunnerJson = Record<string, unknown> & { id: number; status: string };

async function statusAt(version: string, id: number): Promise<RunnerJson> {
  const res = await callAt(version, `/api/v4/runners/${id}`, { token: admin.token });
  expect(res.status).toBe(200);
  return res.json();
}

describe("runner-status-never-contacted", () => {
  it("reports not_connected below 15.0 (14.10) and never_contacted from 15.0", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type" });
    const old = await callAt("14.10", `/api/v4/runners/${runner.id}`, { token: admin.token });
    expect(((await old.json()) as Record<string, any>).status).toBe("not_connected");
    expectNotice(old.headers, "runner-status-never-contacted");
    expect((await statusAt("15.0", runner.id)).status).toBe("never_contacted");
  });
});

describe("runner-status-stale", () => {
  it("a runner silent for three months is offline at 14.10 and stale from 15.0", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type", contactedAt: Date.now() - 100 * DAY, createdAt: Date.now() - 200 * DAY });
    expect((await statusAt("14.10", runner.id)).status).toBe("offline");
    expect((await statusAt("15.0", runner.id)).status).toBe("stale");
  });
  it("a never-contacted runner created more than three months ago is stale from 15.0", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type", createdAt: Date.now() - 100 * DAY });
    expect((await statusAt("14.10", runner.id)).status).toBe("not_connected");
    expect((await statusAt("15.0", runner.id)).status).toBe("stale");
  });
  it("status=stale is accepted as a filter from 14.6 and refused before (14.5)", async () => {
    const tag = unique("t");
    const { runner } = await makeRunner({ runnerType: "instance_type", contactedAt: Date.now() - 100 * DAY, tagList: [tag] });
    await makeRunner({ runnerType: "instance_type", contactedAt: Date.now(), tagList: [tag] });
    const before = await callAt("14.5", `/api/v4/runners/all?status=stale&tag_list=${tag}`, { token: admin.token });
    expect(before.status).toBe(400);
    expect((await before.json()) as Record<string, any>).toEqual({ error: "status does not have a valid value" });
    const after = await callAt("14.6", `/api/v4/runners/all?status=stale&tag_list=${tag}`, { token: admin.token });
    expect(after.status).toBe(200);
    expect(((await after.json()) as RunnerJson[]).map((r) => r.id)).toEqual([runner.id]);
  });
});

describe("runner-status-legacy-values", () => {
  it("a paused runner has status paused at 14.10 (deprecated) and its contact status from 15.0", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type", paused: true, contactedAt: Date.now() });
    const old = await callAt("14.10", `/api/v4/runners/${runner.id}`, { token: admin.token });
    expect(((await old.json()) as Record<string, any>).status).toBe("paused");
    expect(old.headers.get("Link")).toContain('rel="deprecation"');
    expect((await statusAt("15.0", runner.id)).status).toBe("online");
  });
});

describe("runner online status from contact (POST /runners/verify)", () => {
  it("verify with the runner token records contacted_at; the runner is online", async () => {
    const { user, token } = await makeUserWithToken();
    const project = await makeProject(user.id);
    const created = await callAt("16.0", "/api/v4/user/runners", { ...body({ runner_type: "project_type", project_id: project.id }), token });
    expect(created.status).toBe(201);
    const { id, token: runnerToken } = (await created.json()) as { id: number; token: string };
    expect(runnerToken).toMatch(/^glrt-/);
    expect((await statusAt("16.0", id)).status).toBe("never_contacted");
    const verify = await callAt("16.0", "/api/v4/runners/verify", body({ token: runnerToken }));
    expect(verify.status).toBe(200);
    const after = await statusAt("16.0", id);
    expect(after.status).toBe("online");
    expect(after.contacted_at).toEqual(expect.any(String));
    const bad = await callAt("16.0", "/api/v4/runners/verify", body({ token: "glrt-nope" }));
    expect(bad.status).toBe(403);
  });
});

describe("runner-active-field", () => {
  it("active is returned (deprecated) with paused at 15.11, only paused from 16.0, only active at 14.7", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type", paused: true });
    const r1511 = await callAt("15.11", `/api/v4/runners/${runner.id}`, { token: admin.token });
    const j1511 = await r1511.json();
    expect(j1511).toMatchObject({ active: false, paused: true });
    expectNotice(r1511.headers, "runner-active-field");
    const j16 = await statusAt("16.0", runner.id);
    expect(j16).not.toHaveProperty("active");
    expect(j16.paused).toBe(true);
    const j147 = await statusAt("14.7", runner.id);
    expect(j147.active).toBe(false);
    expect(j147).not.toHaveProperty("paused");
  });
  it("PUT /runners/:id with form field active is accepted at 15.11 and refused with 400 naming paused at 16.0", async () => {
    const { runner } = await makeRunner({ runnerType: "instance_type" });
    const put = await callAt("15.11", `/api/v4/runners/${runner.id}`, {
      method: "PUT",
      body: new URLSearchParams({ active: "false" }),
      token: admin.token,
    });
    expect(put.status).toBe(200);
    expect((await put.json()) as Record<string, any>).toMatchObject({ active: false, paused: true });
    const refused = await callAt("16.0", `/api/v4/runners/${runner.id}`, { ...body({ active: true }, "PUT"), token: admin.token });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Record<string, any>).error).toContain("paused");
    const ok = await callAt("16.0", `/api/v4/runners/${runner.id}`, { ...body({ paused: false, description: "x" }, "PUT"), token: admin.token });
    expect((await ok.json()) as Record<string, any>).toMatchObject({ paused: false, description: "x" });
  });
});

describe("runner-status-filter-active-paused", () => {
  it("status=paused filters (deprecated) at 15.11 and is refused from 16.0 naming paused=true", async () => {
    const tag = unique("t");
    const { runner: paused } = await makeRunner({ runnerType: "instance_type", paused: true, tagList: [tag] });
    const { runner: active } = await makeRunner({ runnerType: "instance_type", tagList: [tag] });
    const old = await callAt("15.11", `/api/v4/runners/all?status=paused&tag_list=${tag}`, { token: admin.token });
    expect(old.status).toBe(200);
    expect(old.headers.get("Deprecation")).toBeTruthy();
    expect(((await old.json()) as RunnerJson[]).map((r) => r.id)).toEqual([paused.id]);
    const act = await callAt("15.11", `/api/v4/runners/all?status=active&tag_list=${tag}`, { token: admin.token });
    expect(((await act.json()) as RunnerJson[]).map((r) => r.id)).toEqual([active.id]);
    // Pagination links and one deprecation Link per entry used (the filter and the active field) coexist.
    const paged = await callAt("15.11", `/api/v4/runners/all?status=active&tag_list=${tag}&per_page=1`, { token: admin.token });
    const link = paged.headers.get("Link") ?? "";
    expect(link).toContain('rel="first"');
    expect(link).toContain("#runner-status-filter-active-paused>");
    expect(link).toContain("#runner-active-field>");
    expect(link.match(/#runner-active-field>/g)).toHaveLength(1);
    const refused = await callAt("16.0", `/api/v4/runners/all?status=paused&tag_list=${tag}`, { token: admin.token });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Record<string, any>).error).toContain("paused=true");
    const replacement = await callAt("16.0", `/api/v4/runners/all?paused=true&tag_list=${tag}`, { token: admin.token });
    expect(((await replacement.json()) as RunnerJson[]).map((r) => r.id)).toEqual([paused.id]);
  });
});

describe("runner-group-type-project-type", () => {
  it("GET /groups/:id/runners?type=project_type is empty until 16.0 (deprecated from 15.0) and refused from 16.0", async () => {
    const { user, token } = await makeUserWithToken();
    const group = await makeGroup(user.id);
    const project = await makeProject(user.id, { groupId: group.id, groupPath: group.fullPath });
    await makeRunner({ runnerType: "project_type", projectId: project.id });
    const at1410 = await callAt("14.10", `/api/v4/groups/${group.id}/runners?type=project_type`, { token });
    expect((await at1410.json()) as Record<string, any>).toEqual([]);
    expect(at1410.headers.get("Deprecation")).toBeNull();
    const at1511 = await callAt("15.11", `/api/v4/groups/${group.id}/runners?type=project_type`, { token });
    expect((await at1511.json()) as Record<string, any>).toEqual([]);
    expect(at1511.headers.get("Deprecation")).toBeTruthy();
    const at16 = await callAt("16.0", `/api/v4/groups/${group.id}/runners?type=project_type`, { token });
    expect(at16.status).toBe(400);
    expect(((await at16.json()) as Record<string, any>).error).toContain("group_type");
  });
  it("lists the group's runners and instance runners, filtered by type", async () => {
    const { user, token } = await makeUserWithToken();
    const group = await makeGroup(user.id);
    const { runner } = await makeRunner({ runnerType: "group_type", groupId: group.id });
    const res = await callAt("16.0", `/api/v4/groups/${encodeURIComponent(group.fullPath)}/runners?type=group_type`, { token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RunnerJson[]).map((r) => r.id)).toEqual([runner.id]);
  });
});

describe("runner-registration-active", () => {
  async function registrationToken(token: string, projectId: number): Promise<string> {
    const res = await callAt("16.0", `/api/v4/projects/${projectId}/runners/reset_registration_token`, { method: "POST", token });
    expect(res.status).toBe(201);
    return ((await res.json()) as { token: string }).token;
  }
  it("legacy POST /runners accepts active below 16.0 (15.11) and refuses it at 16.0; paused works from 14.8", async () => {
    const { user, token } = await makeUserWithToken();
    const project = await makeProject(user.id);
    const reg = await registrationToken(token, project.id);
    const old = await callAt("15.11", "/api/v4/runners", body({ token: reg, active: false, description: "legacy" }));
    expect(old.status).toBe(201);
    expect(old.headers.get("Deprecation")).toBeTruthy();
    const { id } = (await old.json()) as { id: number };
    expect(await statusAt("16.0", id)).toMatchObject({ paused: true, runner_type: "project_type" });
    const refused = await callAt("16.0", "/api/v4/runners", body({ token: reg, active: false }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Record<string, any>).error).toContain("paused");
    const modern = await callAt("16.0", "/api/v4/runners", body({ token: reg, paused: true }));
    expect(modern.status).toBe(201);
    expect(await statusAt("16.0", ((await modern.json()) as { id: number }).id)).toMatchObject({ paused: true });
    const at148 = await callAt("14.8", "/api/v4/runners", body({ token: reg, paused: true }));
    expect(await statusAt("16.0", ((await at148.json()) as { id: number }).id)).toMatchObject({ paused: true });
  });
  it("a wrong registration token is refused with 403", async () => {
    const res = await callAt("16.0", "/api/v4/runners", body({ token: "GR1348941nope" }));
    expect(res.status).toBe(403);
    expect((await res.json()) as Record<string, any>).toEqual({ message: "403 Forbidden" });
  });
});

describe("runner-instance-to-project-conversion", () => {
  it("an admin enabling an instance runner on a project converts it at 14.10 and is refused from 15.0", async () => {
    const project = await makeProject(admin.user.id);
    const { runner: r1 } = await makeRunner({ runnerType: "instance_type" });
    const old = await callAt("14.10", `/api/v4/projects/${project.id}/runners`, { ...body({ runner_id: r1.id }), token: admin.token });
    expect(old.status).toBe(201);
    expect((await old.json()) as Record<string, any>).toMatchObject({ runner_type: "project_type" });
    const { runner: r2 } = await makeRunner({ runnerType: "instance_type" });
    const refused = await callAt("15.0", `/api/v4/projects/${project.id}/runners`, { ...body({ runner_id: r2.id }), token: admin.token });
    expect(refused.status).toBe(403);
  });
  it("a maintainer enables their project runner on another project they maintain; a second time is 409", async () => {
    const { user, token } = await makeUserWithToken();
    const p1 = await makeProject(user.id);
    const p2 = await makeProject(user.id);
    const { runner } = await makeRunner({ runnerType: "project_type", projectId: p1.id });
    const res = await callAt("16.0", `/api/v4/projects/${p2.id}/runners`, { ...body({ runner_id: runner.id }), token });
    expect(res.status).toBe(201);
    const list = await callAt("16.0", `/api/v4/projects/${p2.id}/runners?type=project_type`, { token });
    expect(((await list.json()) as RunnerJson[]).map((r) => r.id)).toEqual([runner.id]);
    const again = await callAt("16.0", `/api/v4/projects/${p2.id}/runners`, { ...body({ runner_id: runner.id }), token });
    expect(again.status).toBe(409);
  });
});

describe("runners: roles and scopes (REST API conventions)", () => {
  it("GET /runners/all is for administrators only", async () => {
    const { token } = await makeUserWithToken();
    expect((await callAt("16.0", "/api/v4/runners/all", { token })).status).toBe(403);
  });
  it("a read_api token may list but not update (403 insufficient_scope)", async () => {
    const { user, token } = await makeUserWithToken({ scopes: ["read_api"] });
    const project = await makeProject(user.id);
    const { runner } = await makeRunner({ runnerType: "project_type", projectId: project.id });
    const list = await callAt("16.0", "/api/v4/runners", { token });
    expect(((await list.json()) as RunnerJson[]).map((r) => r.id)).toContain(runner.id);
    const put = await callAt("16.0", `/api/v4/runners/${runner.id}`, { ...body({ paused: true }, "PUT"), token });
    expect(put.status).toBe(403);
    expect(((await put.json()) as Record<string, any>).error).toBe("insufficient_scope");
  });
  it("a developer may not see a project runner; a maintainer may update and delete it", async () => {
    const owner = await makeUserWithToken();
    const dev = await makeUserWithToken();
    const project = await makeProject(owner.user.id);
    await addMemberTo("project", project.id, dev.user.id, 30);
    const { runner } = await makeRunner({ runnerType: "project_type", projectId: project.id });
    expect((await callAt("16.0", `/api/v4/runners/${runner.id}`, { token: dev.token })).status).toBe(403);
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/runners`, { token: dev.token })).status).toBe(403);
    expect(((await (await callAt("16.0", "/api/v4/runners", { token: dev.token })).json()) as RunnerJson[]).map((r) => r.id)).not.toContain(runner.id);
    const del = await callAt("16.0", `/api/v4/runners/${runner.id}`, { method: "DELETE", token: owner.token });
    expect(del.status).toBe(204);
    expect((await callAt("16.0", `/api/v4/runners/${runner.id}`, { token: owner.token })).status).toBe(404);
  });
  it("no token: 401", async () => {
    const res = await callAt("16.0", "/api/v4/runners");
    expect(res.status).toBe(401);
    expect((await res.json()) as Record<string, any>).toEqual({ message: "401 Unauthorized" });
  });
});

describe("runners: pagination and bad parameters (REST API conventions)", () => {
  it("offset pages carry X-Total, X-Next-Page and Link; keyset pages a next Link with id_after", async () => {
    const tag = unique("t");
    for (let i = 0; i < 5; i++) await makeRunner({ runnerType: "instance_type", tagList: [tag] });
    const res = await callAt("16.0", `/api/v4/runners/all?tag_list=${tag}&per_page=2&page=2`, { token: admin.token });
    expect(res.headers.get("X-Total")).toBe("5");
    expect(res.headers.get("X-Total-Pages")).toBe("3");
    expect(res.headers.get("X-Next-Page")).toBe("3");
    expect(res.headers.get("X-Prev-Page")).toBe("1");
    expect(res.headers.get("Link")).toContain('rel="next"');
    expect(((await res.json()) as Record<string, any>).length).toBe(2);
    const k1 = await callAt("16.0", `/api/v4/runners/all?tag_list=${tag}&per_page=3&pagination=keyset`, { token: admin.token });
    const first = (await k1.json()) as RunnerJson[];
    const next = /<([^>]+)>; rel="next"/.exec(k1.headers.get("Link") ?? "")![1];
    expect(next).toContain(`id_after=${first[2].id}`);
    const k2 = await callAt("16.0", next, { token: admin.token });
    const second = (await k2.json()) as RunnerJson[];
    expect(second.length).toBe(2);
    expect(second[0].id).toBeGreaterThan(first[2].id);
    expect(k2.headers.get("Link")).toBeNull();
  });
  it.each([
    ["status=bogus", { error: "status does not have a valid value" }],
    ["type=bogus", { error: "type does not have a valid value" }],
    ["per_page=abc", { error: "per_page is invalid" }],
    ["paused=maybe", { error: "paused is invalid" }],
  ])("GET /runners/all?%s is a 400 with GitLab's body", async (q, expected) => {
    const res = await callAt("16.0", `/api/v4/runners/all?${q}`, { token: admin.token });
    expect(res.status).toBe(400);
    expect((await res.json()) as Record<string, any>).toEqual(expected);
  });
  it("POST /user/runners without runner_type is 400 runner_type is missing", async () => {
    const res = await callAt("16.0", "/api/v4/user/runners", { ...body({}), token: admin.token });
    expect(res.status).toBe(400);
    expect((await res.json()) as Record<string, any>).toEqual({ error: "runner_type is missing" });
  });
});
