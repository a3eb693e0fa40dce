import { configRefused, getConfig } from "../config";
import { isUniqueViolation } from "../db/errors";
import { getDb } from "../db/client";
import { anyUserExists, createUser } from "../db/users";
import { passwordWeakness } from "../crypto/password";
import type { Bindings } from "../env";

/**
 * GitLab's initial root password: when no user exists, the administrator `root` is created with
 * ROOT_PASSWORD. A weak password is refused (npm start refuses it before starting, too). Outside
 * local development a first start without a usable ROOT_PASSWORD refuses to serve: a service
 * nobody can administer is not running.
 */
export async function ensureRootUser(env: Bindings): Promise<void> {
  const password = env.ROOT_PASSWORD;
  const local = getConfig(env).localDev;
  if (!password && local) return;
  const db = getDb(env.DB);
  if (await anyUserExists(db)) return;
  if (!password) throw configRefused(["ROOT_PASSWORD is not set and no user exists yet: set it (wrangler secret put ROOT_PASSWORD) to create the administrator root"]);
  const weakness = passwordWeakness(password);
  if (weakness) {
    if (!local) throw configRefused([`ROOT_PASSWORD is refused: ${weakness}`]);
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
