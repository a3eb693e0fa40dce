import { cleanDisplayName } from "./display-name";
import { checkScopes } from "./scopes";

/**
 * Rules for a new deploy token (GitLab): a name, at least one deploy-token scope, an optional
 * expiry in the future, an optional login (default gitlab+deploy-token-<id>).
 */
export const DEPLOY_TOKEN_SCOPES = ["read_repository", "read_registry", "write_registry", "read_package_registry", "write_package_registry"] as const;
export type DeployTokenScope = (typeof DEPLOY_TOKEN_SCOPES)[number];

export const DEPLOY_TOKEN_PREFIX = "gldt-";
/** GitLab's pattern for deploy-token usernames: letters, digits and `_ - . +`. */
const USERNAME = /^[A-Za-z0-9_.+-]{1,255}$/;

export type DeployTokenErrors = Partial<Record<"name" | "scopes" | "expires_at" | "username", string[]>>;

export function validateDeployTokenInput(
  input: { name: string; /** Parsed by src/domain/scopes.ts parseScopeList. */ scopes: readonly string[]; expiresAt?: string | null; username?: string | null },
  now = Date.now(),
): { ok: true; value: { name: string; scopes: DeployTokenScope[]; expiresAt: number | null; username: string | null } } | { ok: false; errors: DeployTokenErrors } {
  const errors: DeployTokenErrors = {};
  const name = cleanDisplayName(input.name);
  if (!name) errors.name = ["can't be blank"];
  else if (name.length > 255) errors.name = ["is too long (maximum is 255 characters)"];
  const scopes = checkScopes(input.scopes, DEPLOY_TOKEN_SCOPES);
  if (!scopes.ok) errors.scopes = [scopes.reason === "blank" ? "can't be blank" : "can only contain available scopes"];
  let expiresAt: number | null = null;
  const rawExpiry = (input.expiresAt ?? "").trim();
  if (rawExpiry) {
    // GitLab takes an ISO 8601 date or date-time; a bare date means the start of that day (UTC).
    const parsed = /^\d{4}-\d{2}-\d{2}$/.test(rawExpiry) ? Date.parse(`${rawExpiry}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(rawExpiry) ? Date.parse(rawExpiry) : NaN;
    if (Number.isNaN(parsed)) errors.expires_at = ["is not a valid date"];
    else if (parsed <= now) errors.expires_at = ["must be in the future"];
    else expiresAt = parsed;
  }
  const username = (input.username ?? "").trim() || null;
  if (username !== null && !USERNAME.test(username)) errors.username = ["contains invalid characters"];
  if (Object.keys(errors).length || !scopes.ok) return { ok: false, errors };
  return { ok: true, value: { name, scopes: scopes.scopes, expiresAt, username } };
}

export const isDeployTokenExpired = (expiresAt: number | null, now: number) => expiresAt !== null && expiresAt <= now;
