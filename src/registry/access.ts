import type { Context } from "hono";
import type { AppEnv } from "../env";
import { RegistryError } from "./errors";
import { bearerToken } from "../credentials/extract";
import { grantedActions, verifyRegistryToken, type RegistryAction, type RegistryClaims } from "../credentials/registry-token";
import { isValidRepositoryName } from "./names";

/**
 * /v2/ trusts only its own tokens: every request carries a registry JWT from /jwt/auth, verified
 * here (signature, audience, expiry), and acts only within the actions it names.
 */
export interface RepositoryAccess {
  /** The repository's full name. */
  path: string;
  projectId: number;
  image: string;
  claims: RegistryClaims;
}

/** The verified claims of the request's bearer token, or null. */
export async function bearerClaims(c: Context<AppEnv>): Promise<RegistryClaims | null> {
  const token = bearerToken(c.req.raw);
  if (!token) return null;
  return verifyRegistryToken(c.env, token);
}

/** The scope a client must ask the token service for, to do `action` (push needs pull too). */
const scopeFor = (name: string, action: RegistryAction) => `repository:${name}:${action === "push" ? "pull,push" : action}`;

/**
 * Without a token, or with one that names nothing for this repository: 401 with the challenge, so
 * the client fetches a token for this scope (and pull on `alsoPull`, a mount's source). With a token that names the repository but not the
 * action: 403 DENIED.
 */
export async function requireAccess(c: Context<AppEnv>, name: string, action: RegistryAction, alsoPull: string | null = null): Promise<RepositoryAccess> {
  if (!isValidRepositoryName(name)) throw new RegistryError("NAME_INVALID", "invalid repository name", { detail: { name } });
  const claims = await bearerClaims(c);
  const entry = claims?.access.find((a) => a.type === "repository" && a.name === name);
  if (!claims || !entry || !entry.meta) {
    // A cross-repository mount also needs pull on its source: the challenge names both scopes
    // (space-separated, as distribution and GitLab do), so one token covers the mount.
    const source = alsoPull !== null && alsoPull !== name && isValidRepositoryName(alsoPull) ? alsoPull : null;
    const scope = source ? `${scopeFor(name, action)} ${scopeFor(source, "pull")}` : scopeFor(name, action);
    const detail = [{ Type: "repository", Name: name, Action: action }, ...(source ? [{ Type: "repository", Name: source, Action: "pull" }] : [])];
    throw new RegistryError("UNAUTHORIZED", "authentication required", { scope, detail });
  }
  if (!grantedActions(claims, name).includes(action)) {
    throw new RegistryError("DENIED", `requested access to the resource is denied: ${action} on ${name}`);
  }
  return { path: name, projectId: entry.meta.project_id, image: name.slice(entry.meta.project_path.length + 1), claims };
}
