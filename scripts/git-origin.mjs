#!/usr/bin/env node
// The git origin: the one program that holds the repositories, both under `npm start` (which
// starts it on loopback) and deployed (`node scripts/git-origin.mjs`, docs/deploy.md). It runs
// `git http-backend` (CGI) for git's smart HTTP protocol and creates and deletes repositories when
// the Worker says a project was created or deleted, and answers read-only reads of a repository
// (tree, files, branches, commits; scripts/git-read.mjs) for GitLab's Repository API. It checks no
// user credentials: it serves only
// requests the Worker signed with the shared GIT_ORIGIN_SECRET (src/git/origin-signature.ts), each
// once, within a minute of signing. The Worker has already authenticated the caller and authorised
// the project, and names the user in X-Remote-User (REMOTE_USER enables receive-pack).
//
// Repositories are stored by project id as GitLab's hashed storage does
// (@hashed/<h[0..2]>/<h[2..4]>/<h>.git, h = SHA-256 of the id), so renaming or moving a project
// or a group never moves a repository.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exitUnlessSupportedNode } from "./node-version.mjs";

// Before the TypeScript it shares with the Worker: an older Node is told what to run instead of crashing.
exitUnlessSupportedNode("scripts/git-origin.mjs");
const { MIN_ORIGIN_SECRET_LENGTH } = await import("../src/config-variables.ts");
const { SIGNATURE_HEADERS, UNSIGNED_PAYLOAD, MAX_CLOCK_SKEW_SECONDS, sha256HexOf, signatureProblem } = await import("../src/git/origin-signature.ts");
const { READ_OPERATIONS, serveRepositoryRead } = await import("./git-read.mjs");

