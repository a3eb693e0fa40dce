import type { Bindings } from "../env";
import { originFetch, originSettings, originUnavailableReason, repositoryStoragePath } from "./origin-client";

/**
 * Repositories follow their projects (docs/git.md, "Provisioning"): the Worker tells the origin
 * when a project is created or deleted. Renames and transfers need no call, as the repository is
 * stored by project id. Plain functions of the bindings, so a service layer can call them as is.
 *
 * Failures never undo the project change that caused them:
 * - creation: the project exists and the origin creates its repository on the first git request
 *   (which only the Worker can sign); the failure is logged with the project id.
 * - deletion: retried (three attempts, backing off); a repository that still could not be removed
 *   is logged with its storage path. Project ids are never reused, so it is never served again.
 */

export interface InitialCommit {
  message: string;
  author: { name: string; email: string };
  files: Record<string, string>;
}

/** Null when the repository exists at the origin (or git is not configured); else what failed. */
export async function createProjectRepository(
  env: Bindings,
  project: { id: number; defaultBranch: string },
  initialCommit: InitialCommit | null = null,
): Promise<string | null> {
  const origin = originSettings(env);
  if (!origin.url) return null;
  const storage = await repositoryStoragePath(project.id);
  try {
    const res = await originFetch(origin, {
      method: "PUT",
      target: `/-/repositories/${storage}`,
      headers: new Headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ default_branch: project.defaultBranch, ...(initialCommit ? { initial_commit: initialCommit } : {}) }),
    });
    if (res.ok) return null;
    return logFailure("created", project.id, storage, `${res.status} ${(await res.text()).trim()}`);
  } catch (err) {
    const reason = originUnavailableReason(err);
    if (reason) return logFailure("created", project.id, storage, reason);
    throw err;
  }
}

/** GitLab's initialize_with_readme: one commit adding README.md, authored by the creator. */
export function readmeCommit(project: { name: string; description: string }, author: { name: string; email: string }): InitialCommit {
  const body = project.description ? `# ${project.name}\n\n${project.description}\n` : `# ${project.name}\n`;
  return { message: "Initial commit", author: { name: author.name, email: author.email }, files: { "README.md": body } };
}

const DELETE_ATTEMPTS = 3;

/** Removes a deleted project's repository; null when done, else what failed after the retries. */
export async function deleteProjectRepository(env: Bindings, projectId: number, backoffMs = 500): Promise<string | null> {
  const origin = originSettings(env);
  if (!origin.url) return null;
  const storage = await repositoryStoragePath(projectId);
  let last = "";
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    try {
      const res = await originFetch(origin, { method: "DELETE", target: `/-/repositories/${storage}` });
      if (res.ok) return null;
      last = `${res.status} ${(await res.text()).trim()}`;
    } catch (err) {
      const reason = originUnavailableReason(err);
      if (!reason) throw err;
      last = reason;
    }
    if (attempt < DELETE_ATTEMPTS) await new Promise((r) => setTimeout(r, backoffMs * attempt));
  }
  return logFailure("deleted", projectId, storage, last);
}

function logFailure(what: "created" | "deleted", projectId: number, storage: string, reason: string): string {
  const next = what === "created" ? "it is created on the first git request" : "remove it at the origin by hand";
  const message = `git origin: the repository of project ${projectId} (${storage}) was not ${what}: ${reason}; ${next}`;
  console.error(JSON.stringify({ msg: "git origin provisioning failed", project_id: projectId, storage, action: what, reason }));
  return message;
}

/** The origin's health for the readiness report: null when healthy (or not configured), else why not. */
export async function gitOriginProblem(env: Bindings): Promise<string | null> {
  const origin = originSettings(env);
  if (!origin.url) return null;
  try {
    const res = await originFetch(origin, { method: "GET", target: "/-/health" });
    if (res.ok) return null;
    return `the git origin answered ${res.status}: ${(await res.text()).trim().slice(0, 200)}`;
  } catch (err) {
    const reason = originUnavailableReason(err);
    if (reason) {
      return reason === "refused"
        ? "the git origin refuses the Worker's signature (GIT_ORIGIN_SECRET differs, or the clocks are more than 60 s apart)"
        : "the git origin is unreachable";
    }
    throw err;
  }
}
