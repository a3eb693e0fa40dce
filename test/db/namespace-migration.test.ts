import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeUserWithToken, unique } from "../helpers/fixtures";
import { callAt } from "../helpers/versioned";

/**
 * docs/security.md "Namespaces", the migration: existing rows that collide without regard to case
 * (or hold a username or a reserved path) are renamed, the oldest keeping its name, and reported as
 * audit events, so the unique indexes on lower(...) can be created instead of the migration
 * failing. The migrations' own SQL runs on the real D1 binding, set back to the schema before them
 * and holding colliding rows.
 */
const migration = (tag: string) => {
  const m = env.TEST_MIGRATIONS.find((x) => x.name.includes(tag));
  if (!m) throw new Error(`migration ${tag} not found`);
  return m.queries;
};

async function run(queries: string[]) {
  await env.DB.batch(queries.map((q) => env.DB.prepare(q)));
}

/** The schema as it was before the namespace migrations: case-sensitive unique indexes, no triggers. */
async function schemaBeforeNamespaces() {
  await run([
    ...["user_insert", "user_update", "group_insert", "group_update", "project_insert", "project_update"].map((t) => `DROP TRIGGER namespace_${t}`),
    "DROP INDEX users_username_lower_idx",
    "DROP INDEX users_email_lower_idx",
    "DROP INDEX groups_full_path_lower_idx",
    "DROP INDEX projects_path_with_namespace_lower_idx",
    "CREATE UNIQUE INDEX users_username_unique ON users (username)",
    "CREATE UNIQUE INDEX users_email_unique ON users (email)",
    "CREATE UNIQUE INDEX groups_full_path_unique ON groups (full_path)",
    "CREATE UNIQUE INDEX projects_path_with_namespace_unique ON projects (path_with_namespace)",
  ]);
}

const now = Date.now();
async function id(sql: string, ...binds: unknown[]): Promise<number> {
  return (await env.DB.prepare(`${sql} RETURNING id`).bind(...binds).first<{ id: number }>())!.id;
}
const user = (username: string, email = `${unique("m")}@example.com`) =>
  id("INSERT INTO users (username, name, email, password_hash) VALUES (?, ?, ?, 'x')", username, username, email);
const group = (path: string, fullPath = path, parentId: number | null = null) =>
  id("INSERT INTO groups (name, path, full_path, parent_id, created_at) VALUES (?, ?, ?, ?, ?)", path, path, fullPath, parentId, now);
const project = (path: string, fullPath: string, kind: "group" | "user", namespaceId: number) =>
  id(
    "INSERT INTO projects (name, path, path_with_namespace, namespace_kind, namespace_id, created_at, last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    path,
    path,
    fullPath,
    kind,
    namespaceId,
    now,
    now,
  );
const col = async (table: string, column: string, rowId: number) =>
  (await env.DB.prepare(`SELECT ${column} AS v FROM ${table} WHERE id = ?`).bind(rowId).first<{ v: string }>())!.v;

