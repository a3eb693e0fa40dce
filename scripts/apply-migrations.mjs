// The local D1 migrations of `npm start`, applied with the same result as
// `wrangler d1 migrations apply DB --local --persist-to <dir>` but in one Miniflare instance.
//
// Why: wrangler starts (and disposes of) a Miniflare instance for every migration it applies, about
// 0.7 s each, so a fresh state directory took ~25 s of `npm start`'s ~30 s before the first request.
// Here one instance applies every pending migration in turn, the way wrangler's own local path does
// it (wrangler-dist/cli.js: initMigrationsTable, getUnappliedMigrations, buildMigrationQuery,
// executeLocally):
//   - the table `d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at
//     TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`, created if missing, in wrangler's exact text;
//   - the migrations are the `*.sql` files of the binding's `migrations_dir`, in file-name order,
//     and those whose name has no row are pending, in that order;
//   - each pending migration is its SQL followed by `INSERT INTO "d1_migrations" (name) values
//     ('<file name>');`, split into statements by wrangler's own splitter and run as one D1 batch
//     (all of it or none of it): a failing migration stops there, the ones before it stay applied.
// So a later plain `wrangler d1 migrations apply` finds them all applied, and a partly migrated
// state (by wrangler or by this) gets exactly its pending ones. Miniflare is wrangler's own copy
// (the one `wrangler dev` persists with), and the database id comes from wrangler.toml.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const wrangler = require("wrangler");
const { Miniflare, convertV4MiniflareOptions } = createRequire(require.resolve("wrangler"))("miniflare");

const TABLE = '"d1_migrations"';
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

/** The `*.sql` file names of a migrations directory, in the order wrangler applies them. */
export function migrationNames(migrationsDir) {
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".sql"))
    .map((entry) => entry.name)
    .sort();
}

/** The local D1 database of binding `binding` (wrangler.toml in `projectDir`) under `persistTo`. */
function localDatabase(projectDir, binding) {
  const config = wrangler.unstable_readConfig({ config: path.join(projectDir, "wrangler.toml") });
  const database = config.d1_databases.find((d) => d.binding === binding);
  if (!database) throw new Error(`wrangler.toml has no D1 binding ${binding}`);
  return {
    id: database.preview_database_id ?? database.database_id ?? binding,
    migrationsDir: path.resolve(projectDir, database.migrations_dir ?? "migrations"),
  };
}

/**
 * Runs `use(db)` on the local D1 database of `binding` under `persistTo`, in a Miniflare instance
 * set up as wrangler's `d1 execute --local` sets up its own, disposed of afterwards.
 */
export async function withLocalDatabase({ projectDir, persistTo, binding = "DB" }, use) {
  const { id } = localDatabase(projectDir, binding);
  const mf = new Miniflare(
    convertV4MiniflareOptions({ modules: true, script: "", resourcePersistencePath: path.join(persistTo, "v3"), d1Databases: { DATABASE: id } }),
  );
  try {
    return await use(await mf.getD1Database("DATABASE"));
  } finally {
    await mf.dispose();
  }
}

/**
 * Applies the pending migrations of binding `binding` (wrangler.toml in `projectDir`) to the local
 * state under `persistTo`. `migrationsDir` overrides the configured directory. Returns the names
 * applied, in order.
 */
export async function applyLocalMigrations({ projectDir, persistTo, binding = "DB", migrationsDir }) {
  const dir = migrationsDir ?? localDatabase(projectDir, binding).migrationsDir;
  return withLocalDatabase({ projectDir, persistTo, binding }, async (db) => {
    await db.prepare(CREATE_TABLE).run();
    const { results } = await db.prepare(`SELECT name FROM ${TABLE} ORDER BY id`).all();
    const applied = new Set(results.map((row) => row.name));
    const pending = migrationNames(dir).filter((name) => !applied.has(name));
    for (const name of pending) {
      const sql = `${readFileSync(path.join(dir, name), "utf8")}\nINSERT INTO ${TABLE} (name)\nvalues ('${name.replace(/'/g, "''")}');`;
      try {
        await db.batch(wrangler.unstable_splitSqlQuery(sql).map((statement) => db.prepare(statement)));
      } catch (err) {
        throw new Error(`migration ${name} failed (the ones before it stay applied): ${err?.cause?.message ?? err.message}`);
      }
    }
    return pending;
  });
}
