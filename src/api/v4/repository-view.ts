import type { Context } from "hono";
import type { ProjectRow } from "../../db/projects";
import { encodeRefPath, type CommitFacts, type TreeEntry } from "../../git/repository-reader";
import { webUrl } from "./load";

/** GitLab's entities of the Repository API (lib/api/entities/commit.rb, branch.rb, tree_object.rb). */

export function renderCommit(c: Context, project: ProjectRow, f: CommitFacts) {
  const message = f.message.replace(/\n+$/, "");
  return {
    id: f.id,
    short_id: f.id.slice(0, 8),
    created_at: f.committedDate,
    parent_ids: f.parentIds,
    title: message.split("\n", 1)[0] ?? "",
    message: f.message,
    author_name: f.authorName,
    author_email: f.authorEmail,
    authored_date: f.authoredDate,
    committer_name: f.committerName,
    committer_email: f.committerEmail,
    committed_date: f.committedDate,
    trailers: {},
    extended_trailers: {},
    web_url: webUrl(c, `${project.pathWithNamespace}/-/commit/${f.id}`),
  };
}

/** GET /repository/commits/:sha adds the line stats, and status and pipeline (none here). */
export function renderCommitDetail(c: Context, project: ProjectRow, f: CommitFacts) {
  return { ...renderCommit(c, project, f), stats: f.stats ?? { additions: 0, deletions: 0, total: 0 }, status: null, project_id: project.id, last_pipeline: null };
}

/** No protected branches here (out of scope): every branch is unprotected, and who may push is who may push code. */
export function renderBranch(c: Context, project: ProjectRow, b: { name: string; commit: CommitFacts }, canPush: boolean) {
  return {
    name: b.name,
    commit: renderCommit(c, project, b.commit),
    merged: false,
    protected: false,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: canPush,
    default: b.name === project.defaultBranch,
    web_url: webUrl(c, `${project.pathWithNamespace}/-/tree/${encodeRefPath(b.name)}`),
  };
}

export const renderTreeEntry = (e: TreeEntry) => ({ id: e.id, name: e.name, type: e.type, path: e.path, mode: e.mode });
