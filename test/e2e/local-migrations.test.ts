import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { applyLocalMigrations, migrationNames, withLocalDatabase } from "../../scripts/apply-migrations.mjs";
import { ROOT_DIR } from "./server";

/**
 * npm start applies the local D1 migrations in one Miniflare instance (scripts/apply-migrations.mjs)
 * instead of `wrangler d1 migrations apply`, which starts one per migration. The state it leaves
 * must be wrangler's: wrangler's own `migrations list` and `migrations apply` read it as fully
 * applied, and a state wrangler migrated part of the way gets exactly its pending migrations.
 */
const run = promisify(execFile);
const wranglerBin = path.join(ROOT_DIR, "node_modules", ".bin", "wrangler");
const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const scratch = mkdtempSync(path.join(tmpdir(), "edge-auth-migrations-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const all: string[] = migrationNames(path.join(ROOT_DIR, "drizzle"));

/** wrangler's own view of a state directory's migrations, through a given config file. */
async function wrangler(args: string[], config = path.join(ROOT_DIR, "wrangler.toml")): Promise<string> {
  const { stdout } = await run(wranglerBin, ["d1", "migrations", ...args, "DB", "--local", "--config", config], { cwd: ROOT_DIR, env });
  return stdout;
}

/** The schema (every table, index and trigger) and the d1_migrations rows of a state directory. */
async function stateOf(persistTo: string): Promise<{ schema: unknown[]; migrations: unknown[] }> {
  return withLocalDatabase({ projectDir: ROOT_DIR, persistTo }, async (db: D1Database) => ({
    schema: (await db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE substr(name, 1, 4) <> '_cf_' ORDER BY type, name").all()).results,
    migrations: (await db.prepare("SELECT id, name FROM d1_migrations ORDER BY id").all()).results,
  }));
}

/** A fresh state migrated by npm start's step, once for both tests. */
const fresh = path.join(scratch, "fresh");
let freshApplied: Promise<string[]> | undefined;
const migrateFresh = () => (freshApplied ??= applyLocalMigrations({ projectDir: ROOT_DIR, persistTo: fresh }));

// Concurrent: each test spends most of its time in wrangler's CLI starting up.
describe.concurrent("npm start's local D1 migrations are wrangler's (README, Two commands)", () => {
  it("a fresh state gets every migration, one d1_migrations row each in file order, and wrangler's apply finds none left", async () => {
    expect(await migrateFresh()).toEqual(all);
    expect((await stateOf(fresh)).migrations).toEqual(all.map((name, i) => ({ id: i + 1, name })));
    expect(await wrangler(["apply", "--persist-to", fresh])).toContain("No migrations to apply");
  });

  it("a state wrangler migrated part of the way gets exactly its pending migrations and ends as a fresh one does", async () => {
    // wrangler applies the first three migrations, through a copy of wrangler.toml whose
    // migrations_dir holds only those three (the d1_migrations names are the file names either way).
    const firstThree = path.join(scratch, "first-three");
    mkdirSync(firstThree);
    for (const name of all.slice(0, 3)) cpSync(path.join(ROOT_DIR, "drizzle", name), path.join(firstThree, name));
    const partialConfig = path.join(scratch, "wrangler-first-three.toml");
    writeFileSync(
      partialConfig,
      [
        'name = "edge-auth-migrations-test"',
        'compatibility_date = "2026-11-01"',
        "[[d1_databases]]",
        'binding = "DB"',
        'database_name = "edge-auth"',
        'database_id = "00000000-0000-4000-8000-000000000001"',
        `migrations_dir = ${JSON.stringify(firstThree)}`,
      ].join("\n"),
    );
    const partial = path.join(scratch, "partial");
    await wrangler(["apply", "--persist-to", partial], partialConfig);
    expect((await stateOf(partial)).migrations).toEqual(all.slice(0, 3).map((name, i) => ({ id: i + 1, name })));

    expect(await applyLocalMigrations({ projectDir: ROOT_DIR, persistTo: partial })).toEqual(all.slice(3));
    await migrateFresh();
    expect(await stateOf(partial)).toEqual(await stateOf(fresh));
    expect(await applyLocalMigrations({ projectDir: ROOT_DIR, persistTo: partial })).toEqual([]);
  });
});
