// Listings as the data grows (docs/scaling.md, "Listings"). Builds the Worker, serves the bundle
// on workerd (bench/lib/worker.mjs), and for each size in --rows (ascending, comma-separated; the
// tables are topped up between sizes) seeds that many rows per table itself with one INSERT ... SELECT
// per table, then measures the median latency of each request one at a time, in interleaved rounds
// beside two floors: the empty route and one D1 read by primary key.
// Covers every row of the scaling table (docs/scaling.md): listings, searches, lookups by path,
// userinfo of a user in 5 groups and of one in min(rows, 30000) groups, ?tags=true on a project
// with 20 repositories of rows/20 tags each, group packages and group registry repositories of a
// tree of 160 projects, and the password sign-in of a user created after the bulk rows.
// Run: node bench/listings.mjs --rows 1000,100000,300000 [--rounds 5] [--per-round 10]
// Writes bench/results/listings-latest.json; the table is printed as Markdown.
//
// With --ratios [--per-listing 30]: the deep and non-administrator listings at GitLab's sizes
// (bench/lib/listing-ratios.mjs): 100,251 projects, 20k groups, 200k audit events, 20k runners,
// each listing's median over 30 requests divided by the median of GET /api/v4/user in the same run.
// Writes bench/results/listings-ratios-latest.json. With --npm-start as well, the instance is seeded
// the same way on the built Worker, then served by `npm start` on that state (the issue's own
// measure: what a person running npm start sees, wrangler dev's proxy included) and measured there;
// writes bench/results/listings-ratios-npm-start-latest.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startBuiltWorker, ROOT } from "./lib/worker.mjs";
import { startNpmStart } from "./lib/npm-start.mjs";
import { machine } from "./lib/measure.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json } from "./lib/seed.mjs";
import { measureMatches } from "./lib/search-sql.mjs";
import { SHAPE, joinGroups, measureRatios, mergeSearchIndexes, ratioTable, seedShape } from "./lib/listing-ratios.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SIZES = String(arg("rows", "1000")).split(",").map(Number);
const ROUNDS = Number(arg("rounds", 5));
const PER_ROUND = Number(arg("per-round", 10));

