import { Hono, type Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../env";
import { originSettings } from "../../git/origin-client";
import { readBlob, readBranches, readCommit, readCommits, readTree } from "../../git/repository-reader";
import { reasonOf } from "../../domain/errors";
import { READ_API, requireAuth } from "./auth";
import { invalidParam, notFound } from "./errors";
import { loadProject } from "./load";
import { parsePage, setKeysetNext, setPaginationHeaders, treePageAfter, treePageToken } from "./pagination";
import { boolParam } from "./params";
import { renderBranch, renderCommit, renderCommitDetail, renderTreeEntry } from "./repository-view";
import { parseParams, queryParams } from "./validate";

/**
 * GitLab's Repository API, read-only (docs/rest-api.md, "Repository"): tree, files (and raw),
 * branches and commits, answered by the git origin (src/git/repository-reader.ts). Reading code
 * needs what fetching it needs: Reporter on a private project (a Guest gets 403), any signed-in
 * user on an internal or public one. The files endpoints also accept read_repository, as GitLab's
 * scope text promises ("the Repository Files API").
 */
const repository = new Hono<AppEnv>();

const FILE_SCOPES = [...READ_API, "read_repository"] as const;

async function loadReadableProject(c: Context<AppEnv>) {
  const { project, access } = await loadProject(c, c.req.param("id") ?? "", "read_code");
  return { project, access, origin: originSettings(c.env) };
}

/** The origin's refusals in GitLab's words: a 404 names what is missing, a 400 the parameter. */
async function gitlabMissing<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    const reason = reasonOf(err, ["missing", "invalid"] as const);
    if (reason === "missing") throw notFound(what);
    if (reason === "invalid") {
      const param = (err as { details: { what?: string } }).details.what ?? "ref";
      throw invalidParam(param);
    }
    throw err;
  }
}

const refOr = (ref: string | undefined, fallback: string) => (ref === undefined || ref === "" ? fallback : ref);

const TreeQuery = z.object({
  ref: z.string().max(255).optional(),
  path: z.string().max(4096).optional(),
  recursive: boolParam.optional(),
  pagination: z.enum(["offset", "keyset"]).optional(),
  page_token: z.string().max(8192).optional(),
});

/**
 * GitLab's tree listing, by offset (X-Total, X-Page, ...) or, with pagination=keyset, by page_token:
 * a Link rel="next" whose page_token names the page's last entry, and no total (GitLab, as Gitaly
 * pages the tree; docs/rest-api.md, "Repository").
 */
repository.get("/projects/:id/repository/tree", requireAuth(READ_API), async (c) => {
  const { project, origin } = await loadReadableProject(c);
  const q = parseParams(TreeQuery, queryParams(c));
  const page = parsePage(c);
  const keyset = q.pagination === "keyset";
  // GitLab reads page_token only with keyset pagination.
  const after = keyset && q.page_token !== undefined && q.page_token !== "" ? treePageAfter(q.page_token) : undefined;
  const { entries, total, hasNext } = await gitlabMissing("Tree Not Found", () =>
    readTree(origin, project.id, {
      ref: refOr(q.ref, project.defaultBranch),
      path: q.path,
      recursive: q.recursive === true,
      offset: keyset ? 0 : page.offset,
      limit: page.perPage,
      after,
    }),
  );
  if (keyset) {
    const last = entries[entries.length - 1];
    setKeysetNext(c, page.perPage, hasNext && last ? { page_token: treePageToken(last.path) } : null);
  } else {
    setPaginationHeaders(c, page, total);
  }
  return c.json(entries.map(renderTreeEntry));
});

/** A file's bytes as base64, without building one huge string of them. */
function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x6000) out += btoa(String.fromCharCode(...bytes.subarray(i, i + 0x6000)));
  return out;
}

const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

/** GitLab answers the file's facts in X-Gitlab-* headers too (HEAD /files/:file_path). */
function setFileHeaders(c: Context, facts: Record<string, string | number>) {
  for (const [k, v] of Object.entries(facts)) c.header(`X-Gitlab-${k}`, String(v));
}

repository.get("/projects/:id/repository/files/:file_path/raw", requireAuth(FILE_SCOPES), async (c) => {
  const { project, origin } = await loadReadableProject(c);
  const filePath = c.req.param("file_path");
  const ref = refOr(c.req.query("ref"), project.defaultBranch);
  const blob = await gitlabMissing("File Not Found", () => readBlob(origin, project.id, ref, filePath));
  setFileHeaders(c, { "Blob-Id": blob.blobId, "Commit-Id": blob.commitId, "Last-Commit-Id": blob.lastCommitId, "File-Path": filePath, Ref: ref });
  // Bytes someone pushed, served from this origin: never interpreted by a browser.
  c.header("Content-Type", "application/octet-stream");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Content-Security-Policy", "sandbox; default-src 'none'");
  c.header("Content-Disposition", `attachment; filename*=UTF-8''${encodeURIComponent(filePath.slice(filePath.lastIndexOf("/") + 1))}`);
  return c.body(blob.body as ReadableStream, 200);
});

