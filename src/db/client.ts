import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as accounts from "./schema/accounts";
import * as applications from "./schema/applications";
import * as projects from "./schema/projects";
import { D1_MAX_BOUND_PARAMETERS } from "./batches";

export const schema = { ...accounts, ...applications, ...projects };
export type Db = DrizzleD1Database<typeof schema>;

const cache = new WeakMap<D1Database, Db>();

/** One drizzle instance per D1 binding. Tables not listed in `schema` are still usable by import. */
export function getDb(d1: D1Database): Db {
  let db = cache.get(d1);
  if (!db) {
    db = drizzle(boundedParameters(d1), { schema });
    cache.set(d1, db);
  }
  return db;
}

/**
 * The binding with D1's limit on bound parameters enforced at `bind`, as deployed D1 enforces it:
 * Miniflare's D1 binds any number, so a statement that fails on Cloudflare ("too many SQL
 * variables") passed every local test and `npm start`. Here it fails the same way everywhere, with
 * the statement named. Everything but `prepare` is the binding's own.
 */
function boundedParameters(d1: D1Database): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== "prepare") return typeof value === "function" ? value.bind(target) : value;
      // The statement itself is left as the binding made it; what `bind` returns is the binding's own.
      return (query: string) =>
        new Proxy(target.prepare(query), {
          get(statement, key) {
            if (key === "bind") {
              return (...values: unknown[]) => {
                if (values.length > D1_MAX_BOUND_PARAMETERS) {
                  throw new Error(`D1 binds at most ${D1_MAX_BOUND_PARAMETERS} parameters a statement; ${values.length} for: ${query.slice(0, 200)}`);
                }
                return statement.bind(...values);
              };
            }
            const member: unknown = Reflect.get(statement, key, statement);
            return typeof member === "function" ? member.bind(statement) : member;
          },
        });
    },
  });
}

/** The D1 binding behind a drizzle instance: a batch mixing drizzle's statements with ones built from declarations (src/db/project-changes.ts). */
export function d1Of(db: Db): D1Database {
  return (db as unknown as { $client: D1Database }).$client;
}
