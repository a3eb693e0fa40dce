import { and, asc, desc, eq, getTableColumns, gt, sql, type SQL } from "drizzle-orm";
import { sha256Hex } from "../crypto/hash";
import { randomToken } from "../crypto/random";
import type { Db } from "./client";
import { runnerProjects, runnerRegistrationTokens, runners } from "./schema/runners";
import { projects } from "./schema/projects";
import { normaliseTags } from "../domain/runner-settings";
import { cappedCount, inIdList } from "./listing";
import { pageCarryingTotal } from "./page";
import { rawRows, rowReader, shaped, unshaped } from "./shaped-statement";
import { AccessLevel } from "../domain/access";
import { groupAccessLevel, projectsWithAccessLevels } from "./projects";

export type RunnerRow = typeof runners.$inferSelect;
export const RUNNER_TOKEN_PREFIX = "glrt-";
export const REGISTRATION_TOKEN_PREFIX = "GR1348941";

export interface NewRunner {
  runnerType: "instance_type" | "group_type" | "project_type";
  groupId?: number | null;
  projectId?: number | null;
  description?: string;
  paused?: boolean;
  locked?: boolean;
  runUntagged?: boolean;
  tagList?: string[];
  accessLevel?: string;
  maximumTimeout?: number | null;
  maintenanceNote?: string | null;
  creatorId?: number | null;
  createdAt?: number;
  contactedAt?: number | null;
}

/** Creates a runner; returns its authentication token once (only its SHA-256 is stored). */
export async function createRunner(db: Db, input: NewRunner): Promise<{ runner: RunnerRow; token: string }> {
  const token = randomToken(RUNNER_TOKEN_PREFIX);
  const now = input.createdAt ?? Date.now();
  const [runner] = await db
    .insert(runners)
    .values({
      runnerType: input.runnerType,
      groupId: input.groupId ?? null,
      description: input.description ?? "",
      tokenHash: await sha256Hex(token),
      paused: input.paused ?? false,
      locked: input.locked ?? false,
      runUntagged: input.runUntagged ?? true,
      tagList: normaliseTags(input.tagList),
      accessLevel: input.accessLevel ?? "not_protected",
      maximumTimeout: input.maximumTimeout ?? null,
      maintenanceNote: input.maintenanceNote ?? null,
      creatorId: input.creatorId ?? null,
      contactedAt: input.contactedAt ?? null,
      createdAt: now,
    })
    .returning();
  if (input.projectId) await db.insert(runnerProjects).values({ runnerId: runner.id, projectId: input.projectId, createdAt: now });
  return { runner, token };
}

export async function findRunner(db: Db, id: number): Promise<RunnerRow | null> {
  const [row] = await db.select().from(runners).where(eq(runners.id, id)).limit(1);
  return row ?? null;
}

export async function findRunnerByToken(db: Db, token: string): Promise<RunnerRow | null> {
  const [row] = await db.select().from(runners).where(eq(runners.tokenHash, await sha256Hex(token))).limit(1);
  return row ?? null;
}

/** Records a runner's contact (POST /runners/verify; job requests would do the same). */
export async function recordContact(db: Db, id: number, at: number, ipAddress: string | null): Promise<void> {
  await db.update(runners).set({ contactedAt: at, ipAddress }).where(eq(runners.id, id));
}

export async function updateRunner(db: Db, id: number, patch: Partial<RunnerRow>): Promise<RunnerRow> {
  const [row] = await db.update(runners).set(patch).where(eq(runners.id, id)).returning();
  return row;
}

export async function deleteRunner(db: Db, id: number): Promise<void> {
  await db.batch([db.delete(runnerProjects).where(eq(runnerProjects.runnerId, id)), db.delete(runners).where(eq(runners.id, id))]);
}

export async function runnerProjectIds(db: Db, runnerId: number): Promise<number[]> {
  const rows = await db.select({ id: runnerProjects.projectId }).from(runnerProjects).where(eq(runnerProjects.runnerId, runnerId)).orderBy(asc(runnerProjects.createdAt));
  return rows.map((r) => r.id);
}

export async function runnerProjectsOf(db: Db, runnerId: number) {
  return db
    .select({ id: projects.id, name: projects.name, path: projects.path, pathWithNamespace: projects.pathWithNamespace })
    .from(runnerProjects)
    .innerJoin(projects, eq(projects.id, runnerProjects.projectId))
    .where(eq(runnerProjects.runnerId, runnerId))
    .orderBy(asc(runnerProjects.createdAt));
}

/** Enables a runner on a project; false when it already was. */
export async function enableRunner(db: Db, runnerId: number, projectId: number): Promise<boolean> {
  const res = await db.insert(runnerProjects).values({ runnerId, projectId, createdAt: Date.now() }).onConflictDoNothing().returning();
  return res.length > 0;
}

export async function disableRunner(db: Db, runnerId: number, projectId: number): Promise<boolean> {
  const res = await db
    .delete(runnerProjects)
    .where(and(eq(runnerProjects.runnerId, runnerId), eq(runnerProjects.projectId, projectId)))
    .returning();
  return res.length > 0;
}

export interface RunnerListOptions {
  where: SQL | undefined;
  orderBy: "id" | "created_at" | "contacted_at";
  sort: "asc" | "desc";
  limit: number;
  offset: number;
}

const ORDER = { id: runners.id, created_at: runners.createdAt, contacted_at: runners.contactedAt } as const;

/** The page's rows and one more (whether a next page exists), in the order an index (order column, id) serves. */
function pageQuery(db: Db, o: RunnerListOptions) {
  const dir = o.sort === "asc" ? asc : desc;
  return db.select().from(runners).where(o.where).orderBy(dir(ORDER[o.orderBy]), dir(runners.id)).limit(o.limit + 1).offset(o.offset);
}

