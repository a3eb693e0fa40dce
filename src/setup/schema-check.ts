import journal from "../../drizzle/meta/_journal.json";
import { appliedMigrations } from "../db/database-state";
import type { Bindings } from "../env";

/**
 * A Worker deployed before its D1 migrations were applied would fail on every query with a bare
 * 500. Before anything else, each isolate compares the migrations this build carries
 * (drizzle/meta/_journal.json, bundled) with those the database has applied (`d1_migrations`,
 * the table `wrangler d1 migrations apply` and the test pool's applyD1Migrations keep), and
 * refuses with a 503 naming the command to run while any is missing.
 *
 * Checked once per isolate: a database found current is remembered for the isolate's life (a
 * migration never un-applies); one found behind is looked at again after RECHECK_MS, so applying
 * the migrations is all it takes, without a redeploy, and a flood of requests costs one query
 * per isolate per interval.
 */
export const EXPECTED_MIGRATIONS: readonly string[] = journal.entries.map((e) => `${e.tag}.sql`);

/** The command README and docs/deploy.md give for applying the migrations. */
export const MIGRATE_COMMAND = "npx wrangler d1 migrations apply DB --remote --env production";
const LOCAL_MIGRATE_COMMAND = "npx wrangler d1 migrations apply DB --local";

const RECHECK_MS = 10_000;

export interface SchemaState {
  current: boolean;
  /** Migrations of this build the database has not applied, in order. */
  missing: string[];
}

const checked = new WeakMap<object, { at: number; state: Promise<SchemaState> }>();

async function readState(env: Bindings): Promise<SchemaState> {
  // D1 unreachable is an error of its own, rendered by the family's 500.
  const applied = await appliedMigrations(env.DB);
  const missing = EXPECTED_MIGRATIONS.filter((m) => !applied.has(m));
  return { current: missing.length === 0, missing };
}

/** The schema's state, from this isolate's memory when already known to be current. */
export function schemaState(env: Bindings, now = Date.now()): Promise<SchemaState> {
  const hit = checked.get(env);
  if (hit && (now - hit.at < RECHECK_MS || hit.state === CURRENT)) return hit.state;
  const state = readState(env).then((s) => {
    // Once current, always current: the same resolved promise for the isolate's life.
    if (s.current) checked.set(env, { at: now, state: CURRENT });
    return s;
  });
  // A failed read (D1 unreachable) is not remembered.
  state.catch(() => checked.delete(env));
  checked.set(env, { at: now, state });
  return state;
}
const CURRENT: Promise<SchemaState> = Promise.resolve({ current: true, missing: [] });

/** The operator's answer while the schema is behind: 503, what is missing and the command to run. */
export function schemaBehindResponse(state: SchemaState, local: boolean): Response {
  const command = local ? LOCAL_MIGRATE_COMMAND : MIGRATE_COMMAND;
  console.error(JSON.stringify({ msg: "schema behind its migrations", missing: state.missing, run: command }));
  const body = [
    "This service's database is behind its migrations, so it refuses to serve.",
    "",
    `Missing: ${state.missing.join(", ")}`,
    "",
    `Run: ${command}`,
    "",
    "See docs/deploy.md (Database).",
    "",
  ].join("\n");
  return new Response(body, {
    status: 503,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "30" },
  });
}
