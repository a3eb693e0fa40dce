import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { selectInBatches } from "./batches";
import type { Db } from "./client";
import { pluginCallResults, pluginFiles, plugins } from "./schema/plugins";

export type PluginRow = typeof plugins.$inferSelect;
export type PluginFileRow = typeof pluginFiles.$inferSelect;

/** How long a Call's result answers a repeated UUID (DESIGN: 10 minutes). */
export const IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;

export async function findPluginsByName(db: Db, names: string[]): Promise<PluginRow[]> {
  if (names.length === 0) return [];
  return selectInBatches(names, (slice) => db.select().from(plugins).where(inArray(plugins.name, slice)));
}

/** One page of plugins (all of them for an administrator, else the owner's) and the total. */
export async function listPlugins(
  db: Db,
  ownerId: number | null,
  page: { limit: number; offset: number },
): Promise<{ rows: PluginRow[]; total: number }> {
  const where = ownerId === null ? undefined : eq(plugins.ownerId, ownerId);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(plugins).where(where).orderBy(plugins.id).limit(page.limit).offset(page.offset),
    db.select({ total: sql<number>`count(*)` }).from(plugins).where(where),
  ]);
  return { rows, total };
}

/** Returns null when the name is taken. */
export async function insertPlugin(
  db: Db,
  input: { name: string; ownerId: number; endpoint: string; description: string },
): Promise<PluginRow | null> {
  const rows = await db
    .insert(plugins)
    .values({ ...input, createdAt: Date.now() })
    .onConflictDoNothing({ target: plugins.name })
    .returning();
  return rows[0] ?? null;
}

export type Claim =
  | { kind: "claimed" }
  | { kind: "done"; res: string; requestHash: string }
  | { kind: "in_flight"; requestHash: string };

/**
 * Claims (caller, UUID) for a Call. One conditional statement, so two concurrent calls with the
 * same UUID cannot both run: the row is inserted, or taken over when older than the window.
 */
export async function claimCall(db: Db, userId: number, uuid: string, requestHash: string, now: number): Promise<Claim> {
  const claimed = await db
    .insert(pluginCallResults)
    .values({ userId, uuid, requestHash, res: null, createdAt: now })
    .onConflictDoUpdate({
      target: [pluginCallResults.userId, pluginCallResults.uuid],
      set: { requestHash, res: null, createdAt: now },
      setWhere: lt(pluginCallResults.createdAt, now - IDEMPOTENCY_WINDOW_MS),
    })
    .returning({ createdAt: pluginCallResults.createdAt });
  if (claimed.length > 0 && claimed[0].createdAt === now) return { kind: "claimed" };
  const [row] = await db
    .select()
    .from(pluginCallResults)
    .where(and(eq(pluginCallResults.userId, userId), eq(pluginCallResults.uuid, uuid)));
  if (!row) return { kind: "claimed" };
  return row.res === null ? { kind: "in_flight", requestHash: row.requestHash } : { kind: "done", res: row.res, requestHash: row.requestHash };
}

export async function storeCallResult(db: Db, userId: number, uuid: string, res: string): Promise<void> {
  await db
    .update(pluginCallResults)
    .set({ res })
    .where(and(eq(pluginCallResults.userId, userId), eq(pluginCallResults.uuid, uuid)));
}

/** A failed call frees its UUID, so the caller may retry it. */
export async function releaseCall(db: Db, userId: number, uuid: string): Promise<void> {
  await db.delete(pluginCallResults).where(and(eq(pluginCallResults.userId, userId), eq(pluginCallResults.uuid, uuid)));
}

/** Expired results are swept opportunistically (a waitUntil after a claim). */
export async function sweepCallResults(db: Db, now: number): Promise<void> {
  await db.delete(pluginCallResults).where(lt(pluginCallResults.createdAt, sql`${now - IDEMPOTENCY_WINDOW_MS}`));
}

export async function insertFile(db: Db, row: PluginFileRow): Promise<void> {
  await db.insert(pluginFiles).values(row);
}

export async function findFile(db: Db, id: string): Promise<PluginFileRow | null> {
  const [row] = await db.select().from(pluginFiles).where(eq(pluginFiles.id, id));
  return row ?? null;
}
