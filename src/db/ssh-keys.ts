import { and, asc, eq, gt, isNull, ne, or } from "drizzle-orm";
import type { Db } from "./client";
import { sshKeys } from "./schema/accounts";

export type SshKeyRow = typeof sshKeys.$inferSelect;

/** GitLab's key usage types; the signing ones may sign a personal access token's DPoP proof. */
export const SSH_KEY_USAGE_TYPES = ["auth", "signing", "auth_and_signing"] as const;
export type SshKeyUsageType = (typeof SSH_KEY_USAGE_TYPES)[number];

export function listSshKeys(db: Db, userId: number): Promise<SshKeyRow[]> {
  return db.select().from(sshKeys).where(eq(sshKeys.userId, userId)).orderBy(asc(sshKeys.id));
}

export async function findSshKey(db: Db, userId: number, id: number): Promise<SshKeyRow | null> {
  const [row] = await db.select().from(sshKeys).where(and(eq(sshKeys.userId, userId), eq(sshKeys.id, id)));
  return row ?? null;
}

export async function findSshKeyByFingerprint(db: Db, fingerprintSha256: string): Promise<SshKeyRow | null> {
  const [row] = await db.select().from(sshKeys).where(eq(sshKeys.fingerprintSha256, fingerprintSha256));
  return row ?? null;
}

/** The user's unexpired signing key with that SHA-256 fingerprint (GitLab: user.keys.signing.find_by_fingerprint_sha256). */
export async function findSigningKey(db: Db, userId: number, fingerprintSha256: string, now: number): Promise<SshKeyRow | null> {
  const [row] = await db
    .select()
    .from(sshKeys)
    .where(
      and(
        eq(sshKeys.userId, userId),
        eq(sshKeys.fingerprintSha256, fingerprintSha256),
        // signing or auth_and_signing
        ne(sshKeys.usageType, "auth"),
        or(isNull(sshKeys.expiresAt), gt(sshKeys.expiresAt, now)),
      ),
    );
  return row ?? null;
}

export async function insertSshKey(db: Db, row: Omit<typeof sshKeys.$inferInsert, "id">): Promise<SshKeyRow> {
  const [created] = await db.insert(sshKeys).values(row).returning();
  return created!;
}

export async function deleteSshKey(db: Db, userId: number, id: number): Promise<boolean> {
  const gone = await db.delete(sshKeys).where(and(eq(sshKeys.userId, userId), eq(sshKeys.id, id))).returning({ id: sshKeys.id });
  return gone.length > 0;
}
