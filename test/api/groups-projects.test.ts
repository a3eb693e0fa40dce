import { describe, expect, it } from "vitest";
import { makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { body, callAt } from "../helpers/versioned";

/** Groups, projects and members (issue 5, Supporting resources; GitLab shapes and roles). */
const owner = await makeUserWithToken();

async function createGroup(token: string, extra: Record<string, unknown> = {}) {
  const path = unique("g");
  const res = await callAt("16.0", "/api/v4/groups", { ...body({ name: path, path, ...extra }), token });
  return { res, path };
}

describe("groups", () => {
  it("POST /groups creates a group its creator owns; GET by id and by URL-encoded path", async () => {
    const { res, path } = await createGroup(owner.token);
    expect(res.status).toBe(201);
    const g = (await res.json()) as { id: number; full_path: string; visibility: string };
    expect(g).toMatchObject({ full_path: path, visibility: "private" });
    const sub = await callAt("16.0", "/api/v4/groups", { ...body({ name: "Sub", path: "sub", parent_id: g.id }), token: owner.token });
    expect((await sub.json()) as Record<string, any>).toMatchObject({ full_path: `${path}/sub`, parent_id: g.id });
    const byPath = await callAt("16.0", `/api/v4/groups/${encodeURIComponent(`${path}/sub`)}`, { token: owner.token });
    expect(byPath.status).toBe(200);
    const members = await callAt("16.0", `/api/v4/groups/${g.id}/members`, { token: owner.token });
    expect((await members.json()) as Record<string, any>).toMatchObject([{ id: owner.user.id, access_level: 50 }]);
  });
  it("a private group is 404 to others; a duplicate path is 400; a bad path is 400; read_api cannot create", async () => {
    const { res, path } = await createGroup(owner.token);
    const g = (await res.json()) as { id: number };
    const other = await makeUserWithToken();
    expect((await callAt("16.0", `/api/v4/groups/${g.id}`, { token: other.token })).status).toBe(404);
    const dup = await callAt("16.0", "/api/v4/groups", { ...body({ name: "x", path }), token: owner.token });
    expect((await dup.json()) as Record<string, any>).toEqual({ message: { path: ["has already been taken"] } });
    const bad = await callAt("16.0", "/api/v4/groups", { ...body({ name: "x", path: "bad path" }), token: owner.token });
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "path is invalid" });
    const reader = await makeUserWithToken({ scopes: ["read_api"] });
    expect((await createGroup(reader.token)).res.status).toBe(403);
  });
  it("GET /groups lists visible groups with pagination headers", async () => {
    const me = await makeUserWithToken();
    await createGroup(me.token);
    await createGroup(me.token);
    const res = await callAt("16.0", "/api/v4/groups?owned=true&per_page=1", { token: me.token });
    expect(res.headers.get("X-Total")).toBe("2");
    expect(res.headers.get("X-Total-Pages")).toBe("2");
    expect(((await res.json()) as Record<string, any>).length).toBe(1);
  });
});

describe("projects and members", () => {
  it("POST /projects in a group (developer) and in the user's namespace; GET by path; list membership", async () => {
    const { res } = await createGroup(owner.token);
    const g = (await res.json()) as { id: number; full_path: string };
    const p = await callAt("16.0", "/api/v4/projects", { ...body({ name: "Demo App", namespace_id: g.id, visibility: "internal" }), token: owner.token });
    expect(p.status).toBe(201);
    const project = (await p.json()) as { id: number; path_with_namespace: string };
    expect(project.path_with_namespace).toBe(`${g.full_path}/demo-app`);
    const get = await callAt("16.0", `/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}`, { token: owner.token });
    expect((await get.json()) as Record<string, any>).toMatchObject({ id: project.id, visibility: "internal", namespace: { id: g.id, kind: "group" } });
    // internal: any signed-in user sees it
    const other = await makeUserWithToken();
    expect((await callAt("16.0", `/api/v4/projects/${project.id}`, { token: other.token })).status).toBe(200);
    const mine = await callAt("16.0", "/api/v4/projects?membership=true", { token: other.token });
    expect(((await mine.json()) as { id: number }[]).map((x) => x.id)).not.toContain(project.id);
    const personal = await callAt("16.0", "/api/v4/projects", { ...body({ path: unique("p") }), token: other.token });
    expect((await personal.json()) as Record<string, any>).toMatchObject({ namespace: { kind: "user", full_path: other.user.username } });
  });
  it("members: a maintainer adds, updates and removes; a developer cannot; the last owner stays", async () => {
    const p = await callAt("16.0", "/api/v4/projects", { ...body({ path: unique("p") }), token: owner.token });
    const project = (await p.json()) as { id: number };
    const dev = await makeUserWithToken();
    const add = await callAt("16.0", `/api/v4/projects/${project.id}/members`, { ...body({ user_id: dev.user.id, access_level: 30 }), token: owner.token });
    expect(add.status).toBe(201);
    expect((await add.json()) as Record<string, any>).toMatchObject({ id: dev.user.id, access_level: 30 });
    const again = await callAt("16.0", `/api/v4/projects/${project.id}/members`, { ...body({ user_id: dev.user.id, access_level: 30 }), token: owner.token });
    expect(again.status).toBe(409);
    const third = await makeUser();
    const denied = await callAt("16.0", `/api/v4/projects/${project.id}/members`, { ...body({ user_id: third.id, access_level: 10 }), token: dev.token });
    expect(denied.status).toBe(403);
    const badLevel = await callAt("16.0", `/api/v4/projects/${project.id}/members`, { ...body({ user_id: third.id, access_level: 35 }), token: owner.token });
    expect((await badLevel.json()) as Record<string, any>).toEqual({ error: "access_level is invalid" });
    const upd = await callAt("16.0", `/api/v4/projects/${project.id}/members/${dev.user.id}`, { ...body({ access_level: 40 }, "PUT"), token: owner.token });
    expect((await upd.json()) as Record<string, any>).toMatchObject({ access_level: 40 });
    expect((await callAt("16.0", `/api/v4/projects/${project.id}/members/${dev.user.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    const { res } = await createGroup(owner.token);
    const g = (await res.json()) as { id: number };
    const last = await callAt("16.0", `/api/v4/groups/${g.id}/members/${owner.user.id}`, { method: "DELETE", token: owner.token });
    expect(last.status).toBe(400);
  });
  it("projects list: order_by and sort, bad order_by is 400, pagination headers and Link", async () => {
    const me = await makeUserWithToken();
    for (const n of ["b", "a", "c"]) await callAt("16.0", "/api/v4/projects", { ...body({ name: n + unique(""), path: n + unique("") }), token: me.token });
    const res = await callAt("16.0", "/api/v4/projects?membership=true&order_by=name&sort=asc&per_page=2", { token: me.token });
    expect(((await res.json()) as { name: string }[]).map((p) => p.name[0])).toEqual(["a", "b"]);
    expect(res.headers.get("Link")).toContain('rel="next"');
    const bad = await callAt("16.0", "/api/v4/projects?order_by=stars", { token: me.token });
    expect((await bad.json()) as Record<string, any>).toEqual({ error: "order_by does not have a valid value" });
  });
});
