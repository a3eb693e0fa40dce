import { sql } from "drizzle-orm";
import { isUniqueViolation } from "../db/errors";
import { getDb } from "../db/client";
import { users } from "../db/schema/accounts";
import { createUser } from "../db/users";
import { passwordWeakness } from "../crypto/password";
import type { Bindings } from "../env";

/**
 * GitLab's initial root password: when no user exists, the administrator `root` is created with
 * ROOT_PASSWORD. A weak password is refused (npm start refuses it before starting, too).
 */
export async function ensureRootUser(env: Bindings): Promise<void> {
  const password = env.ROOT_PASSWORD;
  if (!password) return;
  const db = getDb(env.DB);
  const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(users);
  if (n > 0) return;
  const weakness = passwordWeakness(password);
  if (weakness) {
    console.error(`ROOT_PASSWORD refused: ${weakness}. The administrator was not created.`);
    return;
  }
  try {
    await createUser(db, { username: "root", name: "Administrator", email: "admin@example.com", password, isAdmin: true });
  } catch (e) {
    // Two isolates starting at once: the other one created root first (username is unique).
    if (!isUniqueViolation(e)) throw e;
  }
}
