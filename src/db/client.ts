import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as accounts from "./schema/accounts";
import * as applications from "./schema/applications";
import * as projects from "./schema/projects";

export const schema = { ...accounts, ...applications, ...projects };
export type Db = DrizzleD1Database<typeof schema>;

const cache = new WeakMap<D1Database, Db>();

/** One drizzle instance per D1 binding. Tables not listed in `schema` are still usable by import. */
export function getDb(d1: D1Database): Db {
  let db = cache.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    cache.set(d1, db);
  }
  return db;
}

/** The D1 binding behind a drizzle instance: a batch mixing drizzle's statements with ones built from declarations (src/db/project-changes.ts). */
export function d1Of(db: Db): D1Database {
  return (db as unknown as { $client: D1Database }).$client;
}
