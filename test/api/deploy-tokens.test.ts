import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { call, json, makeUserWithToken } from "../helpers/fixtures";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { basic, gitRequest } from "../git/fixtures";

/** GitLab's deploy token API (DESIGN, Registries: deploy tokens; issue 10). */
const owner = await makeUserWithToken();

const refs = (path: string, service: string) => `/${path}.git/info/refs?service=${service}`;

async function createToken(base: string, body: Record<string, unknown>, token = owner.token) {
  return call(`/api/v4/${base}/deploy_tokens`, { ...json(body), token });
}

describe("POST /projects/:id/deploy_tokens: shown once, gldt- prefix, stored hashed", () => {
  it("creates a token with GitLab's fields and a default username naming its id", async () => {
    const project = await makeProject(owner.user.id);
    const res = await createToken(`projects/${project.id}`, { name: "ci", scopes: ["read_repository", "read_registry"], expires_at: "2099-01-01" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({ name: "ci", username: `gitlab+deploy-token-${body.id}`, expires_at: "2099-01-01T00:00:00.000Z", revoked: false, expired: false, scopes: ["read_repository", "read_registry"] });
    expect(body.token).toMatch(/^gldt-[0-9a-f]{64}$/);
    // Only the hash is stored; the list and the single token never show it again.
    const rows = await env.DB.prepare("SELECT * FROM deploy_tokens WHERE id = ?").bind(body.id).all();
    expect(JSON.stringify(rows.results)).not.toContain(body.token);
    const list = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token: owner.token })).json()) as Record<string, any>[];
    expect(list).toEqual([{ id: body.id, name: "ci", username: body.username, expires_at: body.expires_at, revoked: false, expired: false, scopes: body.scopes }]);
    const one = (await (await call(`/api/v4/projects/${project.id}/deploy_tokens/${body.id}`, { token: owner.token })).json()) as Record<string, any>;
    expect(one).not.toHaveProperty("token");
  });

  it("takes a custom username and form-encoded scopes[]", async () => {
    const project = await makeProject(owner.user.id);
    const res = await call(`/api/v4/projects/${project.id}/deploy_tokens`, {
      method: "POST",
      token: owner.token,
      body: new URLSearchParams([["name", "x"], ["username", "deployer"], ["scopes[]", "write_registry"], ["scopes[]", "read_package_registry"]]),
    });
    expect(res.status).toBe(201);
    expect((await res.json()) as Record<string, any>).toMatchObject({ username: "deployer", scopes: ["write_registry", "read_package_registry"], expires_at: null });
  });

  it("refuses unknown scopes, a blank name and a past expiry with GitLab's 400 body", async () => {
    const project = await makeProject(owner.user.id);
    const bad = await createToken(`projects/${project.id}`, { name: "", scopes: ["api"], expires_at: "2001-01-01" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: { name: ["can't be blank"], scopes: ["can only contain available scopes"], expires_at: ["must be in the future"] } });
    expect((await createToken(`projects/${project.id}`, { name: "n" })).status).toBe(400);
  });

  it("needs maintainer: a developer gets 403, a stranger 404", async () => {
    const project = await makeProject(owner.user.id);
    const dev = await makeUserWithToken();
    await addMemberTo("project", project.id, dev.user.id, AccessLevel.DEVELOPER);
    expect((await createToken(`projects/${project.id}`, { name: "n", scopes: ["read_registry"] }, dev.token)).status).toBe(403);
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token: dev.token })).status).toBe(403);
    const stranger = await makeUserWithToken();
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens`, { token: stranger.token })).status).toBe(404);
  });
});

describe("group deploy tokens and the instance list", () => {
  it("creates, lists, gets and deletes a group token; the admin list sees it; active filters", async () => {
    const group = await makeGroup(owner.user.id);
    const created = (await (await createToken(`groups/${group.id}`, { name: "g", scopes: ["read_registry"] })).json()) as Record<string, any>;
    const list = (await (await call(`/api/v4/groups/${group.id}/deploy_tokens?active=true`, { token: owner.token })).json()) as Record<string, any>[];
    expect(list.map((t) => t.id)).toEqual([created.id]);
    const admin = await makeUserWithToken({ isAdmin: true });
    const all = (await (await call(`/api/v4/deploy_tokens?per_page=100`, { token: admin.token })).json()) as Record<string, any>[];
    expect(all.map((t) => t.id)).toContain(created.id);
    expect((await call(`/api/v4/deploy_tokens`, { token: owner.token })).status).toBe(403);
    expect((await call(`/api/v4/groups/${group.id}/deploy_tokens/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await call(`/api/v4/groups/${group.id}/deploy_tokens/${created.id}`, { token: owner.token })).status).toBe(404);
  });

  it("a token of another project is not found under this one", async () => {
    const a = await makeProject(owner.user.id);
    const b = await makeProject(owner.user.id);
    const created = (await (await createToken(`projects/${a.id}`, { name: "a", scopes: ["read_registry"] })).json()) as Record<string, any>;
    expect((await call(`/api/v4/projects/${b.id}/deploy_tokens/${created.id}`, { token: owner.token })).status).toBe(404);
    expect((await call(`/api/v4/projects/${b.id}/deploy_tokens/${created.id}`, { method: "DELETE", token: owner.token })).status).toBe(404);
  });
});

describe("deploy tokens over Git HTTPS (read_repository fetches, never pushes; revoked at once)", () => {
  it("fetches its project under its own username; other user names, other projects and push are refused", async () => {
    const group = await makeGroup(owner.user.id);
    const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
    const other = await makeProject(owner.user.id);
    const t = (await (await createToken(`projects/${project.id}`, { name: "git", scopes: ["read_repository"] })).json()) as Record<string, any>;
    const ok = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(t.username, t.token) });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    expect((await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic("someone", t.token) })).status).toBe(401);
    expect((await gitRequest(refs(other.pathWithNamespace, "git-upload-pack"), { auth: basic(t.username, t.token) })).status).toBe(404);
    expect((await gitRequest(refs(project.pathWithNamespace, "git-receive-pack"), { auth: basic(t.username, t.token) })).status).toBe(403);
    expect((await call(`/api/v4/projects/${project.id}/deploy_tokens/${t.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(t.username, t.token) })).status).toBe(401);
  });

  it("a group token fetches projects below its group; a token without read_repository is no git credential; an expired one is refused", async () => {
    const group = await makeGroup(owner.user.id);
    const project = await makeProject(owner.user.id, { groupId: group.id, groupPath: group.fullPath });
    const t = (await (await createToken(`groups/${group.id}`, { name: "g", scopes: ["read_repository"] })).json()) as Record<string, any>;
    const ok = await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(t.username, t.token) });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    const reg = (await (await createToken(`groups/${group.id}`, { name: "r", scopes: ["read_registry"] })).json()) as Record<string, any>;
    expect((await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(reg.username, reg.token) })).status).toBe(401);
    await env.DB.prepare("UPDATE deploy_tokens SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, t.id).run();
    expect((await gitRequest(refs(project.pathWithNamespace, "git-upload-pack"), { auth: basic(t.username, t.token) })).status).toBe(401);
  });
});
