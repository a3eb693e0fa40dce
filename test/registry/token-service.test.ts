import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AccessLevel } from "../../src/domain/access";
import { makePat, makeUser, TEST_PASSWORD } from "../helpers/fixtures";
import { oauthToken } from "../helpers/password-grant";
import { addMemberTo, makeGroup, makeProject } from "../helpers/resources";
import { basicAuth, claimsOf, registryCall, registryToken, tokenResponse } from "./helpers";
import { call, json } from "../helpers/fixtures";

/** GitLab's token service /jwt/auth (Docker token protocol; spec "Registry access with OAuth tokens"). */
async function project(visibility = "private") {
  const owner = await makeUser();
  const group = await makeGroup(owner.id, { visibility });
  const p = await makeProject(owner.id, { groupId: group.id, groupPath: group.fullPath, visibility });
  return { owner, group, project: p, name: p.pathWithNamespace.toLowerCase() };
}

async function member(projectId: number, level: number, scopes: string[]) {
  const user = await makeUser();
  await addMemberTo("project", projectId, user.id, level);
  return { user, auth: basicAuth(user.username, await makePat(user.id, scopes)) };
}

const actionsFor = (token: string, name: string) => claimsOf(token).access.find((a) => a.name === name)?.actions ?? [];

describe("token service answer (Docker token protocol)", () => {
  it("answers {token, access_token, expires_in, issued_at} with a short-lived JWT naming exactly the granted actions", async () => {
    const { project: p, name } = await project();
    const { auth } = await member(p.id, AccessLevel.DEVELOPER, ["write_registry"]);
    const res = await tokenResponse([`repository:${name}:pull,push`], auth);
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as Record<string, any>;
    expect(body.token).toBe(body.access_token);
    expect(body.expires_in).toBe(300);
    expect(Date.parse(body.issued_at)).toBeGreaterThan(Date.now() - 60_000);
    const claims = claimsOf(body.token);
    expect(claims.exp - claims.iat).toBe(300);
    expect(claims.access).toEqual([{ type: "repository", name, actions: ["pull", "push"], meta: { project_id: p.id, project_path: p.pathWithNamespace } }]);
  });

  it("several scopes in one request are each decided on their own", async () => {
    const a = await project();
    const b = await project();
    const { user, auth } = await member(a.project.id, AccessLevel.DEVELOPER, ["api"]);
    await addMemberTo("project", b.project.id, user.id, AccessLevel.REPORTER);
    const token = await registryToken([`repository:${a.name}:pull,push`, `repository:${b.name}:pull,push`], auth);
    expect(actionsFor(token, a.name)).toEqual(["pull", "push"]);
    expect(actionsFor(token, b.name)).toEqual(["pull"]);
  });
});

describe("personal access token scopes (read_registry pulls, write_registry pushes, api both)", () => {
  it("read_registry: pull only, even for a maintainer", async () => {
    const { project: p, name } = await project();
    const { auth } = await member(p.id, AccessLevel.MAINTAINER, ["read_registry"]);
    expect(actionsFor(await registryToken([`repository:${name}:pull,push`], auth), name)).toEqual(["pull"]);
  });
  it("read_api or read_repository alone grant nothing", async () => {
    const { project: p, name } = await project();
    const { auth } = await member(p.id, AccessLevel.MAINTAINER, ["read_api", "read_repository"]);
    expect(claimsOf(await registryToken([`repository:${name}:pull`], auth)).access).toEqual([]);
  });
  it("membership decides: a reporter pulls but may not push; a stranger gets nothing on a private project", async () => {
    const { project: p, name } = await project();
    const reporter = await member(p.id, AccessLevel.REPORTER, ["api"]);
    expect(actionsFor(await registryToken([`repository:${name}:pull,push`], reporter.auth), name)).toEqual(["pull"]);
    const stranger = await makeUser();
    expect(claimsOf(await registryToken([`repository:${name}:pull`], basicAuth(stranger.username, await makePat(stranger.id, ["api"])))).access).toEqual([]);
  });
  it("a public project grants pull to anyone, even without credentials", async () => {
    const { name } = await project("public");
    expect(actionsFor(await registryToken([`repository:${name}:pull,push`]), name)).toEqual(["pull"]);
    const { name: privateName } = await project();
    expect(claimsOf(await registryToken([`repository:${privateName}:pull`])).access).toEqual([]);
  });
  it("expired and revoked personal access tokens are refused with 401", async () => {
    const { project: p, name } = await project();
    const user = await makeUser();
    await addMemberTo("project", p.id, user.id, AccessLevel.DEVELOPER);
    const expired = await makePat(user.id, ["api"], "2020-01-01");
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(user.username, expired))).status).toBe(401);
    const pat = await makePat(user.id, ["api"]);
    await env.DB.prepare("UPDATE personal_access_tokens SET revoked = 1 WHERE user_id = ?").bind(user.id).run();
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(user.username, pat))).status).toBe(401);
  });
});

