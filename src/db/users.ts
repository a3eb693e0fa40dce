import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { cappedCount, keysetAfter, totalOrNull, type Direction } from "./listing";
import { hashPassword } from "../crypto/password";
import type { Db } from "./client";
import { users } from "./schema/accounts";

export type UserRow = typeof users.$inferSelect;

export interface NewUser {
  username: string;
  name: string;
  email: string;
  password: string;
  isAdmin?: boolean;
}

export async function createUser(db: Db, input: NewUser): Promise<UserRow> {
  const [row] = await db
    .insert(users)
    .values({
      username: input.username,
      name: input.name,
      email: input.email,
      passwordHash: await hashPassword(input.password),
      isAdmin: input.isAdmin ?? false,
      createdAt: Date.now(),
    })
    .returning();
  return row;
}

export async function findUserById(db: Db, id: number): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

/** By username, case-insensitively (GitLab's Sudo and ?username= lookups). */
export async function findUserByUsername(db: Db, username: string): Promise<UserRow | null> {
  const [row] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = ${username.toLowerCase()}`)
    .limit(1);
  return row ?? null;
}

/** GitLab signs in by username or email, case-insensitively. */
export async function findUserByLogin(db: Db, login: string): Promise<UserRow | null> {
  const l = login.toLowerCase();
  const [row] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.username}) = ${l} OR lower(${users.email}) = ${l}`)
    .limit(1);
  return row ?? null;
}

const USER_ORDER = { id: users.id, name: users.name, username: users.username, created_at: users.createdAt } as const;
export type UserOrder = keyof typeof USER_ORDER;

export interface UserListQuery {
  offset: number;
  limit: number;
  orderBy: UserOrder;
  sort: Direction;
  /** Keyset: the rows after this (order value, id). */
  after?: { value: unknown; id: number };
  /** Exact username, case-insensitive (GitLab's ?username=). */
  username?: string;
  /** Substring of username, name or email (GitLab's ?search=). */
  search?: string;
  /** GitLab's ?active= / ?blocked= filters. */
  state?: "active" | "blocked";
}

/**
 * A page of users in the asked order (each served by an index, docs/scaling.md), one row beyond it
 * to tell whether a next page exists, and the total up to COUNT_CAP for the pagination headers.
 */
export async function listUsers(db: Db, q: UserListQuery): Promise<{ rows: UserRow[]; total: number | null; hasNext: boolean }> {
  const conds: SQL[] = [];
  if (q.username) conds.push(sql`lower(${users.username}) = ${q.username.toLowerCase()}`);
  if (q.search) {
    const like = `%${q.search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    conds.push(
      sql`(lower(${users.username}) LIKE ${like} ESCAPE '\\' OR lower(${users.name}) LIKE ${like} ESCAPE '\\' OR lower(${users.email}) LIKE ${like} ESCAPE '\\')`,
    );
  }
  if (q.state) conds.push(eq(users.state, q.state));
  const col = USER_ORDER[q.orderBy];
  const filter = conds.length ? and(...conds) : undefined;
  const where = q.after ? and(filter, keysetAfter(col, users.id, q.sort, q.after.value, q.after.id)) : filter;
  const dir = q.sort === "asc" ? asc : desc;
  const page = db.select().from(users).where(where).orderBy(dir(col), dir(users.id)).limit(q.limit + 1).offset(q.offset);
  const [rows, [{ n }]] = q.after
    ? [await page, [{ n: -1 }]]
    : await db.batch([page, db.select({ n: cappedCount(sql`${users}`, filter) }).from(sql`(SELECT 1)`)]);
  return { rows: rows.slice(0, q.limit), total: q.after ? null : totalOrNull(n), hasNext: rows.length > q.limit };
}

/** Whether a username or email is taken, case-insensitively (SQLite's UNIQUE is case-sensitive). */
export async function takenFields(db: Db, username: string, email: string): Promise<{ username: boolean; email: boolean }> {
  const rows = await db
    .select({ username: users.username, email: users.email })
    .from(users)
    .where(sql`lower(${users.username}) = ${username.toLowerCase()} OR lower(${users.email}) = ${email.toLowerCase()}`);
  return {
    username: rows.some((r) => r.username.toLowerCase() === username.toLowerCase()),
    email: rows.some((r) => r.email.toLowerCase() === email.toLowerCase()),
  };
}
