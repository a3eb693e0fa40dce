// The git origin's read-only endpoints (docs/git.md, "Reading a repository"): what GitLab's
// Repository API reads (tree, files, branches, commits), answered from a bare repository by
// `git ls-tree`, `git cat-file`, `git for-each-ref` and `git log`. scripts/git-origin.mjs verifies
// the Worker's signature before it calls here, and the Worker has already checked who may read the
// project. Every argument is validated here again (a ref is a name or an object id, never an
// option; a path never climbs out with `..`), git runs without a shell, paths are literal
// pathspecs (GIT_LITERAL_PATHSPECS), and every answer is bounded.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** A branch, tag or object id; never starts with "-" (an option) and never holds "..". */
const REF = /^(?!.*\.\.)(?!.*\/\/)(?!.*\/$)(?!.*\.lock$)[A-Za-z0-9_][A-Za-z0-9_./+-]{0,254}$/;
const SHA = /^[0-9a-f]{40}$/;
const MAX_PATH = 4096;
/** The most entries a tree listing reads (GitLab pages trees; this bounds one page's work). */
const MAX_TREE_ENTRIES = 100_000;
/** The most bytes of `git log` or `ls-tree` output read; more is cut (and the listing is bounded above). */
const MAX_TEXT_OUTPUT = 32 * 1024 * 1024;
/** The largest page a caller may ask for. */
const MAX_PAGE = 100;
const MAX_BRANCHES = 10_000;

class ReadError extends Error {
  constructor(status, what) {
    super(what);
    this.status = status;
  }
}

/** Runs git with no shell and no stdin; resolves with stdout (bounded) or rejects with stderr. */
function run(dir, args, { maxBytes = MAX_TEXT_OUTPUT, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_DIR: dir, GIT_LITERAL_PATHSPECS: "1", GIT_CONFIG_NOSYSTEM: "1", HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks = [];
    let size = 0;
    let err = "";
    child.stdout.on("data", (d) => {
      if (size >= maxBytes) return;
      chunks.push(d);
      size += d.length;
      if (size >= maxBytes) child.kill("SIGTERM");
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const out = Buffer.concat(chunks);
      if (code === 0 || allowFail || size >= maxBytes) resolve({ out, code });
      else reject(new Error(`git ${args[0]}: ${err.trim() || `exit ${code}`}`));
    });
  });
}

function checkRef(ref) {
  if (typeof ref !== "string" || !REF.test(ref)) throw new ReadError(400, "ref");
  return ref;
}

/** A path inside the repository: relative, no empty, "." or ".." segment, no control character. */
function checkPath(p, { allowEmpty }) {
  if (p === null || p === "") {
    if (allowEmpty) return "";
    throw new ReadError(400, "file_path");
  }
  const trimmed = p.replace(/\/+$/, "");
  const bad =
    trimmed.length > MAX_PATH ||
    /[\u0000-\u001f\u007f]/.test(trimmed) ||
    trimmed.startsWith("/") ||
    trimmed.split("/").some((s) => s === "" || s === "." || s === "..");
  if (bad) throw new ReadError(400, "file_path");
  return trimmed;
}

/** The commit a ref names, or null. An empty repository names none. */
async function resolveCommit(dir, ref) {
  const { out, code } = await run(dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], { allowFail: true });
  const sha = out.toString().trim();
  return code === 0 && SHA.test(sha) ? sha : null;
}

/** The entries of a tree listing: `<mode> <type> <id>\t<path>` NUL-separated. */
function parseTreeEntries(text, prefix) {
  const entries = [];
  for (const line of text.split("\0")) {
    if (!line) continue;
    const tab = line.indexOf("\t");
    const [mode, type, id] = line.slice(0, tab).split(" ");
    const rel = line.slice(tab + 1);
    const full = prefix ? `${prefix}/${rel}` : rel;
    entries.push({ id, name: full.slice(full.lastIndexOf("/") + 1), type, path: full, mode });
  }
  return entries;
}

const TYPE_ORDER = { tree: 0, blob: 1, commit: 2 };

/**
 * GET .../-/tree?ref&path&recursive&offset&limit[&after]: {entries, total, hasNext}; trees first, as
 * GitLab lists them. `after` (keyset, GitLab's page_token): the page starts after the entry with that
 * path in the same order, whatever its position; a path that is not an entry is a 400 (page_token).
 */
