import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { createUser } from "../../src/db/users";
import { call, makeUserWithToken, unique } from "../helpers/fixtures";
import { makeGroup, makeProject } from "../helpers/resources";

/**
 * `?search=` of users, projects and groups with GitLab's rules (Gitlab::SQL::Pattern, docs/scaling.md
 * "Search"): words of three characters or more, all in one column, case-insensitive substrings; a
 * query with no such word is an exact match; the FTS index follows renames and deletes.
 */
let admin: { token: string };
let member: { token: string; user: { id: number } };
const tag = unique("zq").toLowerCase();

async function names(path: string, token: string): Promise<string[]> {
  const res = await call(path, { token });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { username?: string; name: string }[]).map((r) => r.username ?? r.name);
}

beforeAll(async () => {
  admin = await makeUserWithToken({ isAdmin: true });
  member = await makeUserWithToken();
  const db = getDb(env.DB);
  await createUser(db, { username: `${tag}alice`, name: "Alice Liddell", email: `${tag}-a@example.com`, password: "x".repeat(12), isAdmin: false });
  await createUser(db, { username: `${tag}bob`, name: "Bob Liddell Ross", email: `${tag}-b@example.com`, password: "x".repeat(12), isAdmin: false });
  await createUser(db, { username: "al", name: "Al", email: `${tag}-al@example.com`, password: "x".repeat(12), isAdmin: false });
});

describe("GET /users?search= (GitLab User.search)", () => {
  it("a word of three characters or more is a case-insensitive substring of username or name", async () => {
    expect((await names(`/api/v4/users?search=${tag.toUpperCase()}ALI`, member.token)).sort()).toEqual([`${tag}alice`]);
    expect((await names(`/api/v4/users?search=${tag}`, member.token)).sort()).toEqual([`${tag}alice`, `${tag}bob`]);
  });
  it("every word must occur in the same column; words shorter than three characters are dropped", async () => {
    expect(await names(`/api/v4/users?search=${encodeURIComponent(`liddell ross`)}`, member.token)).toEqual([`${tag}bob`]);
    expect(await names(`/api/v4/users?search=${encodeURIComponent(`${tag}bob ross`)}`, member.token)).toEqual([]);
    expect(await names(`/api/v4/users?search=${encodeURIComponent(`${tag}bob xy`)}`, member.token)).toEqual([`${tag}bob`]);
  });
  it("a query with no word of three characters is an exact, case-insensitive match", async () => {
    expect(await names("/api/v4/users?search=AL", member.token)).toEqual(["al"]);
  });
  it("an email is found only by an administrator, and only whole (GitLab: with_primary_or_secondary_email)", async () => {
    expect(await names(`/api/v4/users?search=${tag}-a@example.com`, member.token)).toEqual([]);
    expect(await names(`/api/v4/users?search=${tag}-a@example.com`, admin.token)).toEqual([`${tag}alice`]);
    expect(await names(`/api/v4/users?search=${tag}-a@example`, admin.token)).toEqual([]);
  });
  it("the index follows a rename and a delete", async () => {
    const db = getDb(env.DB);
    const u = await createUser(db, { username: `${tag}carol`, name: "Carol", email: `${tag}-c@example.com`, password: "x".repeat(12), isAdmin: false });
    await env.DB.prepare("UPDATE users SET name = ? WHERE id = ?").bind(`Caroline ${tag}renamed`, u.id).run();
    expect(await names(`/api/v4/users?search=${tag}renamed`, member.token)).toEqual([`${tag}carol`]);
    await env.DB.prepare("DELETE FROM users WHERE id = ?").bind(u.id).run();
    expect(await names(`/api/v4/users?search=${tag}renamed`, member.token)).toEqual([]);
  });
});

describe("GET /projects?search= and /groups?search= (GitLab Project.search, Group.search)", () => {
  let g: { id: number; fullPath: string; name: string };
  beforeAll(async () => {
    g = await makeGroup(member.user.id, { visibility: "public" });
    await env.DB.prepare("UPDATE groups SET name = ? WHERE id = ?").bind(`Search ${tag} Group`, g.id).run();
    const p = await makeProject(member.user.id, { groupId: g.id, groupPath: g.fullPath, visibility: "public" });
    await env.DB.prepare("UPDATE projects SET name = ?, description = ? WHERE id = ?").bind(`${tag} Widget`, "A gadget for everyone", p.id).run();
    const hidden = await makeProject(member.user.id, { visibility: "private" });
    await env.DB.prepare("UPDATE projects SET name = ? WHERE id = ?").bind(`${tag} Secret`, hidden.id).run();
  });
  it("projects match name, path or description; private projects of others stay hidden", async () => {
    const other = await makeUserWithToken();
    expect(await names(`/api/v4/projects?search=${tag}`, other.token)).toEqual([`${tag} Widget`]);
    expect(await names(`/api/v4/projects?search=GADGET`, other.token)).toContain(`${tag} Widget`);
    expect((await names(`/api/v4/projects?search=${tag}`, member.token)).sort()).toEqual([`${tag} Secret`, `${tag} Widget`]);
  });
  it("search_namespaces=true also matches the namespace's path", async () => {
    expect(await names(`/api/v4/projects?search=${g.fullPath}`, member.token)).toEqual([]);
    expect(await names(`/api/v4/projects?search=${g.fullPath}&search_namespaces=true`, member.token)).toEqual([`${tag} Widget`]);
  });
  it("totals: a search that matches nothing is X-Total 0; a page past the last match still counts the matches", async () => {
    const none = await call(`/api/v4/projects?search=${tag}nomatch`, { token: member.token });
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual([]);
    expect(none.headers.get("X-Total")).toBe("0");
    const past = await call(`/api/v4/projects?search=${tag}&page=5`, { token: member.token });
    expect(await past.json()).toEqual([]);
    expect(past.headers.get("X-Total")).toBe("2");
  });
  it("groups match name or path", async () => {
    expect(await names(`/api/v4/groups?search=${tag}`, member.token)).toEqual([`Search ${tag} Group`]);
    expect(await names(`/api/v4/groups?search=${g.fullPath.toUpperCase()}`, member.token)).toEqual([`Search ${tag} Group`]);
  });
});
