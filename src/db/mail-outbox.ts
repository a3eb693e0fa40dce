import { desc, eq, lt } from "drizzle-orm";
import type { Db } from "./client";
import { mailOutbox } from "./schema/mail";

export type OutboxMail = typeof mailOutbox.$inferSelect;

/** The local outbox's rows (src/mail/outbox.ts): only `npm start` writes them. */
export async function storeOutboxMail(db: Db, mail: Omit<OutboxMail, "id">): Promise<void> {
  await db.insert(mailOutbox).values(mail);
}

/** The newest mail first, at most `limit`. */
export async function listOutboxMail(db: Db, limit: number): Promise<OutboxMail[]> {
  return db.select().from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(limit);
}

export async function findOutboxMail(db: Db, id: number): Promise<OutboxMail | null> {
  const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).limit(1);
  return row ?? null;
}

/** Mail older than `before` (ms) goes, so a long-running local instance keeps a bounded outbox. */
export async function deleteOutboxMailBefore(db: Db, before: number): Promise<void> {
  await db.delete(mailOutbox).where(lt(mailOutbox.createdAt, before));
}
