import { randomBytes } from "node:crypto";
// Builds the Worker the way it is deployed (`wrangler deploy --dry-run`, one bundled module) and
// serves that bundle directly on workerd through Miniflare on 127.0.0.1, with the bindings of
// wrangler.toml and the D1 migrations of drizzle/ applied. No `wrangler dev` proxy in between:
// that proxy caps this machine near 2k requests/s and would measure itself instead of the Worker.
//
// Reusable by every bench script:
//   import { startBuiltWorker } from "./lib/worker.mjs";
//   const worker = await startBuiltWorker({ vars: { BENCH_ROUTES: "true" } });
//   ... worker.url ...; await worker.stop();
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function wranglerToml() {
  const text = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? "2026-11-01";
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(text)?.[1] ?? "";
  const compatibilityFlags = [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const vars = {};
  const varsBlock = /\[vars\]([\s\S]*?)(?:\n\[|$)/.exec(text)?.[1] ?? "";
  for (const m of varsBlock.matchAll(/^(\w+)\s*=\s*"([^"]*)"/gm)) vars[m[1]] = m[2];
  const durableObjects = {};
  for (const m of text.matchAll(/\[\[durable_objects\.bindings\]\]\s*name\s*=\s*"(\w+)"\s*class_name\s*=\s*"(\w+)"/g)) {
    durableObjects[m[1]] = { className: m[2], useSQLite: true };
  }
  return { compatibilityDate, compatibilityFlags, vars, durableObjects };
}

/** `wrangler deploy --dry-run --outdir`: the exact bundle a deploy would upload. */
export function buildWorker(outdir = mkdtempSync(path.join(tmpdir(), "edge-auth-build-"))) {
  const res = spawnSync(path.join(ROOT, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    // node_modules/.bin first: wrangler needs the Node 22 of the `node` devDependency.
    env: {
      ...process.env,
      PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(`build failed:\n${res.stdout}\n${res.stderr}`);
  return path.join(outdir, "index.js");
}

async function applyMigrations(mf) {
  const db = await mf.getD1Database("DB");
  const dir = path.join(ROOT, "drizzle");
  // Recorded as wrangler records them: the Worker refuses to serve a database behind its
  // migrations (src/setup/schema-check.ts reads d1_migrations).
  await db
    .prepare("CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)")
    .run();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sql")).sort()) {
    const sql = readFileSync(path.join(dir, file), "utf8");
    for (const stmt of sql.split("--> statement-breakpoint").map((s) => s.trim()).filter(Boolean)) {
      await db.prepare(stmt).run();
    }
    await db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(file).run();
  }
}

/**
 * Starts the built Worker on 127.0.0.1 (an ephemeral port unless given). State is in memory and
 * gone after stop(). `vars` override wrangler.toml's [vars]. With `stateDir`, the state is kept
 * there after stop() in the layout of `npm start`'s PERSIST_DIR (wrangler's `v3/`), so `npm start`
 * can serve what was seeded here (bench/listings.mjs --ratios --npm-start).
 */
export async function startBuiltWorker({ vars = {}, port = 0, scriptPath, inspectorPort, stateDir } = {}) {
  const cfg = wranglerToml();
  const script = scriptPath ?? buildWorker();
  // wrangler dev keeps a PERSIST_DIR's state under v3/.
  const persist = stateDir ? path.join(stateDir, "v3") : undefined;
  // Miniflare 5 takes a new options shape; convertV4MiniflareOptions accepts the classic one.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port,
      // Logging every request would measure the terminal, not the Worker.
      logRequests: false,
      // Likewise the Worker's own line per request (src/observability/request-log.ts): a deployed
      // Worker hands it to the platform's log pipeline, here it would be piped through this
      // process to the terminal. Every other line (startup refusals, errors) is still printed.
      handleStructuredLogs: ({ level, message }) => {
        // (bench/request-log.mjs also serves a variant that logs the line as an object.)
        if (message.startsWith('{"msg":"request"') || /^\{ ?msg: ['"]request['"]/.test(message)) return;
        (level === "error" || level === "warn" ? console.error : console.log)(message);
      },
      name: "edge-auth-service",
      // Module names are resolved under rootPath; the bundle lives in its own build directory.
      rootPath: path.dirname(script),
      modules: true,
      scriptPath: script,
      compatibilityDate: cfg.compatibilityDate,
      compatibilityFlags: cfg.compatibilityFlags,
      // The service refuses to serve without a strong SECRET_KEY_BASE (src/config.ts): every run
      // makes its own, so none is published here; `vars` may still set one.
      bindings: { ...cfg.vars, SECRET_KEY_BASE: randomBytes(32).toString("hex"), ...vars },
      d1Databases: { DB: "00000000-0000-4000-8000-000000000001" },
      r2Buckets: ["FILES"],
      durableObjects: cfg.durableObjects,
      // On disk only with `stateDir`; otherwise in memory.
      ...(persist ? { resourcePersistencePath: persist } : {}),
      // bench/profile.mjs samples the Worker's CPU through the V8 inspector (loopback only).
      ...(inspectorPort ? { inspectorPort } : {}),
    }),
  );
  const url = (await mf.ready).toString().replace(/\/$/, "");
  await applyMigrations(mf);
  return {
    url,
    mf,
    async stop() {
      await mf.dispose();
    },
  };
}
