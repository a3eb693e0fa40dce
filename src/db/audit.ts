import type { Db } from "./client";
import { auditEvents } from "./schema/accounts";

export type AuditAction =
  | "sign_in"
  | "failed_sign_in"
  | "lockout"
  | "sign_out"
  | "token_issued"
  | "token_refreshed"
  | "refresh_reuse"
  | "code_reuse"
  | "token_revoked"
  | "application_created"
  | "application_deleted"
  | "application_secret_renewed"
  | "personal_access_token_created"
  | "personal_access_token_revoked"
  | "two_factor_enabled"
  | "two_factor_disabled"
  | "password_changed"
  | "session_revoked"
  | "user_blocked"
  | "user_unblocked"
  | "user_deactivated"
  | "user_activated";

/** Audit events: who did what to which entity. Details never carry a token, secret or password. */
export async function recordAudit(
  db: Db,
  event: {
    action: AuditAction;
    authorId?: number | null;
    entityType: string;
    entityId: string | number;
    details?: Record<string, unknown>;
    ip?: string | null;
  },
): Promise<void> {
  await db.insert(auditEvents).values({
    action: event.action,
    authorId: event.authorId ?? null,
    entityType: event.entityType,
    entityId: String(event.entityId),
    details: JSON.stringify(event.details ?? {}),
    ipAddress: event.ip ?? null,
    createdAt: Date.now(),
  });
}