const RATIOS = process.argv.includes("--ratios");
const NPM_START = RATIOS && process.argv.includes("--npm-start");
const loadBefore = os.loadavg().map((x) => x.toFixed(2)).join(" ");
const stateDir = NPM_START ? mkdtempSync(path.join(os.tmpdir(), "edge-auth-bench-npm-start-")) : undefined;
const worker = await startBuiltWorker({ vars: BENCH_VARS, stateDir });
/** Where requests go: the built Worker, or after seeding with --npm-start, `npm start` on its state. */
let base = worker.url;
let npmStart;
const db = await worker.mf.getD1Database("DB");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Tops every table up to `rows` rows (ids above the current maximum), in one statement each. */
async function seed(rows, benchUserId) {
  const now = Date.now();
  const have = async (table) => (await db.prepare(`SELECT coalesce(max(id), 0) AS n FROM ${table}`).first()).n;
  const range = (from, to = rows) => `WITH RECURSIVE s(n) AS (SELECT ${from + 1} UNION ALL SELECT n + 1 FROM s WHERE n < ${to})`;
  // Groups and projects go in slices of 50,000: each row fires their FTS and row_counts triggers,
  // and one statement of 300,000 rows outlives what local D1 allows a statement.
  const SLICE = 50_000;
  const u = await have("users");
  if (u < rows) {
    await db.prepare(`${range(u)} INSERT INTO users (id, username, name, email, password_hash, created_at)
      SELECT n, 'user' || n, 'User ' || n, 'user' || n || '@example.com', 'x', ${now} - n FROM s`).run();
  }
  for (let g = await have("groups"); g < rows; g = await have("groups")) {
    // Every tenth group is a subgroup of the one before it; a third each public, internal, private.
    await db.prepare(`${range(g, Math.min(rows, g + SLICE))} INSERT INTO groups (id, name, path, full_path, parent_id, visibility, created_at)
      SELECT n, 'Group ' || n, 'group' || n, 'group' || n, CASE WHEN n % 10 = 0 THEN n - 1 END,
             CASE n % 3 WHEN 0 THEN 'public' WHEN 1 THEN 'internal' ELSE 'private' END, ${now} - n FROM s`).run();
  }
  for (let p = await have("projects"); p < rows; p = await have("projects")) {
    await db.prepare(`${range(p, Math.min(rows, p + SLICE))} INSERT INTO projects (id, name, path, path_with_namespace, namespace_kind, namespace_id, visibility, created_at, last_activity_at)
      SELECT n, 'Project ' || n, 'project' || n, 'group' || n || '/project' || n, 'group', n,
             CASE n % 3 WHEN 0 THEN 'public' WHEN 1 THEN 'internal' ELSE 'private' END, ${now} - n, ${now} - (n * 7) % 100000 FROM s`).run();
  }
  const a = await have("audit_events");
  if (a < rows) {
    await db.prepare(`${range(a)} INSERT INTO audit_events (id, action, author_id, entity_type, entity_id, details, created_at)
      SELECT n, 'sign_in', 1, 'user', '1', '{}', ${now} - n FROM s`).run();
  }
  const r = await have("runners");
  if (r < rows) {
    await db.prepare(`${range(r)} INSERT INTO runners (id, runner_type, description, token_hash, created_at, contacted_at)
      SELECT n, 'instance_type', 'runner ' || n, 'bench-' || n, ${now} - n, CASE WHEN n % 4 = 0 THEN NULL ELSE ${now} - n * 13 END FROM s`).run();
  }
  const k = await have("packages");
  if (k < rows) {
    // Most packages in project 1 (a large project), the rest one per project.
    await db.prepare(`${range(k)} INSERT INTO packages (id, project_id, name, version, package_type, created_at)
      SELECT n, CASE WHEN n % 2 = 0 THEN 1 ELSE n END, 'pkg' || n, '1.0.' || n, 'generic', ${now} - n FROM s`).run();
  }
  // Project 2 holds 20 image repositories with rows/20 tags each (?tags=true).
  const rr = await have("registry_repositories");
  if (rr < 20) {
    await db.prepare(`WITH RECURSIVE s(n) AS (SELECT ${rr + 1} UNION ALL SELECT n + 1 FROM s WHERE n < 20)
      INSERT INTO registry_repositories (id, project_id, name, path, created_at)
      SELECT n, 2, 'img' || n, 'group2/project2/img' || n, ${now} FROM s`).run();
  }
  const t = await have("registry_tags");
  if (t < rows) {
    await db.prepare(`${range(t)} INSERT INTO registry_tags (id, repository_id, name, digest, revision, total_size, created_at)
      SELECT n, 1 + n % 20, 'v' || n, 'sha256:' || n, 'r', 100, ${now} FROM s`).run();
  }
  // Group 1 holds a tree of 160 projects: groups 2-160 become its subgroups (every tenth through its sibling).
  await db.prepare(`UPDATE groups SET parent_id = 1 WHERE id BETWEEN 2 AND 160 AND parent_id IS NULL AND id % 10 <> 0`).run();
  // The ordinary user is a member of five groups.
  await db.prepare(`INSERT OR IGNORE INTO members (source_type, source_id, user_id, access_level, created_at)
    SELECT 'group', id, ${benchUserId}, 30, ${now} FROM groups WHERE id IN (2, 5, 8, 11, 14)`).run();
}

async function tokenFor(username, password, scope = "api") {
  return (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username, password, scope })))).access_token;
}

