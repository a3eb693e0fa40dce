import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

/**
 * Starts the service the way README says (`npm start`), on a free loopback port and a fresh local
 * state directory, once for all end-to-end tests. Tests read its address with inject("baseURL").
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseURL: string;
    rootPassword: string;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`${url}/-/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`npm start did not serve ${url}/-/health in time:\n${log()}`);
}

export default async function setup(project: TestProject) {
  const port = await freePort();
  const persist = mkdtempSync(path.join(tmpdir(), "edge-auth-e2e-"));
  const rootPassword = "e2e-Root-Password-42";
  let output = "";
  const child = spawn("npm", ["start"], {
    cwd: path.resolve(__dirname, "../.."),
    env: { ...process.env, PORT: String(port), PERSIST_DIR: persist, ROOT_PASSWORD: rootPassword },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
  const baseURL = `http://127.0.0.1:${port}`;
  await waitForHealth(baseURL, child, () => output);
  project.provide("baseURL", baseURL);
  project.provide("rootPassword", rootPassword);
  return async () => {
    // npm start runs wrangler and the git origin as children: end the whole process group.
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 500));
    rmSync(persist, { recursive: true, force: true });
  };
}
