import type { DeployTokenPrincipal } from "../credentials/deploy-token";
import type { UserRow } from "../credentials/principal";
import { getDb } from "../db/client";
import type { ProjectAbility } from "../domain/abilities";
import { projectAccess } from "../services/abilities";
import type { Bindings } from "../env";
import type { AccessEntry, RegistryAction } from "../credentials/registry-token";
import { resolveRepositoryName } from "./names";

/** Who asks the token service for access (OAuth access tokens never get this far: spec). */
export type RegistryCaller =
  | { kind: "anonymous" }
  | { kind: "user"; user: UserRow; scopes: string[] }
  | { kind: "deploy_token"; token: DeployTokenPrincipal };

/** The ability each action needs (src/domain/abilities.ts; its scopes say which tokens carry it). */
const ABILITY_OF: Record<RegistryAction, ProjectAbility> = {
  pull: "read_container_image",
  push: "create_container_image",
  delete: "destroy_container_image",
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
 * The actions granted on one requested repository: those asked for that the abilities table allows
 * (the credential's scopes, and visibility, membership or the deploy token's project or group).
 * null when nothing is granted.
 */
export async function grantScope(env: Bindings, caller: RegistryCaller, requested: RequestedScope): Promise<AccessEntry | null> {
  const resolved = await resolveRepositoryName(getDb(env.DB), requested.name);
  if (!resolved) return null;
  const { project } = resolved;
  // The token service judges the token's own scopes per ability (write_registry pushes, read_registry pulls).
  const access = await projectAccess(env, caller.kind === "user" ? { kind: "user", user: caller.user, scopes: caller.scopes } : caller, project);
  const actions = requested.actions.filter((a) => access.can(ABILITY_OF[a]));
  if (!actions.length) return null;
  return { type: "repository", name: resolved.path, actions, meta: { project_id: project.id, project_path: project.pathWithNamespace } };
}
