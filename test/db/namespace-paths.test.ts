import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { getDb } from "../../src/db/client";
import { createGroup, createProject } from "../../src/db/namespaces";
import { createUser } from "../../src/db/users";
import { isReservedTopLevelPath } from "../../src/domain/namespace-paths";
import { makeUser, unique } from "../helpers/fixtures";

/**
 * DESIGN.md "Namespaces", enforced where D1 stores the rows: whichever code path writes a user,
 * group or project (the repository functions, or a bare INSERT), D1 refuses a second row that
 * differs only in case, a group holding a username, a user holding a group's path, and a project
 * and group sharing a full path. So every resolver by path (REST, git, registry names, /jwt/auth
 * scopes, pages) can only ever find one row.
 */
const db = getDb(env.DB);
const now = Date.now();

async function insertGroup(path: string, fullPath = path, parentId: number | null = null) {
  return env.DB.prepare("INSERT INTO groups (name, path, full_path, parent_id, created_at) VALUES (?, ?, ?, ?, ?)").bind(path, path, fullPath, parentId, now).run();
}
async function insertProject(path: string, fullPath: string, kind: "group" | "user", namespaceId: number) {
  return env.DB.prepare("INSERT INTO projects (name, path, path_with_namespace, namespace_kind, namespace_id, created_at, last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(path, path, fullPath, kind, namespaceId, now, now)
    .run();
}
async function insertUser(username: string, email = `${unique("e")}@example.com`) {
  return env.DB.prepare("INSERT INTO users (username, name, email, password_hash) VALUES (?, ?, ?, 'x')").bind(username, username, email).run();
}

describe("D1 refuses a second row of a namespace path, whoever writes it", () => {
  it("group full paths and project paths: unique without regard to case", async () => {
    const path = unique("Acme");
    await insertGroup(path);
    await expect(insertGroup(path.toLowerCase())).rejects.toThrow(/UNIQUE/);
    const user = await makeUser();
    await insertProject("Api", `${user.username}/Api`, "user", user.id);
    await expect(insertProject("api", `${user.username}/api`.toUpperCase(), "user", user.id)).rejects.toThrow(/UNIQUE/);
  });

  it("users and top-level groups share one namespace, both ways", async () => {
    const user = await makeUser();
    await expect(insertGroup(user.username.toUpperCase())).rejects.toThrow(/UNIQUE constraint failed: namespace path/);
    const group = unique("Team");
    await insertGroup(group);
    await expect(insertUser(group.toLowerCase())).rejects.toThrow(/UNIQUE constraint failed: namespace path/);
    // A subgroup's own path may equal a username: only full paths share the namespace.
    const parent = unique("p");
    await insertGroup(parent);
    const { id } = (await env.DB.prepare("SELECT id FROM groups WHERE full_path = ?").bind(parent).first<{ id: number }>())!;
    await insertGroup(user.username, `${parent}/${user.username}`, id);
  });

  it("a project and a group never share a full path", async () => {
    const g = unique("g");
    await insertGroup(g);
    const { id } = (await env.DB.prepare("SELECT id FROM groups WHERE full_path = ?").bind(g).first<{ id: number }>())!;
    await insertProject("web", `${g}/web`, "group", id);
    await expect(insertGroup("WEB", `${g}/WEB`, id)).rejects.toThrow(/UNIQUE constraint failed: namespace path/);
    await insertGroup("libs", `${g}/libs`, id);
    await expect(insertProject("Libs", `${g}/Libs`, "group", id)).rejects.toThrow(/UNIQUE constraint failed: namespace path/);
  });

  it("emails: unique without regard to case", async () => {
    const email = `${unique("Mail")}@Example.com`;
    await insertUser(unique("u"), email);
    await expect(insertUser(unique("u"), email.toLowerCase())).rejects.toThrow(/UNIQUE/);
  });
});

describe("the repository functions answer with namespacePathError (GitLab's messages)", () => {
  it("createUser, createGroup, createProject: taken and reserved", async () => {
    const owner = await makeUser();
    const taken = createUser(db, { username: owner.username.toUpperCase(), name: "x", email: `${unique("e")}@example.com`, password: "correct horse battery staple" });
    await expect(taken).rejects.toMatchObject({ code: "conflict", details: { field: "username", reason: "taken" }, message: "has already been taken" });
    const email = createUser(db, { username: unique("u"), name: "x", email: owner.email.toUpperCase(), password: "correct horse battery staple" });
    await expect(email).rejects.toMatchObject({ code: "conflict", details: { field: "email", reason: "taken" } });
    const reserved = createGroup(db, { name: "x", path: "Dashboard", parent: null, visibility: "private", description: "", ownerId: owner.id });
    await expect(reserved).rejects.toMatchObject({ code: "invalid", details: { field: "path", reason: "reserved" } });
    await expect(reserved).rejects.toThrow("Dashboard is a reserved name");
    const group = await createGroup(db, { name: "x", path: unique("G"), parent: null, visibility: "private", description: "", ownerId: owner.id });
    const namespace = { kind: "group" as const, id: group.id, fullPath: group.fullPath };
    await createProject(db, { name: "x", path: "Svc", namespace, visibility: "private", description: "", creatorId: owner.id });
    const dup = createProject(db, { name: "x", path: "svc", namespace, visibility: "private", description: "", creatorId: owner.id });
    await expect(dup).rejects.toMatchObject({ code: "invalid", details: { field: "path", reason: "taken" } });
  });
});

describe("the reserved list covers every top-level path the app mounts", () => {
  it("each static first segment of app.routes is reserved", () => {
    const firsts = new Set<string>();
    for (const r of app.routes) {
      const first = r.path.split("/")[1] ?? "";
      // Parameters (":repo", ":project") are the namespaces themselves; "*" is middleware.
      if (first && !first.startsWith(":") && first !== "*") firsts.add(first);
    }
    expect(firsts.size).toBeGreaterThan(5);
    expect([...firsts].filter((f) => !isReservedTopLevelPath(f))).toEqual([]);
  });
});
