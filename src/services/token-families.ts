import { recordAudit } from "../db/audit";
import type { Db } from "../db/client";
import { insertFamilyRow, markFamilyActive } from "../db/oauth-grants";

/**
 * The directory rows of OAuth token families (src/db/oauth-grants.ts) written with the audit row
 * of the tokens they issue (`token_issued`), so the token endpoint's grants record issuance in one
 * place. The family's own Durable Object is started by the caller beside these writes
 * (src/oauth/issue.ts), since it holds the tokens themselves.
 */

export type IssuedAudit = { authorId: number | null; details: Record<string, unknown>; ip: string | null };

const issued = (db: Db, familyId: string, audit: IssuedAudit) =>
  recordAudit(db, { action: "token_issued", authorId: audit.authorId, entityType: "oauth_token_family", entityId: familyId, details: audit.details, ip: audit.ip });

/** A new family's directory row and its token_issued row. */
export async function recordIssuedFamily(db: Db, row: Parameters<typeof insertFamilyRow>[1] & { id: string }, audit: IssuedAudit): Promise<void> {
  await Promise.all([insertFamilyRow(db, row), issued(db, row.id, audit)]);
}

/** A family started by an authorization code, active once the code is exchanged, and its token_issued row. */
export async function recordCodeExchanged(db: Db, familyId: string, audit: IssuedAudit): Promise<void> {
  await Promise.all([markFamilyActive(db, familyId), issued(db, familyId, audit)]);
}
