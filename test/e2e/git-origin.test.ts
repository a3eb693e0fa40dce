import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, passwordGrant } from "./pages-support";
import { freePort, ROOT_DIR, startService, type RunningServer } from "./server";
import { cleanGitEnv } from "./git-env";

/**
 * DESIGN "Git over HTTPS", the origin as deployed: `node scripts/git-origin.mjs` in a process of its
 * own (as the systemd unit of docs/deploy.md runs it), `npm start` pointed at it with GIT_ORIGIN and
 * GIT_ORIGIN_SECRET, and the git CLI through the Worker: provisioning on create, push, clone,
 * rename, delete, and the readiness probe.
 */
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), "git-origin-e2e-"));
const repositories = path.join(work, "repositories");
const secret = randomBytes(32).toString("hex");
const rootPassword = `Origin-e2e-${randomBytes(6).toString("hex")}`;
const gitEnv = cleanGitEnv(work);

let origin: ChildProcess;
let originLog = "";
let originURL = "";
let server: RunningServer;
let base = "";
let token = "";

async function git(args: string[], cwd = work): Promise<string> {
  const { stdout, stderr } = await run("git", ["-c", "credential.helper=", ...args], { cwd, env: gitEnv, timeout: 60_000 });
  return stdout + stderr;
}

const remote = (projectPath: string) => {
  const u = new URL(`${base}/${projectPath}.git`);
  u.username = "oauth2";
  u.password = token;
  return u.toString();
};

function storageDir(projectId: number): string {
  const h = createHash("sha256").update(String(projectId)).digest("hex");
  return path.join(repositories, "@hashed", h.slice(0, 2), h.slice(2, 4), `${h}.git`);
}

beforeAll(async () => {
  const port = await freePort();
  originURL = `http://127.0.0.1:${port}`;
  origin = spawn(process.execPath, [path.join(ROOT_DIR, "scripts/git-origin.mjs"), "--root", repositories, "--listen", `127.0.0.1:${port}`], {
    env: { PATH: process.env.PATH, GIT_ORIGIN_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  origin.stdout!.on("data", (d) => (originLog += d));
  origin.stderr!.on("data", (d) => (originLog += d));
  const deadline = Date.now() + 20_000;
  while (!originLog.includes("serving") && Date.now() < deadline && origin.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  if (!originLog.includes("serving")) throw new Error(`the git origin did not start:\n${originLog}`);

  const persist = path.join(work, "state");
  server = await startService({ persistDir: persist, rootPassword, vars: { GIT_ORIGIN: originURL, GIT_ORIGIN_SECRET: secret, SEED_DEMO_DATA: "false" } });
  base = server.baseURL;
  token = await passwordGrant(base, "root", rootPassword);
  // A second npm start besides the suite's own: slower than one hook's default on a busy machine.
}, 400_000);

afterAll(async () => {
  await server?.stop();
  origin?.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

describe("DESIGN Git over HTTPS: the git origin run as deployed, behind npm start", () => {
  it("refuses to start without a GIT_ORIGIN_SECRET of 32 characters", async () => {
    const r = await run(process.execPath, [path.join(ROOT_DIR, "scripts/git-origin.mjs"), "--root", path.join(work, "never"), "--listen", "127.0.0.1:1"], {
      env: { PATH: process.env.PATH, GIT_ORIGIN_SECRET: "short" },
    }).then(
      () => ({ code: 0, out: "" }),
      (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr }),
    );
    expect(r.code).toBe(2);
    expect(r.out).toContain("GIT_ORIGIN_SECRET must hold at least 32 characters");
  });

  it("refuses a request that the Worker did not sign (401)", async () => {
    const res = await fetch(`${originURL}/-/health`);
    expect(res.status).toBe(401);
  });

  it("creates the repository with a README commit on project create; push, clone, rename, clone, delete", async () => {
    const project = await apiCall(base, "POST", "/projects", token, { name: "Deployed origin", initialize_with_readme: true, description: "Made by the e2e test" });
    expect(existsSync(storageDir(project.id))).toBe(true);

    const first = path.join(work, "first");
    await git(["clone", remote(project.path_with_namespace), first]);
    expect(readFileSync(path.join(first, "README.md"), "utf8")).toBe("# Deployed origin\n\nMade by the e2e test\n");
    writeFileSync(path.join(first, "pushed.txt"), "pushed through the Worker\n");
    await git(["add", "pushed.txt"], first);
    await git(["commit", "-m", "second"], first);
    await git(["push", "origin", "main"], first);

    const renamed = await apiCall(base, "PUT", `/projects/${project.id}`, token, { path: "deployed-origin-renamed" });
    expect(renamed.path_with_namespace).toBe("root/deployed-origin-renamed");
    const second = path.join(work, "second");
    await git(["clone", remote(renamed.path_with_namespace), second]);
    expect(readFileSync(path.join(second, "pushed.txt"), "utf8")).toBe("pushed through the Worker\n");

    const res = await fetch(`${base}/api/v4/projects/${project.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 20_000;
    while (existsSync(storageDir(project.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(storageDir(project.id))).toBe(false);
    await expect(git(["ls-remote", remote(renamed.path_with_namespace)])).rejects.toThrow(/404|not found/i);
  });

  it("GET /-/readiness reports the origin: ok while it runs, failed (503) once it is stopped", async () => {
    const ok = await fetch(`${base}/-/readiness`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: "ok", git_origin_check: [{ status: "ok" }] });
    origin.kill("SIGTERM");
    await new Promise<void>((resolve) => (origin.exitCode !== null ? resolve() : origin.once("exit", () => resolve())));
    const down = await fetch(`${base}/-/readiness`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "failed", git_origin_check: [{ status: "failed", message: "the git origin is unreachable" }] });
  });
});
