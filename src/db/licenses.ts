import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { managedLicenses } from "./schema/licenses";

export type ManagedLicenseRow = typeof managedLicenses.$inferSelect;

export async function createManagedLicense(db: Db, projectId: number, name: string, approvalStatus: string): Promise<ManagedLicenseRow | null> {
  const [row] = await db.insert(managedLicenses).values({ projectId, name, approvalStatus, createdAt: Date.now() }).onConflictDoNothing().returning();
  return row ?? null;
}

export async function listManagedLicenses(db: Db, projectId: number, page: { limit: number; offset: number }) {
  const cond = eq(managedLicenses.projectId, projectId);
  const [rows, [{ n }]] = await db.batch([
    db.select().from(managedLicenses).where(cond).orderBy(asc(managedLicenses.id)).limit(page.limit).offset(page.offset),
    db.select({ n: sql<number>`count(*)` }).from(managedLicenses).where(cond),
  ]);
  return { rows, total: n };
}

/** By id or by name (GitLab's :managed_license_id accepts both). */
export async function findManagedLicense(db: Db, projectId: number, idOrName: string): Promise<ManagedLicenseRow | null> {
  const cond = /^\d+$/.test(idOrName) ? eq(managedLicenses.id, Number(idOrName)) : eq(managedLicenses.name, idOrName);
  const [row] = await db.select().from(managedLicenses).where(and(eq(managedLicenses.projectId, projectId), cond)).limit(1);
  return row ?? null;
}

export async function updateManagedLicense(db: Db, id: number, approvalStatus: string): Promise<ManagedLicenseRow> {
  const [row] = await db.update(managedLicenses).set({ approvalStatus }).where(eq(managedLicenses.id, id)).returning();
  return row;
}

export async function deleteManagedLicense(db: Db, id: number): Promise<void> {
  await db.delete(managedLicenses).where(eq(managedLicenses.id, id));
}