const STORAGE = "@hashed/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}\\.git";
const GIT_PATH = new RegExp(`^/(${STORAGE})(/(?:info/refs|git-upload-pack|git-receive-pack))$`);
const REPOSITORY_PATH = new RegExp(`^/-/repositories/(${STORAGE})$`);
const READ_PATH = new RegExp(`^/-/repositories/(${STORAGE})/-/(${READ_OPERATIONS.join("|")})$`);
const BRANCH = /^(?!.*\.\.)(?!\/)(?!.*\/$)[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;
const MAX_PROVISION_BODY = 1024 * 1024;

/** Runs git with the given arguments and stdin; resolves with stdout, rejects with stderr. */
function git(args, { input, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    // "close", not "exit": a process may exit before its output is read, and a blob id read as ""
    // then broke the initial commit under load (mktree: "input format error").
    child.on("close", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args[0]}: ${err.trim() || `exit ${code}`}`))));
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}

/** Repositories being created: concurrent first requests wait for the same `git init`. */
const initialising = new Map();

/** Creates the bare repository unless it exists; resolves to true when it was created now. */
function ensureBareRepo(root, repo, branch = "main") {
  const dir = path.join(root, repo);
  if (initialising.has(dir)) return initialising.get(dir).then(() => false);
  if (existsSync(path.join(dir, "HEAD"))) return Promise.resolve(false);
  mkdirSync(path.dirname(dir), { recursive: true });
  const done = git(["init", "--quiet", "--bare", `--initial-branch=${branch}`, dir]).finally(() => initialising.delete(dir));
  initialising.set(dir, done);
  return done.then(() => true);
}

/** The first commit of an empty repository (GitLab's initialize_with_readme): files at the root. */
async function initialCommit(dir, branch, commit) {
  const env = {
    GIT_DIR: dir,
    GIT_AUTHOR_NAME: commit.author.name,
    GIT_AUTHOR_EMAIL: commit.author.email,
    GIT_COMMITTER_NAME: commit.author.name,
    GIT_COMMITTER_EMAIL: commit.author.email,
  };
  // Already has a commit on that branch (a retried request): nothing to do.
  const existing = await git(["for-each-ref", "--format=%(refname)", `refs/heads/${branch}`], { env });
  if (existing) return;
  const lines = [];
  for (const [name, content] of Object.entries(commit.files)) {
    const blob = await git(["hash-object", "-w", "--stdin"], { env, input: content });
    lines.push(`100644 blob ${blob}\t${name}`);
  }
  const tree = await git(["mktree"], { env, input: `${lines.join("\n")}\n` });
  const sha = await git(["commit-tree", tree, "-m", commit.message], { env });
  // The all-zero old value: created only if the branch still does not exist.
  await git(["update-ref", `refs/heads/${branch}`, sha, "0".repeat(40)], { env });
  await git(["symbolic-ref", "HEAD", `refs/heads/${branch}`], { env });
}

/** A provisioning body: {"default_branch": "...", "initial_commit": {"message", "author": {name, email}, "files": {name: text}}}. */
function parseProvision(text) {
  const body = text ? JSON.parse(text) : {};
  const branch = body.default_branch ?? "main";
  if (typeof branch !== "string" || !BRANCH.test(branch)) throw new Error("default_branch is not a valid branch name");
  const c = body.initial_commit;
  if (c === undefined || c === null) return { branch, commit: null };
  const ok =
    typeof c.message === "string" &&
    c.message !== "" &&
    typeof c.author?.name === "string" &&
    typeof c.author?.email === "string" &&
    c.files &&
    typeof c.files === "object" &&
    Object.entries(c.files).every(([n, v]) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(n) && typeof v === "string");
  if (!ok) throw new Error("initial_commit needs message, author {name, email} and files {name: text}");
  return { branch, commit: c };
}

/** Splits the CGI output into its header block and the streamed body that follows. */
function pipeCgiResponse(child, res) {
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk) => {
    if (headersDone) {
      if (!res.write(chunk)) {
        child.stdout.pause();
        res.once("drain", () => child.stdout.resume());
      }
      return;
    }
    head = Buffer.concat([head, chunk]);
    let end = head.indexOf("\r\n\r\n");
    let sepLen = 4;
    if (end < 0) {
      end = head.indexOf("\n\n");
      sepLen = 2;
    }
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers = {};
    for (const line of head.subarray(0, end).toString("latin1").split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i < 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 500;
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    const rest = head.subarray(end + sepLen);
    if (rest.length) res.write(rest);
  });
  child.stdout.on("end", () => {
    if (!headersDone) {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("git http-backend produced no response\n");
    } else res.end();
  });
}

function serveGit(root, req, res, url, repo, gitPath) {
  const remoteUser = req.headers["x-remote-user"];
  const cgiEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_HTTP_MAX_REQUEST_BUFFER: "100M",
    PATH_INFO: `/${repo}${gitPath}`,
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method,
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    GATEWAY_INTERFACE: "CGI/1.1",
    SERVER_PROTOCOL: "HTTP/1.1",
    REMOTE_ADDR: "127.0.0.1",
  };
  if (typeof remoteUser === "string" && remoteUser !== "") cgiEnv.REMOTE_USER = remoteUser;
  if (req.headers["content-length"]) cgiEnv.CONTENT_LENGTH = req.headers["content-length"];
  if (req.headers["content-encoding"]) cgiEnv.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];
  if (req.headers["git-protocol"]) cgiEnv.HTTP_GIT_PROTOCOL = req.headers["git-protocol"];

  const child = spawn("git", ["http-backend"], { env: cgiEnv, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr.on("data", (d) => console.error("git http-backend:", d.toString().trimEnd()));
  child.on("error", (err) => {
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
    res.end(`git http-backend failed: ${err.message}\n`);
  });
  // The request body streams into the CGI as it arrives (packs are never held in memory).
  req.pipe(child.stdin);
  child.stdin.on("error", () => {}); // http-backend may exit before reading a refused request
  pipeCgiResponse(child, res);
  res.on("close", () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
}

/** Reads a small body (provisioning JSON), refusing more than MAX_PROVISION_BODY bytes. */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_PROVISION_BODY) {
        reject(new Error("body too large"));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Nonces seen within the clock-skew window: a signed request is served once. */
function nonceLedger() {
  const seen = new Map();
  return {
    /** False when the nonce was already used. */
    claim(nonce, nowSeconds) {
      if (seen.size > 10_000) for (const [n, exp] of seen) if (exp < nowSeconds) seen.delete(n);
      if (seen.has(nonce)) return false;
      seen.set(nonce, nowSeconds + 2 * MAX_CLOCK_SKEW_SECONDS);
      return true;
    },
  };
}

const text = (res, status, body) => res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(`${body}\n`);
const json = (res, status, body) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));

export function createGitOriginServer(root, secret) {
  if (typeof secret !== "string" || secret.length < MIN_ORIGIN_SECRET_LENGTH) {
    throw new Error(`GIT_ORIGIN_SECRET must hold at least ${MIN_ORIGIN_SECRET_LENGTH} characters (for example openssl rand -hex 32)`);
  }
  mkdirSync(root, { recursive: true });
  const nonces = nonceLedger();
  let gitVersion = null;

  return createServer(async (req, res) => {
    // One connection per request: a kept-alive connection that Node closes after its idle timeout
    // while the Worker sends its next request on it is a "Network connection lost" (a 502 at the
    // gateway, seen under load); a new loopback connection costs next to nothing.
    res.shouldKeepAlive = false;
    const target = req.url ?? "/";
    const url = new URL(target, "http://origin.invalid");
    const h = (name) => (typeof req.headers[name] === "string" ? req.headers[name] : "");
    const now = Math.floor(Date.now() / 1000);
    const parts = {
      method: req.method ?? "GET",
      target,
      date: Number(h(SIGNATURE_HEADERS.date) || "x"),
      nonce: h(SIGNATURE_HEADERS.nonce),
      remoteUser: h("x-remote-user"),
      contentSha256: h(SIGNATURE_HEADERS.contentSha256),
    };
    // Every request, health included, is signed: nothing here is served to anyone but the Worker.
    const problem = await signatureProblem(secret, parts, h(SIGNATURE_HEADERS.signature), now);
    if (problem) return text(res, 401, `refused: ${problem}`);
    if (!nonces.claim(parts.nonce, now)) return text(res, 401, "refused: this signed request was already served (replay)");

    try {
      if (url.pathname === "/-/health" && req.method === "GET") {
        accessSync(root, constants.W_OK);
        gitVersion ??= await git(["--version"]);
        return json(res, 200, { status: "ok", git: gitVersion });
      }
      const repoMatch = REPOSITORY_PATH.exec(url.pathname);
      if (repoMatch) {
        const dir = path.join(root, repoMatch[1]);
        if (req.method === "DELETE") {
          await rm(dir, { recursive: true, force: true });
          return res.writeHead(204).end();
        }
        if (req.method === "PUT") {
          const body = await readBody(req);
          if (parts.contentSha256 === UNSIGNED_PAYLOAD || (await sha256HexOf(body)) !== parts.contentSha256) {
            return text(res, 401, "refused: the body does not match x-origin-content-sha256");
          }
          let provision;
          try {
            provision = parseProvision(body.toString("utf8"));
          } catch (err) {
            return text(res, 400, err.message);
          }
          const created = await ensureBareRepo(root, repoMatch[1], provision.branch);
          if (provision.commit) await initialCommit(dir, provision.branch, provision.commit);
          return json(res, created ? 201 : 200, { created });
        }
        return text(res, 405, "PUT or DELETE");
      }
      // Read-only reads of a repository (scripts/git-read.mjs): GitLab's Repository API.
      const read = READ_PATH.exec(url.pathname);
      if (read) {
        if (req.method !== "GET") return text(res, 405, "GET");
        return await serveRepositoryRead(root, read[1], read[2], url, res);
      }
      const m = GIT_PATH.exec(url.pathname);
      if (!m || (req.method !== "GET" && req.method !== "POST")) return text(res, 404, "Not found");
      // The Worker forwards only authorised projects: one created while the origin was down
      // gets its repository on first access.
      await ensureBareRepo(root, m[1]);
      return serveGit(root, req, res, url, m[1], m[2]);
    } catch (err) {
      console.error("git origin:", err.message);
      if (!res.headersSent) text(res, 500, "the git origin failed; see its log");
      else res.end();
    }
  });
}

/**
 * Starts the origin on a free loopback port; `npm start` and the workerd tests use it in-process.
 * Returns its URL and the secret it accepts (a fresh random one unless given). Without a
 * directory, repositories live in a temporary one removed when the process exits.
 */
export async function startGitOrigin(dir, { unref = false, secret = randomBytes(32).toString("hex") } = {}) {
  let root = dir;
  if (!root) {
    const temp = mkdtempSync(path.join(tmpdir(), "git-origin-"));
    process.on("exit", () => rmSync(temp, { recursive: true, force: true }));
    root = temp;
  }
  const server = createGitOriginServer(root, secret);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  if (unref) server.unref();
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, secret };
}

/**
 * Starts the origin as a program of its own on a free loopback port, with repositories in a
 * temporary directory, for the workerd tests (vitest.config.ts). The origin runs `git` several
 * times for every request, and each spawn forks the process that runs it: from vitest's main
 * process, which holds every lane's transformed modules, a fork costs milliseconds of copied page
 * tables, several seconds of CPU over the suite. The program ends when this process does (its
 * stdin closes).
 */
export async function startGitOriginProcess({ secret = randomBytes(32).toString("hex") } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), "git-origin-"));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--root", root, "--listen", "127.0.0.1:0", "--until-stdin-closes"], {
    env: { ...process.env, GIT_ORIGIN_SECRET: secret },
    stdio: ["pipe", "pipe", "inherit"],
  });
  process.on("exit", () => {
    child.kill();
    rmSync(root, { recursive: true, force: true });
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`git origin exited with ${code} before serving`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const served = / on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (served) resolve(served[1]);
    });
  });
  child.removeAllListeners("exit");
  child.stdout.destroy();
  // Neither the child nor its pipe keeps this process alive; the pipe's end is the child's signal to stop.
  child.unref();
  child.stdin.unref?.();
  return { url, secret };
}

// Run as a program (deployed): node scripts/git-origin.mjs --root /srv/git --listen 127.0.0.1:8790,
// the secret from the environment (never the command line, where ps shows it). Port 0 takes a free
// port, which the line it prints names; --until-stdin-closes ends it when its parent goes.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
  };
  const root = path.resolve(option("--root", process.env.GIT_ORIGIN_ROOT ?? "/var/lib/edge-auth-git"));
  const listen = option("--listen", process.env.GIT_ORIGIN_LISTEN ?? "127.0.0.1:8790");
  const at = listen.lastIndexOf(":");
  const host = listen.slice(0, at);
  const port = Number(listen.slice(at + 1));
  if (!host || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`git origin: --listen must be host:port, not ${listen}`);
    process.exit(2);
  }
  let server;
  try {
    server = createGitOriginServer(root, process.env.GIT_ORIGIN_SECRET);
  } catch (err) {
    console.error(`git origin: ${err.message}`);
    process.exit(2);
  }
  server.once("error", (err) => {
    console.error(`git origin: cannot listen on ${listen}: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, host, () => console.log(`git origin: serving ${root} on http://${host}:${server.address().port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  if (args.includes("--until-stdin-closes")) {
    process.stdin.on("end", () => process.exit(0));
    process.stdin.on("error", () => process.exit(0));
    process.stdin.resume();
  }
}
