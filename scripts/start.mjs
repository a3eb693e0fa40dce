#!/usr/bin/env node
// `npm start`: apply the local D1 migrations, start the local git origin, and serve everything with
// `wrangler dev` on http://127.0.0.1:8787 (PORT overrides). The Worker creates the administrator
// `root` (password ROOT_PASSWORD) and the demo data on its first request; see README.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { passwordProblem } from "./root-password.mjs";
import { startGitOrigin } from "./git-origin.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const port = process.env.PORT || "8787";
const persist = process.env.PERSIST_DIR || path.join(root, ".wrangler", "state");
// The documented local default; set ROOT_PASSWORD for anything but a laptop.
const rootPassword = process.env.ROOT_PASSWORD || "5iveL!fe-local-root";
const serviceVersion = process.env.SERVICE_VERSION || "16.0";

const problem = passwordProblem(rootPassword);
if (problem) {
  console.error(`ROOT_PASSWORD is refused: ${problem}. Choose a stronger initial administrator password.`);
  process.exit(2);
}
if (!/^\d+\.\d+$/.test(serviceVersion)) {
  console.error(`SERVICE_VERSION must be major.minor (for example 14.10 or 16.0), not "${serviceVersion}".`);
  process.exit(2);
}

const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");

const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], {
  cwd: root,
  env: { ...env, CI: "true" }, // CI=true: apply without asking
  stdio: "inherit",
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const gitOrigin = process.env.GIT_ORIGIN || (await startGitOrigin(path.join(persist, "git")));

const vars = {
  SERVICE_VERSION: serviceVersion,
  ROOT_PASSWORD: rootPassword,
  ALLOW_INSECURE_REDIRECTS: process.env.ALLOW_INSECURE_REDIRECTS || "true",
  GIT_ORIGIN: gitOrigin,
  SEED_DEMO_DATA: process.env.SEED_DEMO_DATA || "true",
  BENCH_ROUTES: process.env.BENCH_ROUTES || "false",
};
const args = ["dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", persist, "--show-interactive-dev-session=false"];
for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);

console.log(`› serving on http://127.0.0.1:${port} (service version ${serviceVersion})`);
const child = spawn(wrangler, args, { cwd: root, env, stdio: "inherit" });
const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));
