import { auditStatements, recordAudit, type AuditEvent } from "../db/audit";
import type { Db } from "../db/client";
import { familyRowStatements, insertFamilyRow, markFamilyActive } from "../db/oauth-grants";

/**
 * The directory rows of OAuth token families (src/db/oauth-grants.ts) written with the audit row
 * of the tokens they issue (`token_issued`), so the token endpoint's grants record issuance in one
 * place. The family's own Durable Object is started by the caller beside these writes
 * (src/oauth/issue.ts), since it holds the tokens themselves.
 */

export type IssuedAudit = { authorId: number | null; details: Record<string, unknown>; ip: string | null };

const issuedEvent = (familyId: string, audit: IssuedAudit): AuditEvent => ({
  action: "token_issued",
  authorId: audit.authorId,
  entityType: "oauth_token_family",
  entityId: familyId,
  details: audit.details,
  ip: audit.ip,
});
const issued = (db: Db, familyId: string, audit: IssuedAudit) => recordAudit(db, issuedEvent(familyId, audit));

/** A new family's directory row and its token_issued row. */
export async function recordIssuedFamily(db: Db, row: Parameters<typeof insertFamilyRow>[1] & { id: string }, audit: IssuedAudit): Promise<void> {
  await Promise.all([insertFamilyRow(db, row), issued(db, row.id, audit)]);
}

/**
 * Many new families' directory rows and their token_issued rows (src/oauth/issue.ts
 * issueAccessOnlyMany), in bounded statements of one D1 batch rather than one round trip each.
 */
export async function recordIssuedFamilies(db: Db, families: readonly { row: Parameters<typeof insertFamilyRow>[1] & { id: string }; audit: IssuedAudit }[]): Promise<void> {
  const statements = [
    ...familyRowStatements(db, families.map((f) => f.row)),
    ...auditStatements(db, families.map((f) => issuedEvent(f.row.id, f.audit))),
  ];
  if (statements.length) await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
}

/** A family started by an authorization code, active once the code is exchanged, and its token_issued row. */
export async function recordCodeExchanged(db: Db, familyId: string, audit: IssuedAudit): Promise<void> {
  await Promise.all([markFamilyActive(db, familyId), issued(db, familyId, audit)]);
}
