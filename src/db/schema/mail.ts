import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The local outbox (src/mail/outbox.ts): under `npm start` mail is kept here instead of being sent,
 * and a developer reads it at /-/mail (like GitLab's letter_opener). A deployed Worker never writes it.
 */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    bodyText: text("body_text").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("mail_outbox_created_idx").on(t.createdAt)],
);
