import { getDb } from "../db/client";
import { findDeployTokenBySecret } from "../db/deploy-tokens";
import { groupAncestry, type ProjectRow } from "../db/projects";
import { DEPLOY_TOKEN_PREFIX, isDeployTokenExpired } from "../domain/deploy-token-input";
import type { Bindings } from "../env";
import { AuthError } from "./errors";
import type { DeployTokenPrincipal } from "./principal";
import { parseScopes } from "../domain/scopes";

/** The deploy token as a caller; the type lives with the other principals (./principal.ts). */
export type { DeployTokenPrincipal };

export const isDeployTokenSecret = (secret: string) => secret.startsWith(DEPLOY_TOKEN_PREFIX);

/** Throws AuthError unless the secret is a live deploy token sent under its own login. */
export async function resolveDeployToken(env: Bindings, username: string | null, secret: string): Promise<DeployTokenPrincipal> {
  const row = await findDeployTokenBySecret(getDb(env.DB), secret);
  if (!row) throw new AuthError("invalid");
  if (row.revoked) throw new AuthError("revoked");
  if (isDeployTokenExpired(row.expiresAt, Date.now())) throw new AuthError("expired");
  // GitLab: the login must be the token's username (the package API's Deploy-Token header has none).
  if (username !== null && username !== row.username) throw new AuthError("invalid");
  return { kind: "deploy_token", tokenId: row.id, username: row.username, scopes: parseScopes(row.scopes), projectId: row.projectId, groupId: row.groupId };
}

/** A project token covers its project; a group token every project below its group. */
export async function deployTokenCovers(env: Bindings, token: DeployTokenPrincipal, project: ProjectRow): Promise<boolean> {
  if (token.projectId !== null) return token.projectId === project.id;
  if (token.groupId === null || project.namespaceKind !== "group") return false;
  return (await groupAncestry(getDb(env.DB), project.namespaceId)).includes(token.groupId);
}
