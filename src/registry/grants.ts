import { deployTokenCovers, type DeployTokenPrincipal } from "../credentials/deploy-token";
import type { UserRow } from "../credentials/principal";
import { getDb } from "../db/client";
import { projectAccessLevel } from "../db/projects";
import { AccessLevel, canReadCode, type Visibility } from "../domain/access";
import { hasAnyScope } from "../domain/scopes";
import type { Bindings } from "../env";
import type { AccessEntry, RegistryAction } from "../credentials/registry-token";
import { resolveRepositoryName } from "./names";

/** Who asks the token service for access (OAuth access tokens never get this far: spec). */
export type RegistryCaller =
  | { kind: "anonymous" }
  | { kind: "user"; user: UserRow; scopes: string[] }
  | { kind: "deploy_token"; token: DeployTokenPrincipal };

/** Token scopes that carry each action (GitLab: write_registry implies pulling what it pushes). */
const PAT_SCOPES_FOR: Record<RegistryAction, readonly string[]> = {
  pull: ["api", "read_registry", "write_registry"],
  push: ["api", "write_registry"],
  delete: ["api", "write_registry"],
};
const DEPLOY_SCOPES_FOR: Record<RegistryAction, readonly string[]> = {
  pull: ["read_registry", "write_registry"],
  push: ["write_registry"],
  // Deploy tokens push and pull; deleting images is for people (GitLab).
  delete: [],
};
const ACTIONS: readonly RegistryAction[] = ["pull", "push", "delete"];

export interface RequestedScope {
  name: string;
  actions: RegistryAction[];
}

/**
 * `repository:<name>:<actions>` (Docker token protocol). Unknown resource types (registry:catalog)
 * and unknown actions are dropped: the answer then simply grants nothing for them.
 */
export function parseScope(scope: string): RequestedScope | null {
  const m = /^repository(?:\([a-z0-9]+\))?:([^:]+):([a-z*,]+)$/.exec(scope);
  if (!m) return null;
  const wanted = m[2].split(",");
  const actions = wanted.includes("*") ? [...ACTIONS] : ACTIONS.filter((a) => wanted.includes(a));
  return actions.length ? { name: m[1], actions } : null;
}

/**
 * The actions granted on one requested repository: the intersection of what was asked, what the
 * credential's scopes carry and what the caller may do in the project (visibility, membership,
 * or the deploy token's project or group). null when nothing is granted.
 */
export async function grantScope(env: Bindings, caller: RegistryCaller, requested: RequestedScope): Promise<AccessEntry | null> {
  const db = getDb(env.DB);
  const resolved = await resolveRepositoryName(db, requested.name);
  if (!resolved) return null;
  const { project } = resolved;
  const visibility = project.visibility as Visibility;
  let allowed: (action: RegistryAction) => boolean;
  if (caller.kind === "anonymous") {
    allowed = (a) => a === "pull" && visibility === "public";
  } else if (caller.kind === "deploy_token") {
    const covers = await deployTokenCovers(env, caller.token, project);
    allowed = (a) => covers && hasAnyScope(caller.token.scopes, DEPLOY_SCOPES_FOR[a]);
  } else {
    const isAdmin = caller.user.isAdmin;
    const level = isAdmin ? AccessLevel.OWNER : await projectAccessLevel(db, project, caller.user.id);
    allowed = (a) =>
      hasAnyScope(caller.scopes, PAT_SCOPES_FOR[a]) &&
      (a === "pull" ? canReadCode(visibility, level, true, isAdmin) : isAdmin || level >= AccessLevel.DEVELOPER);
  }
  const actions = requested.actions.filter(allowed);
  if (!actions.length) return null;
  return { type: "repository", name: resolved.path, actions, meta: { project_id: project.id, project_path: project.pathWithNamespace } };
}
