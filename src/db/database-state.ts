/**
 * What the database says about itself: whether it answers, and which migrations it has applied.
 * The readiness probe and the schema check (src/setup/) decide what that means for serving.
 */

/** True when the database answers a trivial query. */
export async function databaseAnswers(d1: D1Database): Promise<boolean> {
  return Boolean(await d1.prepare("SELECT 1").first());
}

/**
 * The names of the migrations applied (`d1_migrations`, the table `wrangler d1 migrations apply`
 * and the test pool's applyD1Migrations keep). No such table: no migration was ever applied.
 * Anything else (D1 unreachable) is thrown.
 */
export async function appliedMigrations(d1: D1Database): Promise<Set<string>> {
  try {
    const rows = await d1.prepare("SELECT name FROM d1_migrations").all<{ name: string }>();
    return new Set(rows.results.map((r) => r.name));
  } catch (err) {
    if (!(err instanceof Error) || !/no such table/i.test(err.message)) throw err;
    return new Set();
  }
}
