// The local git origin for `npm start`: `git http-backend` (CGI) behind a small HTTP host on
// 127.0.0.1. Only the gateway (src/git/) talks to it: the gateway has already authenticated the
// caller and authorised the project, and names the user in X-Remote-User (REMOTE_USER enables
// receive-pack in http-backend). Nothing here checks credentials, so it listens on loopback only.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

// <namespace>/<project>.git/<git path>; each segment as GitLab allows (no "..", no leading dot).
const SEGMENT = "[A-Za-z0-9_][A-Za-z0-9_.-]*";
const REPO_PATH = new RegExp(`^/((?:${SEGMENT}/)+${SEGMENT}\\.git)(/(?:info/refs|git-upload-pack|git-receive-pack))$`);

/** Repositories being created: concurrent first requests wait for the same `git init`. */
const initialising = new Map();

/** Creates the bare repository on first access: the gateway only forwards authorised projects. */
function ensureBareRepo(root, repo) {
  const dir = path.join(root, repo);
  if (initialising.has(dir)) return initialising.get(dir);
  if (existsSync(path.join(dir, "HEAD"))) return Promise.resolve();
  const done = new Promise((resolve, reject) => {
    mkdirSync(path.dirname(dir), { recursive: true });
    const git = spawn("git", ["init", "--quiet", "--bare", "--initial-branch=main", dir], { stdio: "ignore" });
    git.on("error", reject);
    git.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`git init exited with ${code}`))));
  }).finally(() => initialising.delete(dir));
  initialising.set(dir, done);
  return done;
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

export function createGitOriginServer(root) {
  mkdirSync(root, { recursive: true });
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://origin.invalid");
    const m = REPO_PATH.exec(decodeURIComponent(url.pathname));
    if (!m || (req.method !== "GET" && req.method !== "POST")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
      return;
    }
    try {
      await ensureBareRepo(root, m[1]);
    } catch (err) {
      res.writeHead(500, { "Content-Type": "text/plain" }).end("could not create the repository\n");
      console.error("git origin:", err.message);
      return;
    }
    const remoteUser = req.headers["x-remote-user"];
    const cgiEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_HTTP_MAX_REQUEST_BUFFER: "100M",
      PATH_INFO: `/${m[1]}${m[2]}`,
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
  });
}

/**
 * Starts the origin on a random free loopback port and returns its URL (npm start passes it to the
 * Worker as GIT_ORIGIN). The server lives in the caller's process, so it stops when npm start stops;
 * `unref` lets a test runner exit without closing it. Without a directory, repositories live in a
 * temporary one that is removed when the process exits (the workerd tests use that).
 */
export async function startGitOrigin(dir, { unref = false } = {}) {
  let root = dir;
  if (!root) {
    const temp = mkdtempSync(path.join(tmpdir(), "git-origin-"));
    process.on("exit", () => rmSync(temp, { recursive: true, force: true }));
    root = temp;
  }
  const server = createGitOriginServer(root);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  if (unref) server.unref();
  const { port } = server.address();
  return `http://127.0.0.1:${port}`;
}