describe("spec: OAuth access tokens do not authenticate to the container registry", () => {
  it("refuses an OAuth access token as the Basic password with 401 and a message naming what to use", async () => {
    const { project: p, name } = await project();
    const user = await makeUser();
    await addMemberTo("project", p.id, user.id, AccessLevel.DEVELOPER);
    const token = await oauthToken(user.username, TEST_PASSWORD);
    for (const login of ["oauth2", user.username]) {
      const res = await tokenResponse([`repository:${name}:pull`], basicAuth(login, token));
      expect(res.status).toBe(401);
      const body = (await res.json()) as { errors: { code: string; message: string }[] };
      expect(body.errors[0].code).toBe("UNAUTHORIZED");
      expect(body.errors[0].message).toMatch(/personal access token.*deploy token/);
    }
    // Nor is the user's password.
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(user.username, TEST_PASSWORD))).status).toBe(401);
  });
  it("/v2/ refuses an OAuth access token as a bearer token (401 with the token-service challenge)", async () => {
    const user = await makeUser();
    const token = await oauthToken(user.username, TEST_PASSWORD);
    const res = await registryCall("/v2/", { bearer: token });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="http://localhost/jwt/auth",service="container_registry"');
  });
});

describe("deploy tokens at the token service", () => {
  async function deployToken(base: string, owner: { id: number }, scopes: string[]) {
    const ownerPat = await makePat(owner.id, ["api"]);
    const res = await call(`/api/v4/${base}/deploy_tokens`, { ...json({ name: "reg", scopes }), token: ownerPat });
    return (await res.json()) as { id: number; token: string; username: string };
  }
  it("read_registry pulls, write_registry pushes, under the token's username only; never delete", async () => {
    const { owner, project: p, name } = await project();
    const reader = await deployToken(`projects/${p.id}`, owner, ["read_registry"]);
    expect(actionsFor(await registryToken([`repository:${name}:pull,push`], basicAuth(reader.username, reader.token)), name)).toEqual(["pull"]);
    const writer = await deployToken(`projects/${p.id}`, owner, ["write_registry"]);
    expect(actionsFor(await registryToken([`repository:${name}:*`], basicAuth(writer.username, writer.token)), name)).toEqual(["pull", "push"]);
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth("someone-else", writer.token))).status).toBe(401);
  });
  it("a project token gets nothing on another project; a group token covers projects below its group", async () => {
    const a = await project();
    const b = await project();
    const t = await deployToken(`projects/${a.project.id}`, a.owner, ["read_registry"]);
    expect(claimsOf(await registryToken([`repository:${b.name}:pull`], basicAuth(t.username, t.token))).access).toEqual([]);
    const g = await deployToken(`groups/${a.group.id}`, a.owner, ["read_registry"]);
    expect(actionsFor(await registryToken([`repository:${a.name}/sub/image:pull`], basicAuth(g.username, g.token)), `${a.name}/sub/image`)).toEqual(["pull"]);
  });
  it("expired and deleted deploy tokens are refused at once (401)", async () => {
    const { owner, project: p, name } = await project();
    const t = await deployToken(`projects/${p.id}`, owner, ["read_registry"]);
    await env.DB.prepare("UPDATE deploy_tokens SET expires_at = ? WHERE id = ?").bind(Date.now() - 1, t.id).run();
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(t.username, t.token))).status).toBe(401);
    const t2 = await deployToken(`projects/${p.id}`, owner, ["read_registry"]);
    await call(`/api/v4/projects/${p.id}/deploy_tokens/${t2.id}`, { method: "DELETE", token: await makePat(owner.id, ["api"]) });
    expect((await tokenResponse([`repository:${name}:pull`], basicAuth(t2.username, t2.token))).status).toBe(401);
  });
});

describe("scope parsing", () => {
  it("ignores malformed scopes, unknown actions and registry:catalog; refuses another service (404)", async () => {
    const { project: p, name } = await project();
    const { auth } = await member(p.id, AccessLevel.OWNER, ["api"]);
    const token = await registryToken(["registry:catalog:*", `repository:${name}:frobnicate`, "repository::pull", "garbage", `repository:${name.toUpperCase()}:pull`], auth);
    expect(claimsOf(token).access).toEqual([]);
    const res = await registryCall(`/jwt/auth?service=other&scope=repository:${name}:pull`, { headers: { Authorization: auth } });
    expect(res.status).toBe(404);
  });
});
