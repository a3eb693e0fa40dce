import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, passwordGrant } from "./pages-support";
import { cleanGitEnv } from "./git-env";

/**
 * Git over HTTPS end to end (DESIGN.md "Git over HTTPS"; oauth-service.md "Git over HTTPS"): the real
 * git CLI against `npm start`, whose gateway forwards to its local `git http-backend`. Users,
 * tokens and projects are made through GitLab's documented admin API, password grant and projects API.
 */
const run = promisify(execFile);
const base = inject("baseURL");
const work = mkdtempSync(path.join(tmpdir(), "git-e2e-"));
const gitEnv = cleanGitEnv(work);

async function git(args: string[], cwd = work): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await run("git", ["-c", "credential.helper=", "-c", "init.defaultBranch=main", ...args], {
      cwd,
      env: gitEnv,
      timeout: 60_000,
      maxBuffer: 10 * 1024 * 1024,
    });
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}

function remote(user: string, token: string, projectPath: string, suffix = ".git"): string {
  const u = new URL(`${base}/${projectPath}${suffix}`);
  u.username = user;
  u.password = token;
  return u.toString();
}

const api = (method: string, p: string, token: string, body?: unknown) => apiCall(base, method, p, token, body);

const suffix = randomBytes(4).toString("hex");
const password = `Git-e2e-${randomBytes(8).toString("hex")}`;
let username = "";
let oauthToken = "";
let writePat = "";
let readPat = "";
let projectPath = "";

beforeAll(async () => {
  const rootToken = await passwordGrant(base, "root", inject("rootPassword"));
  username = `gitter${suffix}`;
  const user = await api("POST", "/users", rootToken, {
    username,
    name: "Git Tester",
    email: `${username}@example.com`,
    password,
    skip_confirmation: true,
  });
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const mkPat = async (scopes: string[]) =>
    (await api("POST", `/users/${user.id}/personal_access_tokens`, rootToken, { name: `git-${scopes.join("-")}`, scopes, expires_at })).token as string;
  writePat = await mkPat(["write_repository"]);
  readPat = await mkPat(["read_repository"]);
  const apiPat = await mkPat(["api"]);
  const project = await api("POST", "/projects", apiPat, { name: `Repo ${suffix}`, path: `repo-${suffix}`, visibility: "private" });
  projectPath = project.path_with_namespace;
  oauthToken = await passwordGrant(base, username, password);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("Git over HTTPS with the git CLI (spec: the token is the password, user name oauth2)", () => {
  it("clones an empty project and pushes a commit with oauth2:<OAuth access token>", async () => {
    const clone = await git(["clone", remote("oauth2", oauthToken, projectPath), "oauth-clone"]);
    expect(clone.ok, clone.out).toBe(true);
    const dir = path.join(work, "oauth-clone");
    writeFileSync(path.join(dir, "README.md"), `hello ${suffix}\n`);
    // A 3 MiB incompressible file: the push body exceeds git's post buffer and is sent chunked.
    writeFileSync(path.join(dir, "blob.bin"), randomBytes(3 * 1024 * 1024));
    expect((await git(["add", "."], dir)).ok).toBe(true);
    expect((await git(["commit", "-m", "first"], dir)).ok).toBe(true);
    const push = await git(["push", "origin", "HEAD:main"], dir);
    expect(push.ok, push.out).toBe(true);
  });

  it("clones with a personal access token under any user name and sees the pushed commit", async () => {
    const clone = await git(["clone", remote("any-name", readPat, projectPath), "pat-clone"]);
    expect(clone.ok, clone.out).toBe(true);
    expect(readFileSync(path.join(work, "pat-clone", "README.md"), "utf8")).toBe(`hello ${suffix}\n`);
    expect(readFileSync(path.join(work, "pat-clone", "blob.bin")).length).toBe(3 * 1024 * 1024);
  });

  it("pushes with a write_repository personal access token under the owner's user name", async () => {
    const dir = path.join(work, "pat-clone");
    writeFileSync(path.join(dir, "second.txt"), "second\n");
    await git(["add", "."], dir);
    await git(["commit", "-m", "second"], dir);
    const push = await git(["push", remote(username, writePat, projectPath), "HEAD:main"], dir);
    expect(push.ok, push.out).toBe(true);
    const fetched = await git(["fetch", remote("oauth2", oauthToken, projectPath), "main"], path.join(work, "oauth-clone"));
    expect(fetched.ok, fetched.out).toBe(true);
  });

  it("follows GitLab's redirect for a URL without .git", async () => {
    const ls = await git(["ls-remote", remote("u", readPat, projectPath, ""), "refs/heads/main"]);
    expect(ls.ok, ls.out).toBe(true);
    expect(ls.out).toMatch(/^[0-9a-f]{40}\trefs\/heads\/main/m);
  });

  it("refuses a push with a read-only token: 403", async () => {
    const dir = path.join(work, "pat-clone");
    writeFileSync(path.join(dir, "third.txt"), "third\n");
    await git(["add", "."], dir);
    await git(["commit", "-m", "third"], dir);
    const push = await git(["push", remote("u", readPat, projectPath), "HEAD:main"], dir);
    expect(push.ok).toBe(false);
    expect(push.out).toContain("403");
    const raw = await fetch(`${base}/${projectPath}.git/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`u:${readPat}`).toString("base64")}` },
    });
    expect(raw.status).toBe(403);
  });

  it("answers a bad token with 401 and a Basic challenge (git reports an authentication failure)", async () => {
    const clone = await git(["clone", remote("oauth2", "not-a-valid-token", projectPath), "bad-clone"]);
    expect(clone.ok).toBe(false);
    expect(clone.out).toMatch(/Authentication failed|401/);
    const raw = await fetch(`${base}/${projectPath}.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from("oauth2:not-a-valid-token").toString("base64")}` },
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
  });

  it("answers an unknown project with 404", async () => {
    const clone = await git(["clone", remote("oauth2", oauthToken, `${username}/no-such-${suffix}`), "missing-clone"]);
    expect(clone.ok).toBe(false);
    expect(clone.out).toMatch(/not found|404/);
    const raw = await fetch(`${base}/${username}/no-such-${suffix}.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${oauthToken}`).toString("base64")}` },
    });
    expect(raw.status).toBe(404);
  });
});

describe("the demo project of npm start has a first commit (a first clone shows content)", () => {
  it("clones demo/demo-app with root's token and finds its README.md", async () => {
    const rootToken = await passwordGrant(base, "root", inject("rootPassword"));
    const clone = await git(["clone", remote("oauth2", rootToken, "demo/demo-app"), "demo-clone"]);
    expect(clone.ok, clone.out).toBe(true);
    expect(readFileSync(path.join(work, "demo-clone", "README.md"), "utf8")).toBe("# Demo App\n\nEvery announced change has data here\n");
  });
});
