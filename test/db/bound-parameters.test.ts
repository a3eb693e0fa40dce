import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { D1_MAX_BOUND_PARAMETERS } from "../../src/db/batches";
import { getDb } from "../../src/db/client";
import { users } from "../../src/db/schema/accounts";

/**
 * DESIGN "Changes that finish", bounded statements: D1 binds at most 100 parameters a statement.
 * Miniflare's D1 binds any number, so getDb enforces the limit itself: a statement that would fail
 * on Cloudflare fails in every local test and under `npm start` too.
 */
/** The error a statement failed with, past drizzle's wrapper ("Failed query: ..."). */
async function failureOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (e) {
    const err = e as Error & { cause?: Error };
    return `${err.message} | ${err.cause?.message ?? ""}`;
  }
  return "no failure";
}

const placeholders = (n: number) =>
  sql.join(
    Array.from({ length: n }, (_, i) => sql`${i}`),
    sql`, `,
  );

describe("D1's limit of 100 bound parameters a statement, enforced locally (DESIGN, Changes that finish)", () => {
  it("a statement binding exactly 100 parameters runs", async () => {
    const rows = await getDb(env.DB).values<[number]>(sql`SELECT count(*) FROM (SELECT 1 WHERE 1 IN (${placeholders(D1_MAX_BOUND_PARAMETERS)}))`);
    expect(rows[0][0]).toBe(1);
  });

  it("a statement binding 101 parameters fails before it reaches D1, naming the statement", async () => {
    const failure = await failureOf(getDb(env.DB).values(sql`SELECT 1 WHERE 1 IN (${placeholders(D1_MAX_BOUND_PARAMETERS + 1)})`));
    expect(failure).toMatch(/at most 100 parameters a statement; 101 for: SELECT 1 WHERE 1 IN \(\?/);
  });

  it("a batch is held to it statement by statement", async () => {
    const db = getDb(env.DB);
    const small = db.select({ n: sql<number>`1` }).from(users).where(sql`${users.id} IN (${placeholders(3)})`);
    const large = db.select({ n: sql<number>`1` }).from(users).where(sql`${users.id} IN (${placeholders(150)})`);
    expect(await failureOf(db.batch([small, large]))).toMatch(/at most 100 parameters a statement; 150 for/);
  });
});
