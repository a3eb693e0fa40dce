import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import path from "node:path";

/**
 * Starting and stopping the service the way README says (`npm start`) on a free loopback port and
 * a given state directory. Used once for the whole e2e project (global-setup.ts) and by tests that
 * need a server lifecycle of their own (durability.test.ts restarts one on the same state).
 */
export async function freePort(): Promise<number> {
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

export interface RunningServer {
  baseURL: string;
  /** Ends npm start and its children (wrangler, the git origin) and waits until they are gone. */
  stop(): Promise<void>;
  /** A crash: SIGKILL to the whole process group (`kill -9 -- -<pgid>`), nothing gets to clean up. */
  crash(): Promise<void>;
}

export const ROOT_DIR = path.resolve(__dirname, "../..");

/** `vars`: other configuration variables for this start (test/e2e/configuration.test.ts). */
export async function startService(opts: { persistDir: string; rootPassword: string; port?: number; vars?: Record<string, string> }): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  let output = "";
  const child = spawn("npm", ["start"], {
    cwd: ROOT_DIR,
    env: { ...process.env, PORT: String(port), PERSIST_DIR: opts.persistDir, ROOT_PASSWORD: opts.rootPassword, ...opts.vars },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
  const baseURL = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseURL, child, () => output);
  } catch (e) {
    killGroup(child);
    throw e;
  }
  return {
    baseURL,
    async stop() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));
      killGroup(child);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      // The group's other members (workerd) may outlive npm by a moment.
      await new Promise((r) => setTimeout(r, 500));
    },
    async crash() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      killGroup(child, "SIGKILL");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      await new Promise((r) => setTimeout(r, 500));
    },
  };
}

/** npm start runs wrangler and the git origin as children: end the whole process group. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Runs `npm start` expecting it to refuse the configuration: it exits before serving. */
export function startRefused(vars: Record<string, string>): { status: number | null; output: string } {
  const r = spawnSync("npm", ["start"], {
    cwd: ROOT_DIR,
    env: { ...process.env, PERSIST_DIR: path.join(tmpdir(), "edge-auth-never-used"), ...vars },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
