import { describe, expect, it } from "vitest";
import { RESERVED_TOP_LEVEL_PATHS } from "../../src/domain/namespace-paths";
import { makePat, makeUser, makeUserWithToken, unique } from "../helpers/fixtures";
import { body, callAt } from "../helpers/versioned";
import { basicAuth, claimsOf, registryToken } from "../registry/helpers";

/**
 * DESIGN.md "Namespaces" (GitLab's rules): users and groups share one namespace of paths, unique
 * without regard to case; the service's own top-level paths are reserved; project paths are
 * unique without regard to case within their namespace; lookups by path find exactly one row.
 */
const api = (path: string, init: RequestInit & { token?: string } = {}) => callAt("16.0", `/api/v4${path}`, init);
const TAKEN = { message: { path: ["has already been taken"] } };

async function newGroup(token: string, path: string, extra: Record<string, unknown> = {}) {
  return api("/groups", { ...body({ name: path, path, ...extra }), token });
}
async function newProject(token: string, path: string, extra: Record<string, unknown> = {}) {
  return api("/projects", { ...body({ path, ...extra }), token });
}

const owner = await makeUserWithToken();
const attacker = await makeUserWithToken();
const admin = await makeUserWithToken({ isAdmin: true });

describe("group paths are unique without regard to case (one namespace with usernames)", () => {
  it("a second group whose path differs only in case is refused: 400 path has already been taken", async () => {
    const path = unique("ACME");
    expect((await newGroup(attacker.token, path)).status).toBe(201);
    const second = await newGroup(owner.token, path.toLowerCase());
    expect(second.status).toBe(400);
    expect(await second.json()).toEqual(TAKEN);
  });

  it("subgroup paths are unique without regard to case within their parent", async () => {
    const g = (await (await newGroup(owner.token, unique("g"))).json()) as { id: number };
    expect((await newGroup(owner.token, "Team", { parent_id: g.id })).status).toBe(201);
    const dup = await newGroup(owner.token, "TEAM", { parent_id: g.id });
    expect(dup.status).toBe(400);
    expect(await dup.json()).toEqual(TAKEN);
  });

  it("a group cannot take a username, in any case (the user's personal namespace stays theirs)", async () => {
    const alice = await makeUser();
    for (const path of [alice.username, alice.username.toUpperCase()]) {
      const res = await newGroup(attacker.token, path);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(TAKEN);
    }
  });

  it("a user cannot take a group's path: POST /users answers 409 username has already been taken", async () => {
    const path = unique("team");
    expect((await newGroup(owner.token, path)).status).toBe(201);
    const username = path.toUpperCase();
    const res = await api("/users", { ...body({ username, name: "X", email: `${unique("e")}@example.com`, password: "correct horse battery staple" }), token: admin.token });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: { username: ["has already been taken"] } });
  });

  it("two concurrent creations differing only in case: exactly one wins", async () => {
    const path = unique("Race");
    const results = await Promise.all([newGroup(owner.token, path), newGroup(attacker.token, path.toLowerCase())]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
  });
});

describe("the service's own top-level paths are reserved", () => {
  it("groups named after them are refused with GitLab's message, in any case", async () => {
    for (const path of ["api", "oauth", "users", "admin", "profile", "help", "dashboard", "groups", "projects", "assets", "v2", "jwt", "V2", "Api", "proto.Plugin"]) {
      const res = await newGroup(owner.token, path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ message: { path: [`${path} is a reserved name`] } });
    }
    // "-" and ".well-known" cannot even be spelled as a path.
    for (const path of ["-", ".well-known"]) expect((await newGroup(owner.token, path)).status).toBe(400);
  });

  it("usernames named after them are refused (400), as GitLab's users API does", async () => {
    for (const username of ["jwt", "dashboard", "Groups"]) {
      const res = await api("/users", { ...body({ username, name: "X", email: `${unique("e")}@example.com`, password: "correct horse battery staple" }), token: admin.token });
      expect(res.status, username).toBe(400);
      expect(await res.json()).toEqual({ message: { username: [`${username} is a reserved name`] } });
    }
  });

  it("below the top level the same names are ordinary paths", async () => {
    const g = (await (await newGroup(owner.token, unique("g"))).json()) as { id: number };
    expect((await newGroup(owner.token, "api", { parent_id: g.id })).status).toBe(201);
    expect((await newProject(owner.token, "v2", { namespace_id: g.id })).status).toBe(201);
  });

  it("the reserved list holds every path of the design's list", () => {
    for (const p of ["api", "oauth", "users", "admin", "profile", "help", "dashboard", "groups", "projects", "assets", "-", "v2", "jwt", ".well-known"]) {
      expect(RESERVED_TOP_LEVEL_PATHS.has(p), p).toBe(true);
    }
  });
});

describe("project paths are unique without regard to case within their namespace", () => {
  it("in a group: the second project differing only in case is refused, and every resolver finds the first", async () => {
    const gpath = unique("Shop");
    const g = (await (await newGroup(owner.token, gpath)).json()) as { id: number };
    const p = (await (await newProject(owner.token, "Api", { namespace_id: g.id, visibility: "private" })).json()) as { id: number; path_with_namespace: string };
    const dup = await newProject(owner.token, "api", { namespace_id: g.id });
    expect(dup.status).toBe(400);
    expect(await dup.json()).toEqual(TAKEN);

    // REST by URL-encoded path, in any case: the one project.
    for (const path of [p.path_with_namespace, p.path_with_namespace.toLowerCase(), p.path_with_namespace.toUpperCase()]) {
      const res = await api(`/projects/${encodeURIComponent(path)}`, { token: owner.token });
      expect(((await res.json()) as { id: number }).id).toBe(p.id);
    }
    expect(((await (await api(`/groups/${encodeURIComponent(gpath.toLowerCase())}`, { token: owner.token })).json()) as { id: number }).id).toBe(g.id);
    // Registry names (the token service's scopes): the one project, by its lowercase name.
    const pat = await makePat(owner.user.id, ["read_registry"]);
    const token = await registryToken([`repository:${p.path_with_namespace.toLowerCase()}:pull`], basicAuth(owner.user.username, pat));
    expect(claimsOf(token).access).toEqual([expect.objectContaining({ name: p.path_with_namespace.toLowerCase(), actions: ["pull"] })]);
  });

  it("in a user's namespace too; the same path in another namespace is fine", async () => {
    expect((await newProject(owner.token, "Tool")).status).toBe(201);
    const dup = await newProject(owner.token, "TOOL");
    expect(dup.status).toBe(400);
    expect(await dup.json()).toEqual(TAKEN);
    expect((await newProject(attacker.token, "tool")).status).toBe(201);
  });

  it("a project and a subgroup of the same group never share a full path (git and registry names stay unambiguous)", async () => {
    const g = (await (await newGroup(owner.token, unique("g"))).json()) as { id: number };
    expect((await newProject(owner.token, "web", { namespace_id: g.id })).status).toBe(201);
    const sub = await newGroup(owner.token, "WEB", { parent_id: g.id });
    expect(sub.status).toBe(400);
    expect(await sub.json()).toEqual(TAKEN);
    expect((await newGroup(owner.token, "libs", { parent_id: g.id })).status).toBe(201);
    const proj = await newProject(owner.token, "Libs", { namespace_id: g.id });
    expect(proj.status).toBe(400);
    expect(await proj.json()).toEqual(TAKEN);
  });
});
