import { and, asc, desc, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import { cappedCount, keysetAfter, type Direction } from "./listing";
import { listPage, searchPage, type ListPage } from "./page";
import { hashPassword } from "../crypto/password";
import type { Db } from "./client";
import { claimNamespacePath, sameWithoutCase } from "./namespace-paths";
import { users } from "./schema/accounts";
import { groups } from "./schema/projects";
import { searchCondition, type SearchFilter, type Searchable } from "./search";

export type UserRow = typeof users.$inferSelect;

export interface NewUser {
  username: string;
  name: string;
  email: string;
  /**
   * The password, hashed here; or `passwordHash`, one hashPassword already made. PBKDF2 at 100,000
   * iterations is about 30 ms of CPU: test fixtures give many users one password and hash it once.
   */
  password: string;
  passwordHash?: string;
  isAdmin?: boolean;
}

/**
 * Creates a user. The username is a top-level namespace path (docs/security.md "Namespaces"):
 * reserved names, and names a user or group holds without regard to case, are refused with
 * NamespacePathError, as is an email another user holds without regard to case.
 */
export async function createUser(db: Db, input: NewUser): Promise<UserRow> {
  const passwordHash = input.passwordHash ?? (await hashPassword(input.password));
  return claimNamespacePath({ field: "username", value: input.username, topLevel: true }, async () => {
    const [row] = await db
      .insert(users)
      .values({
        username: input.username,
        name: input.name,
        email: input.email,
        passwordHash,
        isAdmin: input.isAdmin ?? false,
        createdAt: Date.now(),
      })
      .returning();
    return row;
  });
}

export async function findUserById(db: Db, id: number): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

/** By username, case-insensitively (GitLab's Sudo and ?username= lookups), through its unique index. */
export async function findUserByUsername(db: Db, username: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(sameWithoutCase(users.username, username)).limit(1);
  return row ?? null;
}

/**
 * GitLab signs in by username or email, case-insensitively. Two lookups, each through its unique
 * index on lower(...) (an OR of the two would scan the table), in one round trip; a username
 * cannot hold "@", so at most one of them finds a row.
 */
export async function findUserByLogin(db: Db, login: string): Promise<UserRow | null> {
  const [[byUsername], [byEmail]] = await db.batch([
    db.select().from(users).where(sameWithoutCase(users.username, login)).limit(1),
    db.select().from(users).where(sameWithoutCase(users.email, login)).limit(1),
  ]);
  return byUsername ?? byEmail ?? null;
}

const USER_SEARCH: Searchable = { fts: "users_fts", ftsColumns: ["username", "name"], id: users.id, exactColumns: [users.username, users.name] };

/**
 * GitLab's User.search: words in the username or the name; a leading "@" is dropped; an
 * administrator's query also matches a whole email (with_primary_or_secondary_email, not partial).
 */
function userSearch(query: string, emails: boolean): SearchFilter | null {
  const q = query.trim().replace(/^@/, "");
  const byName = searchCondition(USER_SEARCH, q);
  if (!byName || !emails) return byName;
  return {
    key: `${byName.key}+email`,
    cond: sql`(${byName.cond} OR lower(${users.email}) = ${sql.placeholder("searchEmail")})`,
    values: { ...byName.values, searchEmail: q.toLowerCase() },
  };
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
  /** GitLab's ?search=: words in username or name (src/db/search.ts), or a whole email for administrators. */
  search?: string;
  /** Whether ?search= also matches whole emails (GitLab: administrators only). */
  searchEmails?: boolean;
  /** GitLab's ?active= / ?blocked= filters. */
  state?: "active" | "blocked";
}

/**
 * A page of users in the asked order (each served by an index, docs/scaling.md), one row beyond it
 * to tell whether a next page exists, and the total up to COUNT_CAP for the pagination headers.
 */
export async function listUsers(db: Db, q: UserListQuery): Promise<ListPage<UserRow>> {
  const search = q.search ? userSearch(q.search, q.searchEmails ?? false) : null;
  // A search's statements hold their values in placeholders (the search's page is built once per
  // shape, src/db/shaped-statement.ts); the other listings are built per request with their values.
  const values: Record<string, unknown> = { ...search?.values };
  let key = `users|${q.orderBy}|${q.sort}|${search?.key}`;
  const value = <V extends string | number>(name: string, v: V): V | Placeholder => {
    if (!search) return v;
    key += `|${name}`;
    values[name] = v;
    return sql.placeholder(name);
  };
  const conds: SQL[] = [];
  if (q.username) conds.push(sql`lower(${users.username}) = ${value("username", q.username.toLowerCase())}`);
  if (search) conds.push(search.cond);
  if (q.state) conds.push(eq(users.state, value("state", q.state)));
  // A search reads its matches from the FTS index and sorts them (+col: not the order index's
  // walk, which a filter few rows pass would read to its end; docs/scaling.md, "Search").
  const col = search ? sql`+${USER_ORDER[q.orderBy]}` : USER_ORDER[q.orderBy];
  const filter = conds.length ? and(...conds) : undefined;
  const where = q.after ? and(filter, keysetAfter(col, users.id, q.sort, q.after.value, q.after.id)) : filter;
  const dir = q.sort === "asc" ? asc : desc;
  if (search && !q.after) return searchPage<UserRow>(db, users, users.id, filter!, [dir(col), dir(users.id)], q, { key, values });
  const page = db.select().from(users).where(where).orderBy(dir(col), dir(users.id)).limit(q.limit + 1).offset(q.offset);
  // A search's keyset page: its placeholders bound (no total, so no batch).
  if (search) return listPage<UserRow>(db, page.prepare().all(values), null, q.limit);
  // A keyset page has no total (GitLab sends none) and is one statement.
  return listPage<UserRow>(db, page, q.after ? null : db.select({ n: cappedCount(sql`${users}`, filter) }).from(sql`(SELECT 1)`), q.limit);
}

/**
 * Whether a username (a namespace path: a user's or a top-level group's) or an email is taken,
 * case-insensitively, so the users API can name both fields at once; createUser still decides.
 */
export async function takenFields(db: Db, username: string, email: string): Promise<{ username: boolean; email: boolean }> {
  const [byUsername, byGroup, byEmail] = await db.batch([
    db.select({ id: users.id }).from(users).where(sameWithoutCase(users.username, username)).limit(1),
    db.select({ id: groups.id }).from(groups).where(sameWithoutCase(groups.fullPath, username)).limit(1),
    db.select({ id: users.id }).from(users).where(sameWithoutCase(users.email, email)).limit(1),
  ]);
  return { username: byUsername.length > 0 || byGroup.length > 0, email: byEmail.length > 0 };
}

/** Whether any user exists (the first start creates root when none does). */
export async function anyUserExists(db: Db): Promise<boolean> {
  const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(users);
  return n > 0;
}

/** GitLab's user preference dpop_enabled (src/services/ssh-keys.ts setDpopEnabled). */
export async function setUserDpopEnabled(db: Db, userId: number, enabled: boolean): Promise<void> {
  await db.update(users).set({ dpopEnabled: enabled }).where(eq(users.id, userId));
}
