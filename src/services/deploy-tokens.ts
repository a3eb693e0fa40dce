import { recordAudit, type AuditActor } from "../db/audit";
import { getDb } from "../db/client";
import { createDeployToken as insertToken, deleteDeployToken, type DeployTokenOwner, type DeployTokenRow } from "../db/deploy-tokens";
import { validateDeployTokenInput, type DeployTokenErrors } from "../domain/deploy-token-input";
import type { Bindings } from "../env";
import type { CheckedGroup, CheckedProject } from "./abilities";

/**
 * Deploy tokens as use cases, shared by the REST API (/api/v4/{projects,groups}/:id/deploy_tokens)
 * and the project's Settings → Repository page. Both are audited (GitLab's deploy_token_created and
 * deploy_token_revoked events). A token is created only for an owner the abilities resolver checked.
 */

function audit(env: Bindings, actor: AuditActor, action: "deploy_token_created" | "deploy_token_revoked", t: DeployTokenRow) {
  return recordAudit(getDb(env.DB), {
    action,
    actor,
    entityType: "deploy_token",
    entityId: t.id,
    details: { name: t.name, username: t.username, scopes: t.scopes, project_id: t.projectId, group_id: t.groupId },
  });
}

/** The project or group a token is created for, checked for admin_project or maintain_group (./abilities.ts). */
export type ManagedOwner = { project: CheckedProject<"admin_project"> } | { group: CheckedGroup<"maintain_group"> };

/** The owner's ids, as the tokens' queries take them. */
export const ownerIds = (owner: ManagedOwner): DeployTokenOwner => ("project" in owner ? { projectId: owner.project.id } : { groupId: owner.group.id });

/** Creates a token of the project or group; the plaintext is in this answer only, storage keeps its hash. */
export async function createDeployToken(
  env: Bindings,
  actor: AuditActor,
  owner: ManagedOwner,
  input: { name: string; /** Parsed by the entry point (src/domain/scopes.ts). */ scopes: readonly string[]; expiresAt?: string | null; username?: string | null },
): Promise<{ ok: true; token: string; row: DeployTokenRow } | { ok: false; errors: DeployTokenErrors }> {
  const checked = validateDeployTokenInput(input);
  if (!checked.ok) return checked;
  const { token, row } = await insertToken(getDb(env.DB), ownerIds(owner), checked.value);
  await audit(env, actor, "deploy_token_created", row);
  return { ok: true, token, row };
}

/** GitLab's DELETE destroys the token; every use reads the row, so it stops working at once. */
export async function revokeDeployToken(env: Bindings, actor: AuditActor, token: DeployTokenRow): Promise<void> {
  await deleteDeployToken(getDb(env.DB), token.id);
  await audit(env, actor, "deploy_token_revoked", token);
}
