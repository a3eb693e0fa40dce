import { eq, sql } from "drizzle-orm";
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
