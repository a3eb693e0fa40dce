import { and, eq, gt, lte } from "drizzle-orm";
import type { Db } from "./client";
import { oauthPushedRequests } from "./schema/oauth";

/** Stores a pushed request under the hash of its request_uri's random part; expired rows are swept in the same batch. */
export async function savePushedRequest(db: Db, row: { idHash: string; applicationId: number; query: string; expiresAt: number }, now = Date.now()): Promise<void> {
  await db.batch([db.delete(oauthPushedRequests).where(lte(oauthPushedRequests.expiresAt, now)), db.insert(oauthPushedRequests).values(row)]);
}

/**
 * Takes a pushed request once (RFC 9126 §4, one-time use): the row is deleted and returned in
 * one statement, so of two concurrent uses exactly one gets it. null when unknown or expired.
 */
export async function takePushedRequest(db: Db, idHash: string, now = Date.now()): Promise<{ applicationId: number; query: string } | null> {
  const [row] = await db
    .delete(oauthPushedRequests)
    .where(and(eq(oauthPushedRequests.idHash, idHash), gt(oauthPushedRequests.expiresAt, now)))
    .returning({ applicationId: oauthPushedRequests.applicationId, query: oauthPushedRequests.query });
  return row ?? null;
}
