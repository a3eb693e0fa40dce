import { passwordWeakness } from "../../crypto/password";
import { getDb } from "../../db/client";
import { createUser, takenFields, type UserRow } from "../../db/users";
import type { Bindings } from "../../env";
import { isValidUsername } from "../../domain/namespace-paths";

/**
 * An administrator creates a user (GitLab's POST /users, and the admin area's New user page):
 * GitLab's username rule, the password strength rule, and username and email free without regard
 * to case. Refusals name their field, as GitLab's validation messages do; `conflict` marks a taken
 * username or email (REST answers those 409, the rest 400). Two creations racing: D1 decides, and
 * the loser gets NamespacePathError from createUser.
 */


export interface NewUserInput {
  username: string;
  name: string;
  email: string;
  password: string;
  admin: boolean;
}

export type UserCreation = { ok: true; user: UserRow } | { ok: false; conflict: boolean; errors: Record<string, string[]> };

export async function createUserAccount(env: Bindings, input: NewUserInput): Promise<UserCreation> {
  if (!isValidUsername(input.username)) return { ok: false, conflict: false, errors: { username: ["is invalid"] } };
  const weakness = passwordWeakness(input.password);
  if (weakness) return { ok: false, conflict: false, errors: { password: [weakness.replace(/^Password /, "")] } };
  const db = getDb(env.DB);
  const taken = await takenFields(db, input.username, input.email);
  if (taken.username || taken.email) {
    return { ok: false, conflict: true, errors: { ...(taken.username ? { username: ["has already been taken"] } : {}), ...(taken.email ? { email: ["has already been taken"] } : {}) } };
  }
  const user = await createUser(db, { username: input.username, name: input.name, email: input.email, password: input.password, isAdmin: input.admin });
  return { ok: true, user };
}
