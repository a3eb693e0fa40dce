import { and, eq, lt } from "drizzle-orm";
import type { Db } from "./client";
import { oidcSigningKeys } from "./schema/oidc";

/**
 * The signing key rings in D1, one per purpose (the rings' rules, their cache and the encryption
 * of the private parts are src/credentials/signing-keys.ts's). Partial unique indexes allow one
 * `active` and one `next` key per purpose, which is what makes a concurrent first start or
 * rotation harmless.
 */
export type SigningKeyRow = typeof oidcSigningKeys.$inferSelect;

export async function allSigningKeys(db: Db, purpose: string): Promise<SigningKeyRow[]> {
  return db.select().from(oidcSigningKeys).where(eq(oidcSigningKeys.purpose, purpose));
}

/** Inserts the keys whose slot is free; a key whose state another isolate filled first is dropped. */
export async function insertSigningKeysIfFree(db: Db, rows: SigningKeyRow[]): Promise<void> {
  await db.insert(oidcSigningKeys).values(rows).onConflictDoNothing();
}

/**
 * One rotation of one ring as one D1 batch (a transaction): its retiring keys past `now` are
 * removed, `activeKid` becomes retiring until `retireAt`, `nextKid` becomes active, and `fresh` is
 * the new next key. A concurrent rotation fails the whole batch on the one-next-key index.
 */
export async function rotateSigningKeys(
  db: Db,
  r: { purpose: string; now: number; activeKid: string; nextKid: string; retireAt: number; fresh: SigningKeyRow },
): Promise<void> {
  const inRing = eq(oidcSigningKeys.purpose, r.purpose);
  await db.batch([
    db.delete(oidcSigningKeys).where(and(inRing, eq(oidcSigningKeys.state, "retiring"), lt(oidcSigningKeys.retireAt, r.now))),
    db
      .update(oidcSigningKeys)
      .set({ state: "retiring", retireAt: r.retireAt })
      .where(and(inRing, eq(oidcSigningKeys.kid, r.activeKid), eq(oidcSigningKeys.state, "active"))),
    db
      .update(oidcSigningKeys)
      .set({ state: "active", activatedAt: r.now })
      .where(and(inRing, eq(oidcSigningKeys.kid, r.nextKid), eq(oidcSigningKeys.state, "next"))),
    db.insert(oidcSigningKeys).values(r.fresh),
  ]);
}
