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

/** EXPLAIN QUERY PLAN as its tree: each line's id and its parent's (0 at the top). */
export async function queryPlanTree(s: RecordedStatement): Promise<{ id: number; parent: number; detail: string }[]> {
  const res = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
    .bind(...s.params)
    .all<{ id: number; parent: number; detail: string }>();
  return res.results;
}

/** The plan lines below the statement's scalar subqueries (a listing's total is one of them). */
export async function scalarSubqueryPlans(s: RecordedStatement): Promise<string[]> {
  const tree = await queryPlanTree(s);
  const inside = new Set(tree.filter((n) => /^SCALAR SUBQUERY/.test(n.detail)).map((n) => n.id));
  for (const n of tree) if (inside.has(n.parent)) inside.add(n.id);
  return tree.filter((n) => inside.has(n.id)).map((n) => n.detail);
}
