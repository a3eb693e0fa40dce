import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Changes that fan out over many records and are not finished yet (DESIGN, "Changes that finish";
 * docs/operations.md, "How changes finish"). A row is the durable intent of one change: written
 * in the same D1 batch as the change's state and its audit row, and deleted once every effect
 * (Durable Object calls, R2 deletes, directory rows, the git repository) is applied. Whoever comes
 * next finishes it: the retried request, an unblock, or the cron sweep (src/services/changes/).
 */
export const pendingChanges = sqliteTable(
  "pending_changes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** What to do: user_blocked, user_deactivated, application_deleted, ... (src/services/changes/effects.ts). */
    kind: text("kind").notNull(),
    /** What it is about, e.g. "user:12", "application:7", "user:12/application:7": one pending change of a kind per subject. */
    subject: text("subject").notNull(),
    /** JSON: what the effects need (the actor, names of R2 prefixes, ...). */
    payload: text("payload").notNull().default("{}"),
    createdAt: integer("created_at").notNull(),
    /** How many runs failed so far, and the last failure's message (no secret: ids and kinds only). */
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    lastAttemptAt: integer("last_attempt_at"),
    /** JSON: where the effects stopped when a run spent its subrequest budget (step and cursor, src/services/changes/slices.ts); null before the first slice. */
    progress: text("progress"),
  },
  (t) => [uniqueIndex("pending_changes_kind_subject_idx").on(t.kind, t.subject), index("pending_changes_created_idx").on(t.createdAt)],
);
