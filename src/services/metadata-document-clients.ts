import { recordAudit, type AuditActor } from "../db/audit";
import { saveMetadataDocumentApplication, type ApplicationRow, type MetadataDocumentClient } from "../db/applications";
import { getDb } from "../db/client";
import type { Bindings } from "../env";

/**
 * The application of a Client ID Metadata Document client, stored when a signed-in person first
 * approves it (docs/agents.md, "Document clients"), or refreshed when another approval stored it
 * meanwhile, and audited with that person and address. Null when another application (of another
 * kind) already has this client_id: the caller refuses the client in its family's shape.
 */
export async function storeMetadataDocumentApplication(env: Bindings, actor: AuditActor, client: MetadataDocumentClient): Promise<ApplicationRow | null> {
  const db = getDb(env.DB);
  const saved = await saveMetadataDocumentApplication(db, client);
  if (!saved) return null;
  await recordAudit(db, {
    action: "metadata_document_application_created",
    actor,
    entityType: "oauth_application",
    entityId: saved.id,
    details: { name: saved.name, client_id: saved.uid },
  });
  return saved;
}
