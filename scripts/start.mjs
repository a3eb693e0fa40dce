#!/usr/bin/env node
// `npm start`: check the configuration, apply the local D1 migrations, start the local git origin,
// and serve everything with `wrangler dev` on http://127.0.0.1:8787 (PORT overrides). The Worker
// creates the administrator `root` (password ROOT_PASSWORD) and the demo data on its first request.
//
// Configuration: every variable of src/config-variables.ts (README's table), from the environment,
// else from `.dev.vars` if present, else the local default. The values reach wrangler through a
// private env file (mode 0600, removed on exit), never its command line, so ROOT_PASSWORD and
// SECRET_KEY_BASE are not visible in `ps`. `npm start -- --verbose` shows wrangler's own log.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { exitUnlessSupportedNode } from "./node-version.mjs";
import { passwordProblem } from "./root-password.mjs";
import { parseEnvFile, serializeEnvFile } from "./env-file.mjs";
import { startClientAddressFront } from "./client-address-front.mjs";

// Before the modules that load TypeScript: an older Node is told what to run instead of crashing.
exitUnlessSupportedNode("scripts/start.mjs");
const { checkVariables, secretKeyBaseProblems, VARIABLES, VARIABLE_NAMES } = await import("../src/config-variables.ts");
const { startGitOrigin } = await import("./git-origin.mjs");

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

function refuse(lines) {
  console.error(["npm start: the configuration is refused:", ...lines.map((l) => `  - ${l}`)].join("\n"));
  process.exit(2);
}

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const unknownArgs = args.filter((a) => a !== "--verbose");
if (unknownArgs.length) refuse([`unknown option ${unknownArgs.join(" ")} (the only option is --verbose)`]);

// .dev.vars (wrangler's local secrets file) is honoured, and checked like the environment.
const devVarsPath = path.join(root, ".dev.vars");
let devVars = {};
if (existsSync(devVarsPath)) {
  try {
    devVars = parseEnvFile(readFileSync(devVarsPath, "utf8"));
  } catch (err) {
    refuse([`.dev.vars: ${err.message}`]);
  }
  const unknown = Object.keys(devVars).filter((name) => !VARIABLE_NAMES.has(name));
  if (unknown.length) refuse(unknown.map((name) => `.dev.vars sets ${name}, which is not a configuration variable (README, Configuration)`));
}
const fromEnv = Object.fromEntries(VARIABLES.filter((v) => process.env[v.name] !== undefined).map((v) => [v.name, process.env[v.name]]));
const { values, problems } = checkVariables({ ...devVars, ...fromEnv }, true);
// The Worker's own check (src/config-variables.ts): a key it would refuse is refused here first.
problems.push(...secretKeyBaseProblems(values.SECRET_KEY_BASE, values.LOCAL_DEV === "true"));
const rootProblem = values.ROOT_PASSWORD === undefined ? null : passwordProblem(values.ROOT_PASSWORD);
if (rootProblem) problems.push(`ROOT_PASSWORD is refused: ${rootProblem}; choose a stronger initial administrator password`);
if (problems.length) refuse(problems);

const port = values.PORT;
const persist = path.resolve(root, values.PERSIST_DIR);

// A port already taken (often a first `npm start` still running) is said plainly, before any
// migration or banner: otherwise the health check below would find the other server and announce it.
const portProblem = await new Promise((resolve) => {
  const probe = createServer();
  probe.once("error", (err) => resolve(err.code === "EADDRINUSE" ? "in use" : err.message));
  probe.listen({ host: "127.0.0.1", port: Number(port), exclusive: true }, () => probe.close(() => resolve(null)));
});
if (portProblem) {
  console.error(
    portProblem === "in use"
      ? `npm start: port ${port} on 127.0.0.1 is already taken (is another npm start running?). Stop it, or choose another port: PORT=8788 npm start`
      : `npm start: cannot listen on 127.0.0.1:${port}: ${portProblem}`,
  );
  process.exit(1);
}
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");

// The pending migrations, all in one Miniflare instance (scripts/apply-migrations.mjs): the same
// rows and schema as `wrangler d1 migrations apply DB --local`, without its ~0.7 s per migration.
// Imported here, not above: it loads wrangler (a second of CPU) that a refused start never needs.
const { applyLocalMigrations } = await import("./apply-migrations.mjs");
try {
  const applied = await applyLocalMigrations({ projectDir: root, persistTo: persist });
  if (verbose) console.log(applied.length ? `npm start: applied ${applied.length} D1 migration(s): ${applied.join(", ")}` : "npm start: no D1 migration to apply");
} catch (err) {
  console.error(`npm start: applying the local D1 migrations failed: ${err.message}`);
  process.exit(1);
}

