import { lte } from "drizzle-orm";
import type { Db } from "./client";
import { oauthClientAssertionJtis } from "./schema/oauth";

/**
 * Claims a client assertion's `jti` for its application until `expiresAt` (ms): true the first
 * time, false when the same jti is still held (a replay). One statement: of two concurrent uses
 * exactly one inserts; a row past its expiry is taken over in place.
 */
export async function claimAssertionJti(db: Db, applicationId: number, jti: string, expiresAt: number, now: number): Promise<boolean> {
  const rows = await db
    .insert(oauthClientAssertionJtis)
    .values({ applicationId, jti, expiresAt })
    .onConflictDoUpdate({
      target: [oauthClientAssertionJtis.applicationId, oauthClientAssertionJtis.jti],
      set: { expiresAt },
      setWhere: lte(oauthClientAssertionJtis.expiresAt, now),
    })
    .returning({ jti: oauthClientAssertionJtis.jti });
  return rows.length > 0;
}

/** The sweep: forgets jtis whose assertions have expired (they can no longer be replayed), at most `limit`. */
export async function deleteExpiredAssertionJtis(d1: D1Database, now: number, limit: number): Promise<number> {
  const res = await d1
    .prepare("DELETE FROM oauth_client_assertion_jtis WHERE rowid IN (SELECT rowid FROM oauth_client_assertion_jtis WHERE expires_at <= ? LIMIT ?)")
    .bind(now, limit)
    .run();
  return res.meta.changes ?? 0;
}
