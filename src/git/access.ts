import type { Caller, Principal } from "../credentials/principal";
import type { ProjectAccess } from "../services/abilities";
import { AppError } from "../domain/errors";
import { hasAnyScope } from "../domain/scopes";

/** What a git request does: upload-pack serves a fetch or clone, receive-pack a push. */
export type GitOperation = "fetch" | "push";

/** Scopes that let a token use Git over HTTPS (spec, scope table; GitLab: write implies read). */
export const FETCH_SCOPES = ["api", "read_repository", "write_repository"] as const;

/** The user name an OAuth token must be sent with (spec, Git over HTTPS). */
export const OAUTH_GIT_USERNAME = "oauth2";

/**
 * unauthorized: 401 with a Basic challenge (git asks for credentials); forbidden: 403;
 * not_found: 404, also for projects the caller may not see, so their existence is not revealed.
 */
export type GitDenial = "unauthorized" | "forbidden" | "not_found";

// GitLab's wording; git shows the status line, and the 401 challenge makes it ask for credentials.
export const GIT_DENIAL_MESSAGES = {
  unauthorized:
    "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped.",
  forbidden: "You are not allowed to push code to this project.",
  not_found: "The project you were looking for could not be found or you don't have permission to view it.",
} as const;

/** GitLab's words when a caller who sees the project may not read its code (a guest of a private project). */
export const DOWNLOAD_FORBIDDEN = "You are not allowed to download code from this project.";

const CODES = { unauthorized: "unauthenticated", forbidden: "forbidden", not_found: "not_found" } as const;

/** A git refusal in the error family; renderGitError answers it as plain text (401 with a Basic challenge). */
export const gitDenied = (denial: GitDenial) => new AppError(CODES[denial], GIT_DENIAL_MESSAGES[denial], { reason: denial });

/**
 * The token must have been sent under a user name that its kind allows: OAuth tokens only as
 * `oauth2`; personal access tokens under any user name (GitLab).
 */
export function checkGitLogin(principal: Principal, username: string): void {
  if (principal.kind === "oauth" && username !== OAUTH_GIT_USERNAME) throw gitDenied("unauthorized");
  // A token without any repository scope is not a git credential at all (GitLab answers 401).
  if (!hasAnyScope(principal.scopes, FETCH_SCOPES)) throw gitDenied("unauthorized");
}

/**
 * A caller's credentials as git takes them: OAuth tokens only under `oauth2`, personal access tokens
 * under any user name (GitLab); a token without any repository scope, or a deploy token without
 * read_repository, is not a git credential at all (GitLab answers 401).
 */
export function checkGitCredential(caller: Caller): void {
  if (caller.kind === "user") checkGitLogin(caller.principal, caller.login ?? "");
  if (caller.kind === "deploy_token" && !caller.token.scopes.includes("read_repository")) throw gitDenied("unauthorized");
}

/**
 * Git's answer to the abilities table (read_code to fetch, push_code to push; src/domain/abilities.ts):
 * `access` is null when no project has the path. Anonymous callers (and applications, which act for
 * no one) get 401 for anything they cannot fetch, so that git asks for credentials and an anonymous
 * probe learns nothing about private projects; others the table's not found or forbidden.
 */
export function decideGitAccess(op: GitOperation, caller: Caller["kind"], access: ProjectAccess | null): void {
  const decision = access ? access.decide(op === "fetch" ? "read_code" : "push_code") : "not_found";
  if (decision === "allowed") return;
  if (caller === "anonymous" || caller === "application") throw gitDenied("unauthorized");
  if (decision === "forbidden" && op === "fetch") throw new AppError("forbidden", DOWNLOAD_FORBIDDEN, { reason: "forbidden" });
  throw gitDenied(decision);
}