async function readTree(dir, q) {
  const ref = checkRef(q.get("ref"));
  const dirPath = checkPath(q.get("path"), { allowEmpty: true });
  const commit = await resolveCommit(dir, ref);
  if (!commit) throw new ReadError(404, "tree");
  const treeish = dirPath ? `${commit}:${dirPath}` : `${commit}^{tree}`;
  const type = await run(dir, ["cat-file", "-t", "--end-of-options", treeish], { allowFail: true });
  if (type.code !== 0 || type.out.toString().trim() !== "tree") throw new ReadError(404, "tree");
  const args = ["ls-tree", "-z"];
  if (q.get("recursive") === "true") args.push("-r", "-t");
  args.push("--end-of-options", treeish);
  const { out } = await run(dir, args);
  const entries = parseTreeEntries(out.toString("utf8"), dirPath).slice(0, MAX_TREE_ENTRIES);
  if (q.get("recursive") !== "true") entries.sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type]);
  const after = q.get("after");
  const offset = after === null ? boundedInt(q.get("offset"), 0, MAX_TREE_ENTRIES) : entryAfter(entries, after);
  const limit = boundedInt(q.get("limit"), 20, MAX_PAGE);
  return { entries: entries.slice(offset, offset + limit), total: entries.length, hasNext: offset + limit < entries.length };
}

/** The position just after the entry whose path is `after` (a keyset page's start). */
function entryAfter(entries, after) {
  const at = after.length <= MAX_PATH ? entries.findIndex((e) => e.path === after) : -1;
  if (at < 0) throw new ReadError(400, "page_token");
  return at + 1;
}

function boundedInt(raw, fallback, max) {
  if (raw === null || raw === "") return fallback;
  if (!/^[0-9]{1,9}$/.test(raw)) throw new ReadError(400, "page");
  return Math.min(Number(raw), max);
}

/** The commit fields GitLab's commit entity carries, in git's pretty-format placeholders. */
const COMMIT_FIELDS = ["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"];
const COMMIT_FORMAT = `${COMMIT_FIELDS.join("%x1f")}%x1e`;

function parseCommits(text) {
  return text
    .split("\x1e")
    .map((r) => r.replace(/^\n/, ""))
    .filter((r) => r !== "")
    .map((r) => {
      const [id, parents, authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, message] = r.split("\x1f");
      return { id, parentIds: parents ? parents.split(" ") : [], authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, message };
    });
}

/** An ISO 8601 time for --since/--until; anything else is refused (it would reach git's date parser). */
function checkTime(raw, name) {
  if (raw === null || raw === "") return null;
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) || Number.isNaN(Date.parse(raw))) throw new ReadError(400, name);
  return raw;
}

/** GET .../-/commits?ref&path&since&until&offset&limit: {commits, hasNext} (newest first). */
async function readCommits(dir, q) {
  const ref = checkRef(q.get("ref"));
  const filePath = checkPath(q.get("path"), { allowEmpty: true });
  const since = checkTime(q.get("since"), "since");
  const until = checkTime(q.get("until"), "until");
  const commit = await resolveCommit(dir, ref);
  if (!commit) throw new ReadError(404, "ref");
  const offset = boundedInt(q.get("offset"), 0, 1_000_000);
  const limit = boundedInt(q.get("limit"), 20, MAX_PAGE);
  const args = ["log", `--format=${COMMIT_FORMAT}`, `--skip=${offset}`, `--max-count=${limit + 1}`];
  if (since) args.push(`--since=${since}`);
  if (until) args.push(`--until=${until}`);
  args.push("--end-of-options", commit, "--");
  if (filePath) args.push(filePath);
  const commits = parseCommits((await run(dir, args)).out.toString("utf8"));
  return { commits: commits.slice(0, limit), hasNext: commits.length > limit };
}

/** GET .../-/commit?sha: one commit with its line stats, or 404. */
async function readCommit(dir, q) {
  const commit = await resolveCommit(dir, checkRef(q.get("sha")));
  if (!commit) throw new ReadError(404, "commit");
  const [entry] = parseCommits((await run(dir, ["log", "-1", `--format=${COMMIT_FORMAT}`, "--end-of-options", commit, "--"])).out.toString("utf8"));
  const numstat = (await run(dir, ["diff-tree", "--numstat", "-r", "--root", "--no-commit-id", "--end-of-options", commit])).out.toString("utf8");
  let additions = 0;
  let deletions = 0;
  for (const line of numstat.split("\n")) {
    const [a, d] = line.split("\t");
    if (/^\d+$/.test(a ?? "")) additions += Number(a);
    if (/^\d+$/.test(d ?? "")) deletions += Number(d);
  }
  return { ...entry, stats: { additions, deletions, total: additions + deletions } };
}