repository.get("/projects/:id/repository/files/:file_path", requireAuth(FILE_SCOPES), async (c) => {
  const { project, origin } = await loadReadableProject(c);
  const filePath = c.req.param("file_path");
  const ref = c.req.query("ref");
  // GitLab: ref is required here (it is optional on /raw).
  if (ref === undefined || ref === "") throw invalidParam("ref", "is missing");
  const blob = await gitlabMissing("File Not Found", () => readBlob(origin, project.id, ref, filePath));
  const bytes = new Uint8Array(await new Response(blob.body).arrayBuffer());
  const sha256 = hex(await crypto.subtle.digest("SHA-256", bytes));
  const fileName = filePath.slice(filePath.lastIndexOf("/") + 1);
  setFileHeaders(c, { "Blob-Id": blob.blobId, "Commit-Id": blob.commitId, "Content-Sha256": sha256, Encoding: "base64", "File-Name": fileName, "File-Path": filePath, "Last-Commit-Id": blob.lastCommitId, Ref: ref, Size: bytes.length, "Execute-Filemode": String(blob.mode === "100755") });
  return c.json({
    file_name: fileName,
    file_path: filePath,
    size: bytes.length,
    encoding: "base64",
    content_sha256: sha256,
    ref,
    blob_id: blob.blobId,
    commit_id: blob.commitId,
    last_commit_id: blob.lastCommitId,
    execute_filemode: blob.mode === "100755",
    content: base64(bytes),
  });
});

/** GitLab's branch search: a substring, `^prefix` or `suffix$`, without regard to case. */
function matchesSearch(name: string, search: string | undefined): boolean {
  if (!search) return true;
  const n = name.toLowerCase();
  const s = search.toLowerCase();
  if (s.startsWith("^")) return n.startsWith(s.slice(1));
  if (s.endsWith("$")) return n.endsWith(s.slice(0, -1));
  return n.includes(s);
}

repository.get("/projects/:id/repository/branches", requireAuth(READ_API), async (c) => {
  const { project, access, origin } = await loadReadableProject(c);
  const q = parseParams(z.object({ search: z.string().max(255).optional() }), queryParams(c));
  const page = parsePage(c);
  const { branches } = await readBranches(origin, project.id);
  const found = branches.filter((b) => matchesSearch(b.name, q.search));
  setPaginationHeaders(c, page, found.length);
  const canPush = access.can("push_code");
  return c.json(found.slice(page.offset, page.offset + page.perPage).map((b) => renderBranch(c, project, b, canPush)));
});

repository.get("/projects/:id/repository/branches/:branch", requireAuth(READ_API), async (c) => {
  const { project, access, origin } = await loadReadableProject(c);
  const name = c.req.param("branch");
  const { branches } = await gitlabMissing("Branch Not Found", () => readBranches(origin, project.id, name));
  const branch = branches[0];
  if (!branch) throw notFound("Branch Not Found");
  return c.json(renderBranch(c, project, branch, access.can("push_code")));
});

const CommitsQuery = z.object({
  ref_name: z.string().max(255).optional(),
  path: z.string().max(4096).optional(),
  since: z.string().max(64).optional(),
  until: z.string().max(64).optional(),
});

repository.get("/projects/:id/repository/commits", requireAuth(READ_API), async (c) => {
  const { project, origin } = await loadReadableProject(c);
  const q = parseParams(CommitsQuery, queryParams(c));
  const page = parsePage(c);
  const { commits, hasNext } = await gitlabMissing("Commit Not Found", () =>
    readCommits(origin, project.id, { ref: refOr(q.ref_name, project.defaultBranch), path: q.path, since: q.since, until: q.until, offset: page.offset, limit: page.perPage }),
  );
  // GitLab counts no total for commits: the next page is known from one commit beyond this one.
  setPaginationHeaders(c, page, null, hasNext);
  return c.json(commits.map((f) => renderCommit(c, project, f)));
});

repository.get("/projects/:id/repository/commits/:sha", requireAuth(READ_API), async (c) => {
  const { project, origin } = await loadReadableProject(c);
  const commit = await gitlabMissing("Commit Not Found", () => readCommit(origin, project.id, c.req.param("sha")));
  return c.json(renderCommitDetail(c, project, commit));
});

export default repository;
