import { getDb } from "../db/client";
import { deleteOutboxMailBefore, storeOutboxMail } from "../db/mail-outbox";
import type { MailTransport, OutgoingMail } from "./message";

/** How long the local outbox keeps a message: a day is plenty to open a link while developing. */
const KEEP_MS = 24 * 3600_000;

/**
 * The local outbox of `npm start` (like GitLab's letter_opener): mail is stored in D1 and shown at
 * /-/mail (src/web/pages/mail-outbox.tsx), only while LOCAL_DEV is true. Nothing leaves the machine.
 */
export function outboxTransport(d1: D1Database): MailTransport {
  return {
    name: "outbox",
    async send(mail: OutgoingMail) {
      const db = getDb(d1);
      const now = Date.now();
      await deleteOutboxMailBefore(db, now - KEEP_MS);
      await storeOutboxMail(db, { fromAddress: mail.from, toAddress: mail.to, subject: mail.subject, bodyText: mail.text, createdAt: now });
    },
  };
}
