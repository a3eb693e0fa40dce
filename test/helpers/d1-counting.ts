import { env } from "cloudflare:test";
import { withVars } from "../../src/config";
import type { Bindings } from "../../src/env";

/**
 * An env whose D1 binding is the real one behind a counting wrapper: counts.statements is every
 * prepared statement, counts.roundTrips every call that goes to the database (a batch is one).
 * For tests of how many queries a request makes (never a mock: every statement still runs).
 */
export function countingEnv(version = "16.0") {
  const counts = { statements: 0, roundTrips: 0 };
  const db = env.DB;
  const wrapStatement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => wrapStatement((v as (...a: unknown[]) => D1PreparedStatement).apply(target, args));
        if (["all", "run", "first", "raw"].includes(String(prop))) {
          return (...args: unknown[]) => {
            counts.roundTrips += 1;
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const proxied = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") {
        return (q: string) => {
          counts.statements += 1;
          return wrapStatement(target.prepare(q));
        };
      }
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          counts.roundTrips += 1;
          // D1 needs its own statement objects: unwrap by re-preparing is not possible, so the
          // proxies forward to their targets (Proxy of a native object is accepted by batch).
          return target.batch(stmts);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const e: Bindings = withVars({ ...env, DB: proxied } as Bindings, { SERVICE_VERSION: version });
  return { env: e, counts };
}

