import { AppError } from "../domain/errors";
import { originFetch, repositoryStoragePath, type OriginSettings } from "./origin-client";

/**
 * Reading a project's repository without cloning it (docs/git.md, "Reading a repository"): the
 * Worker's side of the origin's read-only endpoints (scripts/git-read.mjs). Callers have already
 * decided the reader may read the project's code; this only asks the origin and types its answer.
 * Failures are the origin's: `missing` (404, `what` names the ref, tree, file or commit that is not
 * there) or `invalid` (400, `what` names the parameter it refused).
 */

export interface TreeEntry {
  id: string;
  name: string;
  type: "tree" | "blob" | "commit";
  path: string;
  mode: string;
}

export interface CommitFacts {
  id: string;
  parentIds: string[];
  authorName: string;
  authorEmail: string;
  authoredDate: string;
  committerName: string;
  committerEmail: string;
  committedDate: string;
  message: string;
  stats?: { additions: number; deletions: number; total: number };
}

export interface BlobFacts {
  blobId: string;
  mode: string;
  commitId: string;
  lastCommitId: string;
  body: ReadableStream<Uint8Array> | null;
}

/** What the origin refused: a parameter (400) or something not there (404). */
export const repositoryReadFailed = (status: 400 | 404, what: string) =>
  new AppError(status === 404 ? "not_found" : "invalid", `${what} ${status === 404 ? "not found" : "is invalid"}`, { reason: status === 404 ? "missing" : "invalid", what });

type Query = Record<string, string | number | boolean | null | undefined>;

async function read(origin: OriginSettings, projectId: number, operation: string, query: Query): Promise<Response> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== "") params.set(k, String(v));
  const target = `/-/repositories/${await repositoryStoragePath(projectId)}/-/${operation}?${params}`;
  const res = await originFetch(origin, { method: "GET", target });
  if (res.status === 400 || res.status === 404) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw repositoryReadFailed(res.status, body.error ?? operation);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new AppError("bad_gateway", "The git storage is unavailable; try again later.", { reason: "unreachable" });
  }
  return res;
}

/**
 * A page of a tree, trees first. `after` (keyset): the page starts after the entry with that path,
 * in place of `offset`; the origin refuses a path that is not an entry (`invalid`, what: page_token).
 */
export async function readTree(origin: OriginSettings, projectId: number, q: { ref: string; path?: string; recursive: boolean; offset: number; limit: number; after?: string }) {
  const res = await read(origin, projectId, "tree", { ...q, recursive: q.recursive ? "true" : null });
  return (await res.json()) as { entries: TreeEntry[]; total: number; hasNext: boolean };
}

export async function readCommits(origin: OriginSettings, projectId: number, q: { ref: string; path?: string; since?: string; until?: string; offset: number; limit: number }) {
  const res = await read(origin, projectId, "commits", q);
  return (await res.json()) as { commits: CommitFacts[]; hasNext: boolean };
}

export async function readCommit(origin: OriginSettings, projectId: number, sha: string): Promise<CommitFacts> {
  return (await (await read(origin, projectId, "commit", { sha })).json()) as CommitFacts;
}

/** Every branch (name given: that one only) and the repository's HEAD branch. */
export async function readBranches(origin: OriginSettings, projectId: number, name?: string) {
  const res = await read(origin, projectId, "branches", { name });
  return (await res.json()) as { branches: { name: string; commit: CommitFacts }[]; defaultBranch: string | null };
}

/** A file at a ref: its facts, and its bytes as a stream the caller reads or passes on. */
export async function readBlob(origin: OriginSettings, projectId: number, ref: string, path: string): Promise<BlobFacts> {
  const res = await read(origin, projectId, "blob", { ref, path });
  const h = (name: string) => res.headers.get(name) ?? "";
  return { blobId: h("x-blob-id"), mode: h("x-blob-mode"), commitId: h("x-commit-id"), lastCommitId: h("x-last-commit-id"), body: res.body };
}

/** A ref or file path in a page URL: each segment encoded, the slashes kept (GitLab's /-/tree/<ref>/<path>). */
export const encodeRefPath = (p: string) => p.split("/").map(encodeURIComponent).join("/");
