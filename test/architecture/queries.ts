/**
 * Whether a module's source builds database queries itself (DESIGN, Layout: src/db is "the only
 * drizzle user"): it imports drizzle-orm (any entry point), or it prepares a raw D1 statement.
 * Durable Objects' own SQLite storage (`ctx.storage.sql.exec`) is not D1 and stays in the object
 * (docs/architecture.md, Queries).
 */
const DRIZZLE_IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+["']drizzle-orm(?:\/[^"']*)?["']|import\(\s*["']drizzle-orm(?:\/[^"']*)?["']\s*\)/m;
const PREPARE = /\.\s*prepare\s*\(/;

export function buildsQueries(source: string): boolean {
  return DRIZZLE_IMPORT.test(source) || PREPARE.test(source);
}
