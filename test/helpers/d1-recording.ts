import { env } from "cloudflare:test";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";

export interface RecordedStatement {
  sql: string;
  params: unknown[];
}

/**
 * An env whose D1 binding is the real one behind a recording wrapper: every prepared statement's
 * SQL and bound values are kept, so a test can ask SQLite how it runs exactly what a request ran
 * (EXPLAIN QUERY PLAN). Every statement still runs on the real database; nothing is mocked.
 */
export function recordingEnv(version = "16.0") {
  const statements: RecordedStatement[] = [];
  const db = env.DB;
  const wrap = (s: D1PreparedStatement, rec: RecordedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (prop === "bind") {
          return (...args: unknown[]) => {
            rec.params = args;
            return wrap((v as (...a: unknown[]) => D1PreparedStatement).apply(target, args), rec);
          };
        }
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const proxied = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") {
        return (q: string) => {
          const rec = { sql: q, params: [] };
          statements.push(rec);
          return wrap(target.prepare(q), rec);
        };
      }
      if (prop === "batch") return (stmts: D1PreparedStatement[]) => target.batch(stmts);
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const e: Bindings = withVars({ ...env, DB: proxied } as Bindings, { SERVICE_VERSION: version });
  return { env: e, statements };
}

/** SQLite's plan of one recorded statement, one line per step ("SCAN projects", "SEARCH ..."). */
export async function queryPlan(s: RecordedStatement): Promise<string[]> {
  const res = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
    .bind(...s.params)
    .all<{ detail: string }>();
  return res.results.map((r) => r.detail);
}
