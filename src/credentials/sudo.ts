import type { Db } from "../db/client";
import { recordAudit } from "../db/audit";
import { findUserById, findUserByUsername } from "../db/users";
import { AppError } from "../domain/errors";
import { hasAnyScope } from "../domain/scopes";
import { ScopeError } from "./errors";
import type { Principal } from "./principal";

/**
 * GitLab's Sudo: an administrator's token with the `sudo` scope and a `Sudo: <username or id>`
 * header (or `?sudo=`) acts as that user for one request. The checks run in GitLab's order
 * (lib/api/helpers.rb, sudo!): administrator first, then the token's scope, then the user.
 * Every use is audited with both identities.
 */
// GitLab's messages (lib/api/helpers.rb, sudo!); REST and GraphQL show them as "403 Forbidden - …" and "404 …".
const notAdmin = () => new AppError("forbidden", "Must be admin to use sudo", { reason: "sudo_not_admin" });
const sudoUserNotFound = (identifier: string) =>
  new AppError("not_found", `User with ID or username '${identifier}' Not Found`, { reason: "sudo_user_not_found" });

export const SUDO_SCOPE = ["sudo"] as const;

/** The Sudo header, else the sudo query parameter (GitLab reads both); null when absent. */
export function sudoIdentifier(req: Request): string | null {
  const header = req.headers.get("sudo")?.trim();
  if (header) return header;
  // Without a query string there is no parameter: no URL is parsed on most REST requests.
  if (!req.url.includes("?")) return null;
  return new URL(req.url).searchParams.get("sudo")?.trim() || null;
}

/**
 * The principal the request acts for: the token's own, or with Sudo the named user's (keeping
 * the token's scopes, and the administrator in sudoFrom). Throws AppError (forbidden, not_found) or ScopeError.
 */
export async function applySudo(
  db: Db,
  principal: Principal,
  identifier: string | null,
  audit: { ip?: string | null; method: string; path: string; defer: (p: Promise<unknown>) => void },
): Promise<Principal> {
  if (identifier === null) return principal;
  if (!principal.user.isAdmin) throw notAdmin();
  if (!hasAnyScope(principal.scopes, SUDO_SCOPE)) throw new ScopeError(SUDO_SCOPE);
  const target = /^[0-9]+$/.test(identifier) ? await findUserById(db, Number(identifier)) : await findUserByUsername(db, identifier);
  if (!target) throw sudoUserNotFound(identifier);
  audit.defer(
    recordAudit(db, {
      action: "sudo",
      authorId: principal.user.id,
      entityType: "User",
      entityId: target.id,
      details: { as: target.username, by: principal.user.username, token: principal.kind, method: audit.method, path: audit.path },
      ip: audit.ip ?? null,
    }),
  );
  return { ...principal, user: target, sudoFrom: principal.user };
}