const BRANCH_FIELDS = ["%(refname:strip=2)", "%(objectname)", "%(parent)", "%(authorname)", "%(authoremail:trim)", "%(authordate:iso-strict)", "%(committername)", "%(committeremail:trim)", "%(committerdate:iso-strict)", "%(contents)"];

/** GET .../-/branches[?name]: every branch (bounded) with its head commit, by name. */
async function readBranches(dir, q) {
  const name = q.get("name");
  const pattern = name === null ? "refs/heads/" : `refs/heads/${checkRef(name)}`;
  const args = ["for-each-ref", `--count=${MAX_BRANCHES}`, "--sort=refname", `--format=${BRANCH_FIELDS.join("%1f")}%1e`, "--end-of-options", pattern];
  const text = (await run(dir, args)).out.toString("utf8");
  const branches = text
    .split("\x1e")
    .map((r) => r.replace(/^\n/, ""))
    .filter((r) => r !== "")
    .map((r) => {
      const [branch, id, parents, authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, message] = r.split("\x1f");
      return { name: branch, commit: { id, parentIds: parents ? parents.split(" ") : [], authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, message } };
    })
    // for-each-ref matches a prefix by path components; a single branch is an exact name.
    .filter((b) => name === null || b.name === name);
  const head = await run(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"], { allowFail: true });
  return { branches, defaultBranch: head.code === 0 ? head.out.toString().trim() : null };
}

/**
 * GET .../-/blob?ref&path: the file's bytes, its facts in headers (x-blob-id, x-blob-mode,
 * x-commit-id, x-last-commit-id), or 404 when the ref or the file is missing.
 */
async function readBlob(dir, q, res) {
  const ref = checkRef(q.get("ref"));
  const filePath = checkPath(q.get("path"), { allowEmpty: false });
  const commit = await resolveCommit(dir, ref);
  if (!commit) throw new ReadError(404, "ref");
  const entry = parseTreeEntries((await run(dir, ["ls-tree", "-z", "--full-tree", "--end-of-options", commit, "--", filePath])).out.toString("utf8"), "");
  const file = entry.find((e) => e.path === filePath && e.type === "blob");
  if (!file) throw new ReadError(404, "file");
  const last = (await run(dir, ["log", "-1", "--format=%H", "--end-of-options", commit, "--", filePath])).out.toString().trim();
  res.writeHead(200, {
    "Content-Type": "application/octet-stream",
    "x-blob-id": file.id,
    "x-blob-mode": file.mode,
    "x-commit-id": commit,
    "x-last-commit-id": last,
  });
  const child = spawn("git", ["cat-file", "blob", file.id], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_DIR: dir }, stdio: ["ignore", "pipe", "ignore"] });
  child.stdout.pipe(res);
  res.on("close", () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
}

const OPERATIONS = { tree: readTree, commits: readCommits, commit: readCommit, branches: readBranches };

/** Read paths below a repository: /-/repositories/<storage>/-/<operation>. */
export const READ_OPERATIONS = ["tree", "commits", "commit", "branches", "blob"];

/**
 * Answers one read. A repository not created yet (the origin was down when its project was made)
 * reads as empty: no branches, and every ref unknown.
 */
export async function serveRepositoryRead(root, repo, operation, url, res) {
  const dir = path.join(root, repo);
  const json = (status, body) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  try {
    if (!existsSync(path.join(dir, "HEAD"))) {
      if (operation === "branches") return json(200, { branches: [], defaultBranch: null });
      throw new ReadError(404, operation === "tree" ? "tree" : operation === "commit" ? "commit" : "ref");
    }
    if (operation === "blob") return await readBlob(dir, url.searchParams, res);
    return json(200, await OPERATIONS[operation](dir, url.searchParams));
  } catch (err) {
    if (err instanceof ReadError) return json(err.status, { error: err.message });
    throw err;
  }
}
