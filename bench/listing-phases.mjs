// Where a listing's time goes (docs/scaling.md, "Listings at GitLab's sizes"): the instance of
// bench/listings.mjs --ratios (bench/lib/listing-ratios.mjs), and, interleaved request by request,
// the floors (empty route, GET /api/v4/user, one D1 read through drizzle and on the raw binding, a
// D1 batch of two statements), the projects listing's SQL alone (/-/bench/projects-sql: no
// authentication, no rendering) and the full listings. Medians over --per-listing requests.
// Run: npx node bench/listing-phases.mjs [--per-listing 30] [--sql] [--compare <built index.js>]
//   --sql: each projects listing's statements, timed inside the Worker against SELECT 1, with plans.
//   --compare: a second Worker from another build (e.g. the commit before a change, built with
//   `wrangler deploy --dry-run --outdir`) seeded alike; its listings are measured in the same rounds.
import os from "node:os";
import { startBuiltWorker } from "./lib/worker.mjs";
import { BENCH_VARS, json } from "./lib/seed.mjs";
import { measureRatios, ratioTable, seededRatiosInstance } from "./lib/listing-ratios.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const loadBefore = os.loadavg().map((x) => x.toFixed(2)).join(" ");
/** A Worker on the instance of --ratios, with an administrator and a member of 50 groups signed in. */
async function seeded(scriptPath) {
  const worker = await startBuiltWorker({ vars: BENCH_VARS, scriptPath });
  const base = worker.url;
  const db = await worker.mf.getD1Database("DB");
  const t0 = Date.now();
  const { admin, member50, as50: as50Headers } = await seededRatiosInstance(base, db);
  console.log(`seeded in ${Date.now() - t0} ms`);
  const as50 = { headers: as50Headers };
  return { worker, base, db, admin, member50, as50 };
}

const listings = (admin, as50) => [
  ["`GET /projects` page 1, administrator", "/api/v4/projects", { headers: admin }],
  ["`GET /projects` page 1, member of 50", "/api/v4/projects", as50],
  ["`GET /projects?page=200`, administrator", "/api/v4/projects?page=200", { headers: admin }],
  ["`GET /projects?page=200`, member of 50", "/api/v4/projects?page=200", as50],
  ["`GET /projects` keyset 90% deep, member of 50", "/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=90225", as50],
  ["`GET /groups` page 1, member of 50", "/api/v4/groups", as50],
  ["`GET /users?search=`, member of 50", "/api/v4/users?search=user17777", as50],
  ["`GET /audit_events` page 1, administrator", "/api/v4/audit_events", { headers: admin }],
  ["`GET /runners/all` page 1, administrator", "/api/v4/runners/all", { headers: admin }],
];

const { worker, base, db, admin, member50, as50 } = await seeded();
const compareScript = arg("compare", null);
const other = compareScript ? await seeded(compareScript) : null;
try {
  if (process.argv.includes("--sql")) {
    // The SQL each projects listing ran, timed by D1 itself (meta.duration, median of 20), with its plan.
    for (const url of ["/-/bench/projects-sql?sql=1", `/-/bench/projects-sql?sql=1&user=${member50.id}`, `/-/bench/projects-sql?sql=1&user=${member50.id}&page=200`]) {
      const { ran } = await json(await fetch(`${base}${url}`));
      for (const { sql, params } of ran) {
        // meta.duration is whole milliseconds locally: timed inside the Worker against SELECT 1.
        const runs = [];
        for (let i = 0; i < 5; i++) runs.push((await json(await fetch(`${base}${url}`))).ran.find((r) => r.sql === sql));
        const ms = runs.map((r) => r.statementMs - r.trivialMs).sort((a, b) => a - b);
        const plan = (await db.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all()).results.map((r) => r.detail).join(" | ");
        console.log(`${url}\n  ${ms[2].toFixed(3)} ms over SELECT 1 (${runs[2].trivialMs.toFixed(3)}} ms  ${sql}\n  params ${JSON.stringify(params)}\n  plan ${plan}\n`);
      }
    }
    if (!process.argv.includes("--sql-and-times")) process.exit(0);
  }
  const requests = [
    ["empty route", "/-/bench/empty", {}],
    ["one D1 read (drizzle)", "/-/bench/d1-read", {}],
    ["one D1 read (raw binding, first())", "/-/bench/d1-first", {}],
    ["a D1 batch of two reads (raw binding)", "/-/bench/d1-batch2", {}],
    ["projects SQL alone, administrator", "/-/bench/projects-sql", {}],
    ["projects SQL alone, member of 50", `/-/bench/projects-sql?user=${member50.id}`, {}],
    ["projects SQL alone, member of 50, page 200", `/-/bench/projects-sql?user=${member50.id}&page=200`, {}],
    ...listings(admin, as50),
    // The other build's listings, by absolute URL (measureRatios prefixes the base, here empty).
    ...(other ? listings(other.admin, other.as50).map(([name, url, init]) => [`${name} (compared build)`, `${other.base}${url}`, init]) : []),
  ].map(([name, url, init]) => [name, url.startsWith("http") ? url : `${base}${url}`, init]);
  const measured = await measureRatios("", requests.map(([n, u, i]) => [n, u, i]), as50, Number(arg("per-listing", 30)), 2, base);
  console.log(`\n${ratioTable(measured, loadBefore)}`);
  // The same at the 10th percentile (a loaded machine keeps the median waiting for other processes).
  console.log(`\n| listing | p10 | p10 / p10 of \`GET /api/v4/user\` (${measured.floorP10Ms.toFixed(2)} ms) |\n|---|---:|---:|`);
  for (const r of measured.rows) console.log(`| ${r.name} | ${r.p10Ms.toFixed(2)} ms | ${(r.p10Ms / measured.floorP10Ms).toFixed(2)}x |`);
} finally {
  await worker.stop();
  await other?.worker.stop();
}
