import { and, asc, desc, eq, gt, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { sha256Hex } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import { type Db } from "./client";
import { personalAccessTokens, users } from "./schema/accounts";
import { formatScopes } from "../domain/scopes";

export const PAT_PREFIX = "glpat-";
export type PersonalAccessTokenRow = typeof personalAccessTokens.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export async function createPersonalAccessToken(
  db: Db,
  input: { userId: number; name: string; scopes: string[]; expiresAt: string },
): Promise<{ token: string; row: PersonalAccessTokenRow }> {
  const token = randomToken(PAT_PREFIX);
  const [row] = await db
    .insert(personalAccessTokens)
    .values({
      userId: input.userId,
      name: input.name,
      tokenHash: await sha256Hex(token),
      scopes: formatScopes(input.scopes),
      expiresAt: input.expiresAt,
      createdAt: Date.now(),
    })
    .returning();
  return { token, row };
}

/** The token's row and its user, in one query (the token's object loads itself with it). */
export async function findPersonalAccessTokenByHash(
  db: Db,
  tokenHash: string,
): Promise<{ pat: PersonalAccessTokenRow; user: UserRow } | null> {
  const rows = await db
    .select({ pat: personalAccessTokens, user: users })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.tokenHash, tokenHash))
    .limit(1);
  return rows[0] ?? null;
}

export async function findPersonalAccessToken(db: Db, token: string): Promise<{ pat: PersonalAccessTokenRow; user: UserRow } | null> {
  return findPersonalAccessTokenByHash(db, await sha256Hex(token));
}

export interface PatFilter {
  userId?: number;
  /** Active: not revoked and not expired at `now`. */
  state?: "active" | "inactive";
  revoked?: boolean;
  /** Case-insensitive substring of the name. */
  search?: string;
  now?: number;
}

function patWhere(f: PatFilter): SQL | undefined {
  const t = personalAccessTokens;
  // isPatExpired in SQL: expired once the expiry day (YYYY-MM-DD) is before today (UTC).
  const today = new Date(f.now ?? Date.now()).toISOString().slice(0, 10);
  const active = and(eq(t.revoked, false), gte(t.expiresAt, today));
  return and(
    f.userId === undefined ? undefined : eq(t.userId, f.userId),
    f.state === undefined ? undefined : f.state === "active" ? active : or(eq(t.revoked, true), lt(t.expiresAt, today)),
    f.revoked === undefined ? undefined : eq(t.revoked, f.revoked),
    f.search ? sql`instr(lower(${t.name}), lower(${f.search})) > 0` : undefined,
  );
}

/** Newest first; with `page`, one page and the total in one round trip. */
export async function listPersonalAccessTokens(
  db: Db,
  filter: PatFilter,
  page?: { limit: number; offset: number },
): Promise<{ rows: PersonalAccessTokenRow[]; total: number }> {
  const where = patWhere(filter);
  const q = db.select().from(personalAccessTokens).where(where).orderBy(desc(personalAccessTokens.id));
  if (!page) {
    const rows = await q;
    return { rows, total: rows.length };
  }
  const [rows, [{ n }]] = await db.batch([
    q.limit(page.limit).offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(personalAccessTokens).where(where),
  ]);
  return { rows, total: n };
}

export async function getPersonalAccessToken(db: Db, id: number): Promise<PersonalAccessTokenRow | null> {
  const [row] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id)).limit(1);
  return row ?? null;
}

/**
 * Marks the token revoked in D1 and returns its hash (null when there is no such token of that
 * user). Only the credentials layer calls this: the token's object must hear of it too.
 */
export async function markPersonalAccessTokenRevoked(db: Db, id: number, userId?: number): Promise<string | null> {
  const cond =
    userId === undefined
      ? eq(personalAccessTokens.id, id)
      : and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.userId, userId));
  const [row] = await db.update(personalAccessTokens).set({ revoked: true }).where(cond).returning({ hash: personalAccessTokens.tokenHash });
  return row?.hash ?? null;
}

/** A page of the hashes of a user's tokens that may still authenticate (their objects keep a user copy): in hash order after `afterHash` (""), at most `limit` (a slice of a change's effects). */
export async function livePersonalAccessTokenHashesAfter(db: Db, userId: number, afterHash: string, limit: number, now = Date.now()): Promise<string[]> {
  const rows = await db
    .select({ hash: personalAccessTokens.tokenHash })
    .from(personalAccessTokens)
    .where(and(patWhere({ userId, state: "active", now }), gt(personalAccessTokens.tokenHash, afterHash)))
    .orderBy(asc(personalAccessTokens.tokenHash))
    .limit(limit);
  return rows.map((r) => r.hash);
}

export async function touchPersonalAccessToken(db: Db, id: number, at: number): Promise<void> {
  await db.update(personalAccessTokens).set({ lastUsedAt: at }).where(eq(personalAccessTokens.id, id));
}

/** Expiry is a date: the token is valid through the end of that UTC day (GitLab). */
export function isPatExpired(expiresAt: string, now: number): boolean {
  return Date.parse(`${expiresAt}T23:59:59.999Z`) < now;
}