/** A user created through the API (after the bulk rows: a late id), with a password. */
async function createUser(admin, username) {
  return json(
    await fetch(`${base}/api/v4/users`, {
      method: "POST",
      headers: { ...admin, "Content-Type": "application/json" },
      body: JSON.stringify({ username, name: username, email: `${username}@example.com`, password: USER_PASSWORD, skip_confirmation: true }),
    }),
  );
}

/** --ratios: the issue's table (bench/lib/listing-ratios.mjs). */
async function ratios() {
  const rootToken = await tokenFor("root", BENCH_VARS.ROOT_PASSWORD);
  const admin = { Authorization: `Bearer ${rootToken}` };
  const viewer = await createUser(admin, "viewer");
  const member50 = await createUser(admin, "member50");
  const t0 = Date.now();
  await seedShape(db);
  await joinGroups(db, viewer.id, 5);
  await joinGroups(db, member50.id, 50);
  console.log(`seeded ${JSON.stringify(SHAPE)} in ${Date.now() - t0} ms`);
  // --no-merge: measure the search indexes as the inserts left them (before the cron's merge).
  if (!process.argv.includes("--no-merge")) {
    const t1 = Date.now();
    await mergeSearchIndexes(db);
    console.log(`merged the search indexes' segments in ${Date.now() - t1} ms`);
  }
  if (NPM_START) {
    await worker.stop();
    npmStart = await startNpmStart({ stateDir, vars: BENCH_VARS });
    base = npmStart.url;
    console.log(`npm start serves the seeded state at ${base}`);
  }
  const asViewer = { headers: { Authorization: `Bearer ${await tokenFor("viewer", USER_PASSWORD)}` } };
  const as50 = { headers: { Authorization: `Bearer ${await tokenFor("member50", USER_PASSWORD)}` } };
  // Asked again: with --npm-start the tokens of the seeding Worker (another SECRET_KEY_BASE) are not npm start's.
  const asAdmin = { headers: { Authorization: `Bearer ${await tokenFor("root", BENCH_VARS.ROOT_PASSWORD)}` } };
  const requests = [
    // Not a listing: the least a request that reads D1 costs (one read by primary key), for scale.
    ["floor: one D1 read (`/-/bench/d1-read`, not a listing)", "/-/bench/d1-read", {}],
    ["`GET /projects` page 1, administrator", "/api/v4/projects", asAdmin],
    ["`GET /projects` page 1, non-administrator (member of 5 groups)", "/api/v4/projects", asViewer],
    ["`GET /projects` page 1, non-administrator member of 50 groups", "/api/v4/projects", as50],
    ["`GET /projects?page=200`, administrator", "/api/v4/projects?page=200", asAdmin],
    ["`GET /projects?page=200`, non-administrator member of 50 groups", "/api/v4/projects?page=200", as50],
    ["`GET /projects` keyset, 90% deep, non-administrator member of 50 groups", `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=${Math.floor(SHAPE.projects * 0.9)}`, as50],
    ["`GET /projects?search=`, non-administrator member of 50 groups", "/api/v4/projects?search=project77777", as50],
    // project77776 and group17776 are internal (n % 3 = 1): a match the caller sees, so the page has a row.
    ["`GET /projects?search=`, a visible match, non-administrator member of 50 groups", "/api/v4/projects?search=project77776", as50],
    ["`GET /groups` page 1, non-administrator member of 50 groups", "/api/v4/groups", as50],
    ["`GET /groups?search=`, a visible match, non-administrator member of 50 groups", "/api/v4/groups?search=group17776", as50],
    ["`GET /groups?search=`, non-administrator member of 50 groups", "/api/v4/groups?search=group17777", as50],
    ["`GET /users?search=`, non-administrator", "/api/v4/users?search=user17777", as50],
    ["`GET /audit_events` page 1, administrator", "/api/v4/audit_events", asAdmin],
    ["`GET /runners/all` page 1, administrator", "/api/v4/runners/all", asAdmin],
    ["`GET /audit_events` keyset, 90% deep, administrator", null, asAdmin],
  ];
  // The deep audit-event page is reached by keyset: its cursor names the event 10% from the oldest.
  const deepAudit = requests.find((r) => r[1] === null);
  deepAudit[1] = `/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&cursor=${auditCursor(Math.floor(SHAPE.auditEvents * 0.1))}`;
  const measured = await measureRatios(base, requests, asViewer, Number(arg("per-listing", 30)));
  console.log(`\n${ratioTable(measured, loadBefore)}`);
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  const file = NPM_START ? "listings-ratios-npm-start-latest.json" : "listings-ratios-latest.json";
  writeFileSync(path.join(ROOT, "bench", "results", file), JSON.stringify({ machine: machine(), served: NPM_START ? "npm start" : "built Worker", shape: SHAPE, loadBefore, ...measured }, null, 2));
}

