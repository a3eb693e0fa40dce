import { and, eq, gt, lte } from "drizzle-orm";
import { randomBytes, toBase64Url } from "../crypto/random";
import type { Db } from "./client";
import { oauthPendingAuthorizations } from "./schema/oauth";

/** How long a pending authorization request waits for the sign-in (as long as a code lives). */
export const PENDING_AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
/** The longest authorize query kept (state is capped at 2 KB; the rest is the client's URL). */
export const MAX_PENDING_QUERY_LENGTH = 16 * 1024;

/** Stores the query and returns its id; expired rows are swept in the same batch. */
export async function savePendingAuthorization(db: Db, query: string, now = Date.now()): Promise<string> {
  const id = toBase64Url(randomBytes(16));
  await db.batch([
    db.delete(oauthPendingAuthorizations).where(lte(oauthPendingAuthorizations.expiresAt, now)),
    db.insert(oauthPendingAuthorizations).values({ id, query, expiresAt: now + PENDING_AUTHORIZATION_TTL_MS }),
  ]);
  return id;
}

/** The stored query, or null when unknown or expired. */
export async function findPendingAuthorization(db: Db, id: string, now = Date.now()): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const [row] = await db
    .select({ query: oauthPendingAuthorizations.query })
    .from(oauthPendingAuthorizations)
    .where(and(eq(oauthPendingAuthorizations.id, id), gt(oauthPendingAuthorizations.expiresAt, now)));
  return row?.query ?? null;
}
