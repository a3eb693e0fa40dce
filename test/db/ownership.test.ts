import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import app from "../../src/app";
import { OWNERSHIP } from "../../src/db/ownership";
import { call, json, makeUserWithToken } from "../helpers/fixtures";

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
});