/** GitLab's keyset cursor of an audit event (order id desc): URL-safe base64 of {"id":"n","_kd":"n"}. */
const auditCursor = (id) => Buffer.from(JSON.stringify({ id: String(id), _kd: "n" })).toString("base64url");

/** --search-sql: the FTS match's SQL time, before and after the segment merge (bench/lib/search-sql.mjs). */
async function searchSql() {
  await seedShape(db);
  const idxRows = async () => (await db.prepare("SELECT count(*) AS n FROM projects_fts_idx").first()).n;
  console.log(`projects_fts_idx rows (segments' leaf-page keys) as inserted: ${await idxRows()}`);
  const before = await measureMatches(db);
  const t1 = Date.now();
  await mergeSearchIndexes(db);
  const mergeMs = Date.now() - t1;
  console.log(`projects_fts_idx rows after the merge: ${await idxRows()}`);
  const after = await measureMatches(db);
  console.log(`load average before: ${loadBefore}; after: ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}; merge took ${mergeMs} ms`);
  console.log("\n| index | word | match | segments as inserted | after the merge |\n|---|---|---|---:|---:|");
  for (const [i, r] of before.entries()) console.log(`| ${r.table} | ${r.word} | ${r.variant} | ${r.meanMs.toFixed(3)} ms | ${after[i].meanMs.toFixed(3)} ms |`);
}

if (process.argv.includes("--search-sql")) {
  try {
    await searchSql();
  } finally {
    await worker.stop();
  }
  process.exit(0);
}

