import { describe, expect, it } from "vitest";
import { call, json, makeUser, makeUserWithToken, TEST_PASSWORD } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { makeGroup, makeProject } from "../helpers/resources";

/** Spec "Registry access with OAuth tokens": tokens do not authenticate users to the package registry. */
const owner = await makeUserWithToken();
const path = (projectId: number, file = "tool.bin") => `/api/v4/projects/${projectId}/packages/generic/tool/1.0.0/${file}`;

async function deployToken(base: string, scopes: string[]) {
  return (await (await call(`/api/v4/${base}/deploy_tokens`, { ...json({ name: "pkg", scopes }), token: owner.token })).json()) as { id: number; token: string; username: string };
}

describe("generic packages refuse OAuth access tokens (401, naming what to use)", () => {
  it("upload and download with an OAuth token with scope api are 401 with the message", async () => {
    const project = await makeProject(owner.user.id);
    const user = await makeUser();
    const { addMemberTo } = await import("../helpers/resources");
    await addMemberTo("project", project.id, user.id, 40);
    const oauth = await oauthToken(user.username, TEST_PASSWORD);
    for (const init of [{ method: "PUT", body: "x" }, { method: "GET" }]) {
      const res = await call(path(project.id), { ...init, token: oauth });
      expect(res.status, init.method).toBe(401);
      expect(((await res.json()) as { message: string }).message).toMatch(/OAuth access tokens are not accepted by the package registry: use a personal access token .* or a deploy token/);
    }
    // The packages REST API stays an ordinary API: the same OAuth token lists packages.
    expect((await call(`/api/v4/projects/${project.id}/packages`, { token: oauth })).status).toBe(200);
  });
  it("no credentials and unknown tokens are a plain 401", async () => {
    const project = await makeProject(owner.user.id);
    expect((await call(path(project.id), { method: "PUT", body: "x" })).status).toBe(401);
    expect(await (await call(path(project.id), { method: "PUT", body: "x", headers: { "PRIVATE-TOKEN": "glpat-nope" } })).json()).toEqual({ message: "401 Unauthorized" });
  });
});

describe("generic packages with a personal access token (PRIVATE-TOKEN, Basic, Bearer)", () => {
  it("uploads with PRIVATE-TOKEN and downloads with Basic user:token", async () => {
    const project = await makeProject(owner.user.id);
    const put = await call(path(project.id), { method: "PUT", body: "pat bytes", headers: { "PRIVATE-TOKEN": owner.token } });
    expect(put.status).toBe(201);
    const get = await call(path(project.id), { headers: { Authorization: `Basic ${btoa(`${owner.user.username}:${owner.token}`)}` } });
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("pat bytes");
  });
});

describe("generic packages with deploy tokens (read_package_registry, write_package_registry)", () => {
  it("write_package_registry uploads and downloads (DEPLOY-TOKEN header and Basic with its username)", async () => {
    const project = await makeProject(owner.user.id);
    const t = await deployToken(`projects/${project.id}`, ["write_package_registry"]);
    expect((await call(path(project.id), { method: "PUT", body: "deployed", headers: { "DEPLOY-TOKEN": t.token } })).status).toBe(201);
    const get = await call(path(project.id), { headers: { Authorization: `Basic ${btoa(`${t.username}:${t.token}`)}` } });
    expect(await get.text()).toBe("deployed");
    expect((await call(path(project.id), { headers: { Authorization: `Basic ${btoa(`not-its-name:${t.token}`)}` } })).status).toBe(401);
  });
  it("read_package_registry downloads but may not upload (403); registry-only scopes neither", async () => {
    const project = await makeProject(owner.user.id);
    await call(path(project.id), { method: "PUT", body: "data", token: owner.token });
    const reader = await deployToken(`projects/${project.id}`, ["read_package_registry"]);
    expect((await call(path(project.id), { headers: { "DEPLOY-TOKEN": reader.token } })).status).toBe(200);
    expect((await call(path(project.id, "other.bin"), { method: "PUT", body: "x", headers: { "DEPLOY-TOKEN": reader.token } })).status).toBe(403);
    const registryOnly = await deployToken(`projects/${project.id}`, ["read_registry"]);
    expect((await call(path(project.id), { headers: { "DEPLOY-TOKEN": registryOnly.token } })).status).toBe(403);
  });
  it("a deploy token reaches only its project (or its group's projects); deleted tokens are refused at once", async () => {
    const group = await makeGroup(owner.user.id);
    const inGroup = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
    const outside = await makeProject(owner.user.id);
    const g = await deployToken(`groups/${group.id}`, ["write_package_registry"]);
    expect((await call(path(inGroup.id), { method: "PUT", body: "g", headers: { "DEPLOY-TOKEN": g.token } })).status).toBe(201);
    expect((await call(path(outside.id), { method: "PUT", body: "g", headers: { "DEPLOY-TOKEN": g.token } })).status).toBe(404);
    await call(`/api/v4/groups/${group.id}/deploy_tokens/${g.id}`, { method: "DELETE", token: owner.token });
    expect((await call(path(inGroup.id), { headers: { "DEPLOY-TOKEN": g.token } })).status).toBe(401);
  });
});