const trimmed = (rows: RunnerRow[], limit: number) => ({ rows: rows.slice(0, limit), hasNext: rows.length > limit });

/**
 * REST's offset page and its total in one statement (pageCarryingTotal). The count reads no further
 * than COUNT_CAP + 1 rows: above it GitLab sends no X-Total (total is null then).
 */
export async function listRunners(db: Db, o: RunnerListOptions): Promise<{ rows: RunnerRow[]; total: number | null; hasNext: boolean }> {
  const dir = o.sort === "asc" ? asc : desc;
  const count = cappedCount(sql`${runners}`, o.where);
  const query = () =>
    db
      .select({ ...getTableColumns(runners), listTotal: count })
      .from(runners)
      .where(o.where)
      .orderBy(dir(ORDER[o.orderBy]), dir(runners.id))
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"));
  // Every runner (GET /runners/all without filters) is one shape a sort, built once
  // (src/db/shaped-statement.ts); a scope or a filter carries its values in its SQL, built per request.
  const shape = o.where === undefined ? `runners|all|${o.orderBy}|${o.sort}` : null;
  const values = { limit: o.limit + 1, offset: o.offset };
  const runner = rowReader<RunnerRow>(runners);
  const found = (await rawRows<unknown[]>(db, shape ? shaped(shape, query) : unshaped(query()), values)).map((r) => ({
    ...runner.read(r),
    listTotal: r[runner.width] as number,
  }));
  return pageCarryingTotal(found, o, async () => (await db.select({ n: count }).from(sql`(SELECT 1)`))[0].n);
}

/** A page without a count: GraphQL counts only when the query asks for `count` (countRunners). */
export async function runnerPage(db: Db, o: RunnerListOptions): Promise<{ rows: RunnerRow[]; hasNext: boolean }> {
  return trimmed(await pageQuery(db, o), o.limit);
}

/** The exact number of runners a listing matches (GraphQL's CiRunnerConnection.count, as GitLab's). */
export async function countRunners(db: Db, where: SQL | undefined): Promise<number> {
  const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(runners).where(where);
  return Number(n);
}

/** Keyset page by ascending id: one statement, one extra row to know whether a next page exists. */
export async function listRunnersKeyset(db: Db, where: SQL | undefined, idAfter: number, limit: number) {
  const rows = await db
    .select()
    .from(runners)
    .where(and(where, gt(runners.id, idAfter)))
    .orderBy(asc(runners.id))
    .limit(limit + 1);
  return trimmed(rows, limit);
}

/** How many projects each project runner of a page is enabled on, in one statement (GraphQL projectCount). */
export async function projectCounts(db: Db, runnerIds: readonly number[]): Promise<Map<number, number>> {
  if (!runnerIds.length) return new Map();
  const rows = await db
    .select({ id: runnerProjects.runnerId, n: sql<number>`count(*)` })
    .from(runnerProjects)
    .where(inIdList(runnerProjects.runnerId, runnerIds))
    .groupBy(runnerProjects.runnerId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

// Legacy registration tokens (POST /runners).

export type RegistrationScope = { scopeType: "instance" | "group" | "project"; scopeId: number };

/** Replaces the scope's registration token and returns the new one (shown once). */
export async function resetRegistrationToken(db: Db, scope: RegistrationScope): Promise<string> {
  const token = randomToken(REGISTRATION_TOKEN_PREFIX);
  const tokenHash = await sha256Hex(token);
  await db
    .insert(runnerRegistrationTokens)
    .values({ ...scope, tokenHash, createdAt: Date.now() })
    .onConflictDoUpdate({ target: [runnerRegistrationTokens.scopeType, runnerRegistrationTokens.scopeId], set: { tokenHash, createdAt: Date.now() } });
  return token;
}

export async function findRegistrationScope(db: Db, token: string): Promise<RegistrationScope | null> {
  const [row] = await db
    .select({ scopeType: runnerRegistrationTokens.scopeType, scopeId: runnerRegistrationTokens.scopeId })
    .from(runnerRegistrationTokens)
    .where(eq(runnerRegistrationTokens.tokenHash, await sha256Hex(token)))
    .limit(1);
  return row ? (row as RegistrationScope) : null;
}

/**
 * The caller's role on a runner, the one rule REST and GraphQL share (GitLab): the access level on
 * a group runner's group, or the highest on any of a project runner's projects (one statement);
 * instance runners belong to no one below the administrators, whom the caller decides.
 */
export async function runnerAccessLevel(db: Db, runner: RunnerRow, userId: number): Promise<number> {
  if (runner.runnerType === "group_type") return runner.groupId === null ? 0 : groupAccessLevel(db, runner.groupId, userId);
  if (runner.runnerType !== "project_type") return 0;
  const ids = sql`(SELECT ${runnerProjects.projectId} FROM ${runnerProjects} WHERE ${runnerProjects.runnerId} = ${runner.id})`;
  const rows = await projectsWithAccessLevels(db, ids, userId);
  return Math.max(0, ...rows.map((r) => r.level));
}

/**
 * GitLab's runner policy, one rule for REST and GraphQL: reading a group or project runner takes a
 * maintainer of its group or of one of its projects; managing a group runner takes the group's owner.
 */
export const runnerRequiredLevel = (runner: RunnerRow, access: "read" | "manage"): number =>
  access === "manage" && runner.runnerType === "group_type" ? AccessLevel.OWNER : AccessLevel.MAINTAINER;
