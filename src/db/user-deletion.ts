import { and, asc, count, eq, gt, sql, type SQL } from "drizzle-orm";
import { randomToken } from "../crypto/random";
import type { Db } from "./client";
import { OWNERSHIP } from "./ownership";
import { applications } from "./schema/applications";
import { users } from "./schema/accounts";
import { projects } from "./schema/projects";
import { createUser, type UserRow } from "./users";

/**
 * The rows of a user's deletion (GitLab's Users::DestroyService; docs/operations.md, "Delete a
 * user"). What goes and how is read from the user entries of src/db/ownership.ts, so a table
 * declared there is handled here without a second list. Every statement binds at most two values.
 */

/** GitLab's "Ghost User": the author of what deleted users contributed. Known by this address. */
export const GHOST_EMAIL = "ghost@ghost.invalid";
export const GHOST_USERNAME = "ghost";

export async function findGhostUser(db: Db): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.email, GHOST_EMAIL)).limit(1);
  return row ?? null;
}

/**
 * The ghost user, created on first use: blocked (no sign-in, no API), with a random password nobody
 * knows. Two deletions racing create one (the email is unique); the loser reads the winner's row.
 */
export async function ghostUser(db: Db): Promise<UserRow> {
  const found = await findGhostUser(db);
  if (found) return found;
  // A person may hold `ghost` already: GitLab then takes ghost1, ghost2, … (bounded here).
  let failure: unknown = null;
  for (let n = 0; n < 10 && !(await findGhostUser(db)); n++) {
    try {
      await createUser(db, { username: n ? `${GHOST_USERNAME}${n}` : GHOST_USERNAME, name: "Ghost User", email: GHOST_EMAIL, password: randomToken("ghost-") });
    } catch (e) {
      failure = e;
    }
  }
  const ghost = await findGhostUser(db);
  if (!ghost) throw failure;
  await db.update(users).set({ state: "blocked" }).where(eq(users.id, ghost.id));
  return { ...ghost, state: "blocked" };
}

/**
 * The guard of a deletion's intent (src/db/pending-changes.ts): the user is blocked at once (no new
 * credential while the effects run), and the intent is written only when the user row exists.
 */
export function userDeletionGuard(db: Db, userId: number) {
  return db.update(users).set({ state: "blocked" }).where(eq(users.id, userId));
}

/** Administrators besides the one given (GitLab refuses to delete the last administrator). */
export async function otherAdministrators(db: Db, userId: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(and(eq(users.isAdmin, true), sql`${users.id} != ${userId}`, sql`${users.email} != ${GHOST_EMAIL}`));
  return row.n;
}

/** A page of the ids of the projects of the user's personal namespace, in id order after `afterId` (each deleted by its own change). */
export async function personalProjectIdsOf(db: Db, userId: number, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.namespaceKind, "user"), eq(projects.namespaceId, userId), gt(projects.id, afterId)))
    .orderBy(asc(projects.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The OAuth applications the user owns, in one statement (their grants revoked first); answers how many. */
export async function deleteApplicationsOwnedBy(db: Db, userId: number): Promise<number> {
  return (await db.delete(applications).where(eq(applications.ownerId, userId)).returning({ id: applications.id })).length;
}

const ident = (name: string) => sql.raw(`"${name.replace(/"/g, "")}"`);
const userEntries = (how: "contribution" | "reassigned") => OWNERSHIP.user.tables.filter((t) => t.removal.how === how);

/**
 * What the user authored and references to them, as ownership.ts declares: `reassigned` columns
 * always point at the ghost; `contribution` rows move to the ghost, or with `hardDelete` are deleted
 * (a deleted pipeline's findings and package links first). Each statement is idempotent (it moves
 * or deletes what still names the user), so a run cut short is finished by the next.
 */
/** How many statements `removeContributions` runs at most (its subrequests: one each). */
export const contributionStatements = userEntries("reassigned").length + 3 * userEntries("contribution").length;

export async function removeContributions(db: Db, userId: number, o: { hardDelete: boolean; ghostId: number }): Promise<void> {
  const statements: SQL[] = [];
  for (const t of userEntries("reassigned")) statements.push(sql`UPDATE ${ident(t.table)} SET ${ident(t.column)} = ${o.ghostId} WHERE ${ident(t.column)} = ${userId}`);
  for (const t of userEntries("contribution")) {
    if (!o.hardDelete) {
      statements.push(sql`UPDATE ${ident(t.table)} SET ${ident(t.column)} = ${o.ghostId} WHERE ${ident(t.column)} = ${userId}`);
      continue;
    }
    if (t.table === "ci_pipelines") {
      statements.push(sql`DELETE FROM security_report_findings WHERE pipeline_id IN (SELECT id FROM ci_pipelines WHERE user_id = ${userId})`);
      statements.push(sql`DELETE FROM package_pipelines WHERE pipeline_id IN (SELECT id FROM ci_pipelines WHERE user_id = ${userId})`);
    }
    // A merge request's status check responses go with it (ON DELETE CASCADE).
    statements.push(sql`DELETE FROM ${ident(t.table)} WHERE ${ident(t.column)} = ${userId}`);
  }
  for (const statement of statements) await db.run(statement);
}

/** The user row, last: its cascades take sessions, tokens' rows, memberships and the rest declared `cascade`. */
export async function deleteUserRow(db: Db, userId: number): Promise<boolean> {
  return (await db.delete(users).where(eq(users.id, userId)).returning({ id: users.id })).length > 0;
}
