import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { OWNERSHIP } from "../../src/db/ownership";
import { call, json, makePat, makeUser, makeUserWithToken } from "../helpers/fixtures";
import { seedGrants } from "../helpers/grants";
import { makeApp } from "../oauth/helpers";

/**
 * DESIGN, "Changes that finish" (ownership declared once): every table with a parent's id column
 * is declared in src/db/ownership.ts with how the parent's deletion takes it away, and what is
 * declared holds (a cascade is a foreign key with ON DELETE CASCADE; a project's deletion leaves
 * no row in any table declared deleted or cascade).
 */
const modules = import.meta.glob("../../src/db/schema/*.ts", { eager: true }) as Record<string, Record<string, unknown>>;
const tables = Object.values(modules).flatMap((m) => Object.values(m).filter((v): v is SQLiteTable => is(v, SQLiteTable)));
const PARENT_COLUMNS = { project_id: "project", user_id: "user", application_id: "application" } as const;

describe("DESIGN Changes that finish: ownership declared once (src/db/ownership.ts)", () => {
  it("every table with a project_id, user_id or application_id column is declared for that parent", () => {
    expect(tables.length).toBeGreaterThan(20);
    const undeclared: string[] = [];
    for (const t of tables) {
      const config = getTableConfig(t);
      for (const col of config.columns) {
        const parent = PARENT_COLUMNS[col.name as keyof typeof PARENT_COLUMNS];
        if (!parent) continue;
        if (!OWNERSHIP[parent].tables.some((o) => o.table === config.name && o.column === col.name)) undeclared.push(`${parent}: ${config.name}.${col.name}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it("every declared table exists with that column, and every declared cascade is a foreign key with ON DELETE CASCADE", () => {
    for (const [parent, ownership] of Object.entries(OWNERSHIP)) {
      for (const owned of ownership.tables) {
        const t = tables.find((x) => getTableConfig(x).name === owned.table);
        expect(t, `${parent}: ${owned.table}`).toBeDefined();
        const config = getTableConfig(t!);
        expect(config.columns.map((c) => c.name), `${owned.table}`).toContain(owned.column);
        if (owned.removal.how === "cascade") {
          const cascades = config.foreignKeys.filter((fk) => fk.onDelete === "cascade").flatMap((fk) => fk.reference().columns.map((c) => c.name));
          expect(cascades, `${owned.table}.${owned.column} cascades`).toContain(owned.column);
        }
      }
    }
  });

  it("after DELETE /projects/:id no table declared deleted or cascade holds a row of the project", async () => {
    const { token } = await makeUserWithToken();
    const created = (await (await call("/api/v4/projects", { method: "POST", token, ...json({ name: "Owned things", initialize_with_readme: true }) })).json()) as { id: number };
    const deploy = await call(`/api/v4/projects/${created.id}/deploy_tokens`, { method: "POST", token, ...json({ name: "d", scopes: ["read_repository"] }) });
    expect(deploy.status).toBe(201);
    const rowsOf = async (table: string, column: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${column}" = ?`).bind(created.id).first<{ n: number }>())!.n;
    expect(await rowsOf("deploy_tokens", "project_id")).toBe(1);

    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost/api/v4/projects/${created.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } }), env, ctx);
    expect(res.status).toBe(202);
    await waitOnExecutionContext(ctx);
    for (const owned of OWNERSHIP.project.tables) {
      if (owned.removal.how === "kept") continue;
      expect(await rowsOf(owned.table, owned.column), owned.table).toBe(0);
    }
    expect(await env.DB.prepare("SELECT count(*) AS n FROM pending_changes WHERE subject = ?").bind(`project:${created.id}`).first<{ n: number }>()).toEqual({ n: 0 });
  });

  it("after DELETE /users/:id no table declared deleted, cascade, contribution or reassigned names the user, and no credential of theirs works", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const pat = await makePat(user.id);
    const { app } = await makeApp({ ownerId: user.id });
    const { tokens } = await seedGrants(user.id, app, 5, 5);
    const owner = await makeUserWithToken();
    const shared = (await (await call("/api/v4/projects", { method: "POST", token: owner.token, ...json({ name: "Shared" }) })).json()) as { id: number };
    const personal = await call("/api/v4/projects", { method: "POST", token: pat, ...json({ name: "Personal" }) });
    expect(personal.status).toBe(201);
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").bind(`owned-${user.id}`, user.id, now, now + 3_600_000),
      env.DB.prepare("INSERT INTO sign_in_addresses (user_id, address, last_sign_in_at) VALUES (?, '192.0.2.1', ?)").bind(user.id, now),
      env.DB.prepare("INSERT INTO user_otp_state (user_id, last_used_step) VALUES (?, 1)").bind(user.id),
      env.DB.prepare("INSERT INTO ssh_keys (user_id, title, key, fingerprint, fingerprint_sha256, created_at) VALUES (?, 'laptop', 'ssh-ed25519 AAAA', 'aa:bb', ?, ?)").bind(user.id, `owned-${user.id}`, now),
      env.DB.prepare("INSERT INTO members (source_type, source_id, user_id, access_level, created_at) VALUES ('project', ?, ?, 30, ?)").bind(shared.id, user.id, now),
      env.DB.prepare("INSERT INTO merge_requests (iid, project_id, title, source_branch, target_branch, author_id, merge_user_id, sha, created_at, updated_at) VALUES (1, ?, 'MR', 'f', 'main', ?, ?, 'abc', ?, ?)").bind(shared.id, user.id, user.id, now, now),
      env.DB.prepare("INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at) VALUES (?, 1, 'Issue', ?, ?, ?)").bind(shared.id, user.id, now, now),
      env.DB.prepare("INSERT INTO ci_pipelines (iid, project_id, sha, ref, user_id, created_at, updated_at) VALUES (1, ?, 'abc', 'main', ?, ?, ?)").bind(shared.id, user.id, now, now),
    ]);
    const rowsOf = async (table: string, column: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${column}" = ?`).bind(user.id).first<{ n: number }>())!.n;
    const removed = OWNERSHIP.user.tables.filter((o) => o.removal.how !== "kept");
    const seeded = [];
    for (const owned of removed) if ((await rowsOf(owned.table, owned.column)) > 0) seeded.push(`${owned.table}.${owned.column}`);
    // Every removed table but those only other features fill (plugins, runners) holds a row of the user before.
    expect(seeded.length).toBeGreaterThanOrEqual(removed.length - 3);

    expect((await call(`/api/v4/users/${user.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);
    for (const owned of removed) expect(await rowsOf(owned.table, owned.column), `${owned.table}.${owned.column}`).toBe(0);
    expect(await rowsOf("users", "id")).toBe(0);
    expect((await call("/api/v4/user", { token: pat })).status).toBe(401);
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(401);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE namespace_kind = 'user' AND namespace_id = ?").bind(user.id).first<{ n: number }>()).toEqual({ n: 0 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM pending_changes WHERE subject = ?").bind(`user:${user.id}`).first<{ n: number }>()).toEqual({ n: 0 });
  });

  it("after DELETE /applications/:id no table declared deleted or cascade holds a row of the application, and its grants are refused", async () => {
    const admin = await makeUserWithToken({ isAdmin: true });
    const user = await makeUser();
    const { app } = await makeApp();
    const { tokens } = await seedGrants(user.id, app, 5, 5);
    const rowsOf = async (table: string, column: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${column}" = ?`).bind(app.id).first<{ n: number }>())!.n;
    expect(await rowsOf("oauth_token_families", "application_id")).toBe(5);
    expect((await call(`/api/v4/applications/${app.id}`, { method: "DELETE", token: admin.token })).status).toBe(204);
    for (const owned of OWNERSHIP.application.tables) {
      if (owned.removal.how === "kept") continue;
      expect(await rowsOf(owned.table, owned.column), owned.table).toBe(0);
    }
    for (const t of tokens) expect((await call("/api/v4/user", { token: t })).status).toBe(401);
  });
});