describe("the namespace migration resolves and reports existing collisions", () => {
  it("renames the later of each colliding pair, moves what hangs below it, reports each rename, then the unique indexes are created", async () => {
    await schemaBeforeNamespaces();
    const n = unique("n").toLowerCase();
    const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

    // Two users whose usernames, and two whose emails, differ only in case; a personal project.
    const alice1 = await user(cap(`alice${n}`));
    const alice2 = await user(`alice${n}`);
    const alicesTool = await project("tool", `alice${n}/tool`, "user", alice2);
    const bob1 = await user(`bob1${n}`, `Bob${n}@example.com`);
    const bob2 = await user(`bob2${n}`, `bob${n}@example.com`);
    // A group named after a user, with a subgroup, a project and its registry repository.
    await user(cap(`carol${n}`));
    const carol = await group(`carol${n}`);
    const carolSub = await group("sub", `carol${n}/sub`, carol);
    const carolApp = await project("app", `carol${n}/sub/app`, "group", carolSub);
    await env.DB.prepare("INSERT INTO registry_repositories (project_id, name, path, created_at) VALUES (?, '', ?, ?)").bind(carolApp, `carol${n}/sub/app`, now).run();
    await env.DB.prepare("INSERT INTO registry_blob_links (repository_path, digest, created_at) VALUES (?, 'sha256:aa', ?)").bind(`carol${n}/sub/app`, now).run();
    // A group with a reserved top-level path.
    const v2 = await group("v2");
    // Two groups differing only in case, each with a project "api" (distinct once the group moves).
    const acme1 = await group(`ACME${n}`);
    const acme2 = await group(`acme${n}`);
    const api1 = await project("api", `ACME${n}/api`, "group", acme1);
    const api2 = await project("api", `acme${n}/api`, "group", acme2);
    // Two projects differing only in case in one namespace; a project holding a subgroup's full path.
    const dana = await user(`dana${n}`);
    const tool1 = await project("Tool", `dana${n}/Tool`, "user", dana);
    const tool2 = await project("tool", `dana${n}/tool`, "user", dana);
    const eve = await group(`eve${n}`);
    await group("web", `eve${n}/web`, eve);
    const eveWeb = await project("Web", `eve${n}/Web`, "group", eve);
    const before = (await env.DB.prepare("SELECT max(id) AS m FROM audit_events").first<{ m: number | null }>())!.m ?? 0;

    await run(migration("ns_namespace_collisions"));
    await run(migration("ns_case_insensitive_paths"));

    // The oldest keeps its name; the later one is renamed, and what hangs below it follows.
    expect(await col("users", "username", alice1)).toBe(cap(`alice${n}`));
    expect(await col("users", "username", alice2)).toBe(`alice${n}-collision-${alice2}`);
    expect(await col("projects", "path_with_namespace", alicesTool)).toBe(`alice${n}-collision-${alice2}/tool`);
    expect(await col("users", "email", bob1)).toBe(`Bob${n}@example.com`);
    expect(await col("users", "email", bob2)).toBe(`bob${n}+collision-${bob2}@example.com`);
    expect(await col("groups", "full_path", carol)).toBe(`carol${n}-collision-${carol}`);
    expect(await col("groups", "full_path", carolSub)).toBe(`carol${n}-collision-${carol}/sub`);
    expect(await col("projects", "path_with_namespace", carolApp)).toBe(`carol${n}-collision-${carol}/sub/app`);
    expect(await col("registry_repositories", "path", (await env.DB.prepare("SELECT id FROM registry_repositories WHERE project_id = ?").bind(carolApp).first<{ id: number }>())!.id)).toBe(
      `carol${n}-collision-${carol}/sub/app`,
    );
    const link = await env.DB.prepare("SELECT repository_path AS p FROM registry_blob_links WHERE digest = 'sha256:aa'").first<{ p: string }>();
    expect(link!.p).toBe(`carol${n}-collision-${carol}/sub/app`);
    expect(await col("groups", "full_path", v2)).toBe(`v2-collision-${v2}`);
    expect(await col("groups", "full_path", acme1)).toBe(`ACME${n}`);
    expect(await col("groups", "full_path", acme2)).toBe(`acme${n}-collision-${acme2}`);
    // Its project moved with the group and collides no more: it is not renamed itself.
    expect(await col("projects", "path_with_namespace", api1)).toBe(`ACME${n}/api`);
    expect(await col("projects", "path_with_namespace", api2)).toBe(`acme${n}-collision-${acme2}/api`);
    expect(await col("projects", "path_with_namespace", tool1)).toBe(`dana${n}/Tool`);
    expect(await col("projects", "path_with_namespace", tool2)).toBe(`dana${n}/tool-collision-${tool2}`);
    expect(await col("projects", "path", tool2)).toBe(`tool-collision-${tool2}`);
    expect(await col("projects", "path_with_namespace", eveWeb)).toBe(`eve${n}/Web-collision-${eveWeb}`);

    // The report: one audit event per rename (GET /api/v4/audit_events shows them to administrators).
    const { results } = await env.DB.prepare("SELECT entity_type, entity_id, details FROM audit_events WHERE action = 'namespace_path_renamed' AND id > ? ORDER BY id")
      .bind(before)
      .all<{ entity_type: string; entity_id: string; details: string }>();
    const report = results.map((r) => ({ type: r.entity_type, id: Number(r.entity_id), ...JSON.parse(r.details) }));
    expect(report).toEqual(
      expect.arrayContaining([
        { type: "user", id: alice2, field: "username", from: `alice${n}`, to: `alice${n}-collision-${alice2}`, reason: "taken", collided_with_type: "user", collided_with_id: alice1 },
        expect.objectContaining({ type: "user", id: bob2, field: "email", collided_with_id: bob1 }),
        expect.objectContaining({ type: "group", id: carol, field: "path", reason: "taken", collided_with_type: "user" }),
        { type: "group", id: v2, field: "path", from: "v2", to: `v2-collision-${v2}`, reason: "reserved", collided_with_type: null, collided_with_id: null },
        expect.objectContaining({ type: "group", id: acme2, collided_with_type: "group", collided_with_id: acme1 }),
        expect.objectContaining({ type: "project", id: tool2, collided_with_type: "project", collided_with_id: tool1 }),
        expect.objectContaining({ type: "project", id: eveWeb, collided_with_type: "group" }),
      ]),
    );
    expect(report).toHaveLength(7);
    // Administrators read the report through GitLab's audit events API.
    const admin = await makeUserWithToken({ isAdmin: true });
    const listed = await callAt("16.0", "/api/v4/audit_events?entity_type=Group&per_page=100", { token: admin.token });
    const groupsRenamed = ((await listed.json()) as { entity_id: number; event_name: string; details: Record<string, unknown> }[]).filter(
      (e) => e.event_name === "namespace_path_renamed",
    );
    expect(groupsRenamed.map((e) => e.entity_id).sort()).toEqual([carol, v2, acme2].sort());
    expect(groupsRenamed.find((e) => e.entity_id === v2)?.details).toMatchObject({ from: "v2", to: `v2-collision-${v2}`, reason: "reserved", target_type: "Group" });

    // The unique indexes and triggers exist again: a case variant is refused from now on.
    const indexes = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND name LIKE '%lower_idx' OR name LIKE 'namespace_%'").all<{ name: string }>();
    expect(indexes.results.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        "groups_full_path_lower_idx",
        "namespace_group_insert",
        "namespace_group_update",
        "namespace_project_insert",
        "namespace_project_update",
        "namespace_user_insert",
        "namespace_user_update",
        "projects_path_with_namespace_lower_idx",
        "users_email_lower_idx",
        "users_username_lower_idx",
      ]),
    );
    await expect(group(`Acme${n}`)).rejects.toThrow(/UNIQUE/);
  });
});
