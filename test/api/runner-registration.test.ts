import { describe, expect, it } from "vitest";
import { makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject, makeRunner } from "../helpers/resources";
import { body, callAt } from "../helpers/versioned";

/** Runner creation and removal (GitLab runners API): registration tokens, POST /user/runners, DELETE /runners. */
const admin = await makeUserWithToken({ isAdmin: true });

describe("registration tokens: who may reset them, and what a token registers", () => {
  it("the instance token is for administrators; it registers an instance runner", async () => {
    const user = await makeUserWithToken();
    expect((await callAt("16.0", "/api/v4/runners/reset_registration_token", { method: "POST", token: user.token })).status).toBe(403);
    const res = await callAt("16.0", "/api/v4/runners/reset_registration_token", { method: "POST", token: admin.token });
    const { token } = ((await res.json()) as { token: string });
    expect(token).toMatch(/^GR1348941/);
    const reg = (await (await callAt("16.0", "/api/v4/runners", body({ token, description: "shared" }))).json()) as { id: number };
    const shown = (await (await callAt("16.0", `/api/v4/runners/${reg.id}`, { token: admin.token })).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ runner_type: "instance_type", is_shared: true, description: "shared" });
    // A reset replaces the token: the old one no longer registers.
    await callAt("16.0", "/api/v4/runners/reset_registration_token", { method: "POST", token: admin.token });
    expect((await callAt("16.0", "/api/v4/runners", body({ token }))).status).toBe(403);
  });
  it("a group token (owner only) registers a group runner", async () => {
    const owner = await makeUserWithToken();
    const maintainer = await makeUserWithToken();
    const group = await makeGroup(owner.user.id);
    await addMemberTo("group", group.id, maintainer.user.id, 40);
    expect((await callAt("16.0", `/api/v4/groups/${group.id}/runners/reset_registration_token`, { method: "POST", token: maintainer.token })).status).toBe(403);
    const { token } = (await (await callAt("16.0", `/api/v4/groups/${group.id}/runners/reset_registration_token`, { method: "POST", token: owner.token })).json()) as { token: string };
    const reg = (await (await callAt("16.0", "/api/v4/runners", body({ token, tag_list: "b,a" }))).json()) as { id: number };
    const shown = (await (await callAt("16.0", `/api/v4/runners/${reg.id}`, { token: owner.token })).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ runner_type: "group_type", tag_list: ["a", "b"] });
  });
});

describe("POST /user/runners", () => {
  it("instance runners need an administrator; group runners a group owner; project runners a maintainer", async () => {
    const user = await makeUserWithToken();
    expect((await callAt("16.0", "/api/v4/user/runners", { ...body({ runner_type: "instance_type" }), token: user.token })).status).toBe(403);
    const group = await makeGroup(admin.user.id);
    expect((await callAt("16.0", "/api/v4/user/runners", { ...body({ runner_type: "group_type", group_id: group.id }), token: user.token })).status).toBe(404);
    const missing = await callAt("16.0", "/api/v4/user/runners", { ...body({ runner_type: "group_type" }), token: user.token });
    expect(await missing.json()).toEqual({ error: "group_id is missing" });
    const ok = await callAt("16.0", "/api/v4/user/runners", { ...body({ runner_type: "instance_type", paused: true }), token: admin.token });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ token: expect.stringMatching(/^glrt-/), token_expires_at: null });
  });
});

describe("unregistering and disabling", () => {
  it("DELETE /runners with the runner token removes it; a wrong token is 403", async () => {
    const { runner, token } = await makeRunner({ runnerType: "instance_type" });
    expect((await callAt("16.0", "/api/v4/runners", { ...body({ token: "glrt-wrong" }, "DELETE") })).status).toBe(403);
    expect((await callAt("16.0", "/api/v4/runners", { ...body({ token }, "DELETE") })).status).toBe(204);
    expect((await callAt("16.0", `/api/v4/runners/${runner.id}`, { token: admin.token })).status).toBe(404);
  });
  it("a runner enabled on two projects can be disabled on one, not on its only project", async () => {
    const owner = await makeUserWithToken();
    const p1 = await makeProject(owner.user.id);
    const p2 = await makeProject(owner.user.id);
    const { runner } = await makeRunner({ runnerType: "project_type", projectId: p1.id });
    expect((await callAt("16.0", `/api/v4/projects/${p1.id}/runners/${runner.id}`, { method: "DELETE", token: owner.token })).status).toBe(403);
    await callAt("16.0", `/api/v4/projects/${p2.id}/runners`, { ...body({ runner_id: runner.id }), token: owner.token });
    expect((await callAt("16.0", `/api/v4/projects/${p2.id}/runners/${runner.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    const shown = (await (await callAt("16.0", `/api/v4/runners/${runner.id}`, { token: owner.token })).json()) as { projects: { id: number }[] };
    expect(shown.projects.map((p) => p.id)).toEqual([p1.id]);
  });
});
