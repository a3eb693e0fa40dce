import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import path from "node:path";
import { pause, untilProcessGroupGone } from "./wait";

/**
 * Starting and stopping the service the way README says (`npm start`) on a free loopback port and
 * a given state directory. Used once for the whole e2e project (global-setup.ts) and by tests that
 * need a server lifecycle of their own (restarts.test.ts kills, stops and restarts one on the same state).
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
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`${url}/-/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await pause(100);
  }
  throw new Error(`npm start did not serve ${url}/-/health in time:\n${log()}`);
}

export interface RunningServer {
  baseURL: string;
  /** The last 20,000 characters npm start has written (stdout and stderr). */
  output(): string;
  /** Ends npm start and its children (wrangler, the git origin) and waits until they are gone. */
  stop(): Promise<void>;
  /** A crash: SIGKILL to the whole process group (`kill -9 -- -<pgid>`), nothing gets to clean up. */
  crash(): Promise<void>;
}

export const ROOT_DIR = path.resolve(__dirname, "../..");

/**
 * `vars`: other configuration variables for this start (test/e2e/configuration.test.ts); `verbose`:
 * `npm start -- --verbose`, with wrangler's own log in `output()`. Without a
 * given port, a free one is picked; another process (a lane beside this one, another checkout)
 * can take it between the pick and npm start's listen, which npm start reports as a port already
 * in use: then a new port is picked, at most three times.
 */
export async function startService(opts: { persistDir: string; rootPassword: string; port?: number; vars?: Record<string, string>; verbose?: boolean }): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce({ ...opts, port: opts.port ?? (await freePort()) });
    } catch (e) {
      const portTaken = /EADDRINUSE|already taken/.test(String(e));
      if (opts.port !== undefined || !portTaken || attempt >= 3) throw e;
    }
  }
}

async function startOnce(opts: { persistDir: string; rootPassword: string; port: number; vars?: Record<string, string>; verbose?: boolean }): Promise<RunningServer> {
  const port = opts.port;
  let output = "";
  const child = spawn("npm", ["start", ...(opts.verbose ? ["--", "--verbose"] : [])], {
    cwd: ROOT_DIR,
    env: { ...process.env, PORT: String(port), PERSIST_DIR: opts.persistDir, ROOT_PASSWORD: opts.rootPassword, ...opts.vars },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  liveGroups.add(child.pid!);
  child.stdout!.on("data", (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on("data", (d) => (output = (output + d).slice(-20_000)));
  const baseURL = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseURL, child, () => output);
  } catch (e) {
    killGroup(child);
    await untilProcessGroupGone(child.pid!).then(
      () => liveGroups.delete(child.pid!),
      () => killGroup(child, "SIGKILL"),
    );
    throw e;
  }
  return {
    baseURL,
    output: () => output,
    async stop() {
      killGroup(child);
      // The group's other members (wrangler, workerd, the git origin) may outlive npm by a moment:
      // the state directory is free once every one of them is gone. One that ignores SIGTERM for
      // 10 s is killed.
      await untilProcessGroupGone(child.pid!).catch(async () => {
        killGroup(child, "SIGKILL");
        await untilProcessGroupGone(child.pid!);
      });
      liveGroups.delete(child.pid!);
    },
    async crash() {
      killGroup(child, "SIGKILL");
      await untilProcessGroupGone(child.pid!);
      liveGroups.delete(child.pid!);
    },
  };
}

/**
 * Process groups this process started and has not seen end. A test that times out while its
 * server is still starting never reaches the stop() it would have called, and the group is
 * detached: when the test process exits, whatever is left is killed rather than left serving.
 */
const liveGroups = new Set<number>();
process.on("exit", () => {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** npm start runs wrangler and the git origin as children: end the whole process group. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/**
 * Runs `npm start` expecting it to refuse the configuration: it exits before serving. Asynchronous,
 * so that a file can run several refused starts at once (it.concurrent) instead of one by one.
 */
export function startRefused(vars: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start"], {
      cwd: ROOT_DIR,
      env: { ...process.env, PERSIST_DIR: path.join(tmpdir(), "edge-auth-never-used"), ...vars },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    // A start that was not refused would serve forever: end it after the bound and fail.
    const bound = setTimeout(() => killGroup(child, "SIGKILL"), 120_000);
    liveGroups.add(child.pid!);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(bound);
      liveGroups.delete(child.pid!);
      resolve({ status, output });
    });
  });
}
