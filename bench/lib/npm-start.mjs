// `npm start` as README runs it, for the benchmarks that measure what a person running it sees
// (bench/listings.mjs --ratios --npm-start): wrangler dev behind the client-address front, on a
// state directory of the caller's (PERSIST_DIR), on a free loopback port. stop() ends its whole
// process group.
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
  const exited = new Promise((resolve) => child.once("exit", resolve));
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
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        return;
      }
      const bound = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(bound);
    },
  };
}