// Without GIT_ORIGIN, the origin program runs in this process on loopback, with a fresh secret
// for each start unless GIT_ORIGIN_SECRET names one (docs/git.md, "The origin").
const gitOriginStarted = !values.GIT_ORIGIN;
if (gitOriginStarted) {
  try {
    const started = await startGitOrigin(path.join(persist, "git"), values.GIT_ORIGIN_SECRET ? { secret: values.GIT_ORIGIN_SECRET } : {});
    values.GIT_ORIGIN = started.url;
    values.GIT_ORIGIN_SECRET = started.secret;
  } catch (err) {
    refuse([`the local git origin: ${err.message}`]);
  }
}
// Without --verbose, wrangler runs at log level "warn" and drops every request line, after
// source-mapping it in its Node process: 2-3 ms of CPU a request for a line nobody sees. So
// the Worker writes none unless REQUEST_LOG was set (docs/operations.md, Logs).
if (!verbose && !("REQUEST_LOG" in devVars) && !("REQUEST_LOG" in fromEnv)) values.REQUEST_LOG = "false";
if (!values.SERVICE_REVISION) {
  const rev = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" });
  if (rev.status === 0 && rev.stdout.trim()) values.SERVICE_REVISION = rev.stdout.trim();
}

// Everything the Worker reads, in a private file only this user can read.
const workerVars = Object.fromEntries(
  VARIABLES.filter((v) => !v.startOnly && values[v.name] !== undefined).map((v) => [v.name, values[v.name]]),
);
const varsDir = mkdtempSync(path.join(tmpdir(), "edge-auth-vars-"));
const varsFile = path.join(varsDir, "worker.env");
try {
  writeFileSync(varsFile, serializeEnvFile(workerVars), { mode: 0o600 });
} catch (err) {
  refuse([err.message]);
}
const cleanUp = () => rmSync(varsDir, { recursive: true, force: true });
process.on("exit", cleanUp);

// wrangler dev listens on a loopback port of its own; the public port is the front that sets the
// client address from the connection (scripts/client-address-front.mjs explains why).
const workerPort = await freePort();
const devArgs = [
  "dev", "--ip", "127.0.0.1", "--port", String(workerPort), "--persist-to", persist, "--env-file", varsFile,
  "--show-interactive-dev-session=false", "--log-level", verbose ? "log" : "warn",
  // GET /__scheduled runs the cron handler (src/scheduled.ts) on demand: local development only.
  "--test-scheduled",
];
const child = spawn(wrangler, devArgs, { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] });
const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));
try {
  await startClientAddressFront({
    host: "127.0.0.1",
    port: Number(port),
    targetPort: workerPort,
    trustClientHeader: (values.CLIENT_ADDRESS_HEADER ?? "").toLowerCase() === "cf-connecting-ip",
  });
} catch (err) {
  console.error(`npm start: cannot listen on 127.0.0.1:${port}: ${err.message}`);
  stop();
  process.exit(1);
}

await announceWhenServing();

/** A free loopback port for wrangler dev (the kernel picks it; it is released just before use). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
}

/** The banner appears only once the server really answers (never "serving on" before it does). */
async function announceWhenServing() {
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(`${base}/-/health`);
      if (res.status === 503) {
        console.error(`npm start: the Worker refuses to serve:\n${await res.text()}`);
        return;
      }
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  if (child.exitCode !== null) return;
  if (Date.now() >= deadline) {
    console.error(`npm start: ${base} did not answer within 3 minutes; try npm start -- --verbose`);
    return;
  }
  const password = process.env.ROOT_PASSWORD || devVars.ROOT_PASSWORD ? "the ROOT_PASSWORD you set" : `the local default ${values.ROOT_PASSWORD}`;
  console.log(
    [
      `Edge Auth ${pkg.version} (service version ${values.SERVICE_VERSION}) is serving on ${base}`,
      `  sign in   ${base}/users/sign_in as root, with ${password} (set on the first start)`,
      `  state     ${persist} (D1, Durable Objects, R2 and the git repositories)`,
      `  git       ${gitOriginStarted ? `a local git http-backend at ${values.GIT_ORIGIN}` : values.GIT_ORIGIN}`,
      verbose ? "  Ctrl+C stops the server." : "  Ctrl+C stops the server; npm start -- --verbose shows wrangler's log.",
    ].join("\n"),
  );
}