if (RATIOS) {
  try {
    await ratios();
  } finally {
    if (npmStart) await npmStart.stop();
    else await worker.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
  process.exit(0);
}

const results = [];
try {
  const rootToken = await tokenFor("root", BENCH_VARS.ROOT_PASSWORD);
  const admin = { Authorization: `Bearer ${rootToken}` };
  // The ordinary user is created before the bulk rows (whose ids start above the existing ones).
  const bench = await createUser(admin, "bench");
  const user = { Authorization: `Bearer ${await tokenFor("bench", USER_PASSWORD, "api openid")}` };
  const many = await createUser(admin, "manygroups");
  const manyUser = { Authorization: `Bearer ${await tokenFor("manygroups", USER_PASSWORD, "openid")}` };
  const gql = (query) => ({ method: "POST", headers: { ...admin, "Content-Type": "application/json" }, body: JSON.stringify({ query }) });

  for (const rows of SIZES) {
    const t0 = Date.now();
    await seed(rows, bench.id);
    // The second user is a member of min(rows, 30000) groups (userinfo's groups claim).
    await db.prepare(`INSERT OR IGNORE INTO members (source_type, source_id, user_id, access_level, created_at)
      SELECT 'group', id, ${many.id}, 30, ${Date.now()} FROM groups WHERE id <= ${Math.min(rows, 30000)}`).run();
    // A user created after the bulk rows signs in with a password (the lookup by lower(username)).
    const lateName = `late${rows}`;
    await createUser(admin, lateName);
    console.log(`seeded ${rows} rows per table in ${Date.now() - t0} ms`);
    const late = rows - 1;
    const signIn = { method: "POST", ...form({ grant_type: "password", username: lateName, password: USER_PASSWORD }) };
    const requests = [
      ["floor: empty route", "/-/bench/empty", {}],
      ["floor: one D1 read", "/-/bench/d1-read", {}],
      ["GET /projects (administrator), page 1", "/api/v4/projects", { headers: admin }],
      ["GET /projects (administrator), page 50 of 100", "/api/v4/projects?per_page=100&page=50", { headers: admin }],
      ["GET /projects keyset, deep (id_after)", `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=${Math.floor(rows * 0.9)}`, { headers: admin }],
      ["GET /projects (ordinary user)", "/api/v4/projects", { headers: user }],
      ["GET /groups (ordinary user)", "/api/v4/groups", { headers: user }],
      ["GET /users?search= (administrator)", `/api/v4/users?search=user${late}`, { headers: admin }],
      ["GET /users?search= (ordinary user, a rare word)", `/api/v4/users?search=ser${late}`, { headers: user }],
      ["GET /projects?search= (ordinary user)", `/api/v4/projects?search=project${late}`, { headers: user }],
      ["GET /groups?search= (ordinary user)", `/api/v4/groups?search=group${late}`, { headers: user }],
      ["password sign-in of a late user (POST /oauth/token)", "/oauth/token", signIn],
      ["GET /projects/:path (a late row)", `/api/v4/projects/${encodeURIComponent(`group${late}/project${late}`)}`, { headers: admin }],
      ["GET /groups/:path (a late row)", `/api/v4/groups/group${late}`, { headers: admin }],
      ["/oauth/userinfo, user in 5 groups", "/oauth/userinfo", { headers: user }],
      ["/oauth/userinfo, user in min(rows, 30,000) groups", "/oauth/userinfo", { headers: manyUser }],
      ["GET /projects/2/registry/repositories?tags=true", "/api/v4/projects/2/registry/repositories?tags=true&tags_count=true", { headers: admin }],
      ["GET /groups/1/registry/repositories", "/api/v4/groups/1/registry/repositories", { headers: admin }],
      ["GraphQL group { packages }", "/api/graphql", gql('{ group(fullPath: "group1") { packages(first: 20) { nodes { name } } } }')],
      ["GET /audit_events page 1", "/api/v4/audit_events", { headers: admin }],
      ["GET /audit_events page 50 of 100", "/api/v4/audit_events?per_page=100&page=50", { headers: admin }],
      ["GraphQL runners(first: 20)", "/api/graphql", gql("{ runners(first: 20) { nodes { id status } } }")],
      ["GET /projects/1/packages", "/api/v4/projects/1/packages", { headers: admin }],
    ];
    const times = new Map(requests.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, init] of requests) {
        for (let i = 0; i < PER_ROUND; i++) {
          const start = performance.now();
          const res = await fetch(`${base}${url}`, init);
          const text = await res.text();
          times.get(name).push(performance.now() - start);
          if (!res.ok || text.includes('"errors"')) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
        }
      }
    }
    for (const [name] of requests) results.push({ rows, name, medianMs: Number(median(times.get(name)).toFixed(2)) });
  }
} finally {
  await worker.stop();
}

const names = [...new Set(results.map((r) => r.name))];
console.log(`\n| request | ${SIZES.map((n) => `${n.toLocaleString("en")} rows`).join(" | ")} |`);
console.log(`|---|${SIZES.map(() => "---").join("|")}|`);
for (const name of names) {
  console.log(`| ${name} | ${SIZES.map((n) => `${results.find((r) => r.rows === n && r.name === name).medianMs} ms`).join(" | ")} |`);
}
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench", "results", "listings-latest.json"), JSON.stringify({ machine: machine(), rounds: ROUNDS, perRound: PER_ROUND, results }, null, 2));
