// `npm start` as README runs it, for the benchmarks that measure what a person running it sees
// (bench/listings.mjs --ratios --npm-start): wrangler dev behind the client-address front, on a
// state directory of the caller's (PERSIST_DIR), on a free loopback port. stop() ends its whole
// process group and returns once every member is gone, so the state directory is free. The tests'
// startService (test/e2e/server.ts) does the same with retries and captured output; it is
// TypeScript loaded through vitest, which the plain Node scripts of bench/ cannot import.
import { spawn } from "node:child_process";
import { freePort } from "./free-port.mjs";
import { ROOT } from "./worker.mjs";

export async function startNpmStart({ stateDir, vars = {} }) {
  const port = await freePort();
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), PERSIST_DIR: stateDir, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", ...vars },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error("npm start did not answer within 3 minutes");
    const ok = await fetch(`${url}/-/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    url,
    async stop() {
      const group = -child.pid;
      const signal = (name) => {
        try {
          process.kill(group, name);
          return true;
        } catch {
          return false; // the group is gone
        }
      };
      signal("SIGTERM");
      // wrangler, workerd and the git origin may outlive npm by a moment; one that ignores
      // SIGTERM for 10 s is killed.
      for (const deadline = Date.now() + 10_000; signal(0); await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() > deadline) signal("SIGKILL");
      }
    },
  };
}
