import type { Principal } from "../credentials/principal";
import { canPushCode, canReadCode, type Visibility } from "../domain/access";
import { AppError } from "../domain/errors";
import { hasAnyScope } from "../domain/scopes";

/** What a git request does: upload-pack serves a fetch or clone, receive-pack a push. */
export type GitOperation = "fetch" | "push";

/** Scopes that let a token use Git over HTTPS (spec, scope table; GitLab: write implies read). */
export const FETCH_SCOPES = ["api", "read_repository", "write_repository"] as const;
export const PUSH_SCOPES = ["api", "write_repository"] as const;

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

const CODES = { unauthorized: "unauthenticated", forbidden: "forbidden", not_found: "not_found" } as const;

/** A git refusal in the error family; renderGitError answers it as plain text (401 with a Basic challenge). */
export const gitDenied = (denial: GitDenial) => new AppError(CODES[denial], GIT_DENIAL_MESSAGES[denial], { reason: denial });

export interface ProjectFacts {
  visibility: Visibility;
  /** The caller's effective access level (0 when anonymous or not a member). */
  accessLevel: number;
}

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
 * The ordered access decision once the credentials (if any) are valid. `project` is null when no
 * project has that path. Anonymous callers get 401 for anything they cannot fetch, so that git asks
 * for credentials and an anonymous probe learns nothing about private projects.
 */
export function decideGitAccess(op: GitOperation, principal: Principal | null, project: ProjectFacts | null): void {
  if (!principal) {
    if (op === "fetch" && project && canReadCode(project.visibility, 0, false, false)) return;
    throw gitDenied("unauthorized");
  }
  const isAdmin = principal.user.isAdmin;
  if (!project || !canReadCode(project.visibility, project.accessLevel, true, isAdmin)) {
    throw gitDenied("not_found");
  }
  if (op === "fetch") return;
  if (!hasAnyScope(principal.scopes, PUSH_SCOPES)) throw gitDenied("forbidden");
  if (!canPushCode(project.accessLevel, isAdmin)) throw gitDenied("forbidden");
}

/**
 * A deploy token (GitLab): without read_repository it is not a git credential (401); a project it
 * does not cover is not found (404); it never pushes (403), as no deploy-token scope writes code.
 */
export function decideDeployTokenGitAccess(op: GitOperation, scopes: readonly string[], coversProject: boolean): void {
  if (!scopes.includes("read_repository")) throw gitDenied("unauthorized");
  if (!coversProject) throw gitDenied("not_found");
  if (op === "push") throw gitDenied("forbidden");
}
