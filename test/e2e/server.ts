import { spawn, type ChildProcess } from "node:child_process";
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
}

export async function startService(opts: { persistDir: string; rootPassword: string; port?: number }): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  let output = "";
  const child = spawn("npm", ["start"], {
    cwd: path.resolve(__dirname, "../.."),
    env: { ...process.env, PORT: String(port), PERSIST_DIR: opts.persistDir, ROOT_PASSWORD: opts.rootPassword },
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
  };
}

/** npm start runs wrangler and the git origin as children: end the whole process group. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // already gone
  }
}
