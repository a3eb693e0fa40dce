// The deep and non-administrator listings of docs/scaling.md ("Listings at GitLab's sizes"): seeds
// an instance shaped like a large GitLab one (100,251 projects in 20,000 groups, 20,000 users,
// 200,000 audit events, 20,000 runners) directly in D1, then measures each listing's median over
// `perListing` requests, one at a time, in rounds interleaved with `GET /api/v4/user` so that
// background load falls on every figure alike; each listing is reported as its median divided by that one.
// Used by bench/listings.mjs --ratios.
import os from "node:os";
import { BENCH_VARS, USER_PASSWORD, form, json } from "./seed.mjs";

export const SHAPE = { projects: 100_251, groups: 20_000, users: 20_000, auditEvents: 200_000, runners: 20_000 };
/** The goal: every listing within twice `GET /api/v4/user`. */
export const GOAL = 2;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The 10th percentile: on a loaded machine, nearer what a request costs when it is not kept waiting. */
const p10 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 10)];
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];

/**
 * Tops the tables up to SHAPE (ids above the current maximum), in slices of 50,000 rows (every row
 * of groups and projects fires the FTS and row_counts triggers; local D1 bounds a statement's time).
 * Every tenth group is a subgroup of the one before it; visibility is a third each of public,
 * internal and private, for groups and projects alike; project n lives in group 1 + (n - 1) % groups.
 */
export async function seedShape(db, shape = SHAPE) {
  const now = Date.now();
  const have = async (table) => (await db.prepare(`SELECT coalesce(max(id), 0) AS n FROM ${table}`).first()).n;
  const range = (from, to) => `WITH RECURSIVE s(n) AS (SELECT ${from + 1} UNION ALL SELECT n + 1 FROM s WHERE n < ${to})`;
  const SLICE = 50_000;
  const topUp = async (table, rows, insert) => {
    for (let at = await have(table); at < rows; at = await have(table)) await db.prepare(`${range(at, Math.min(rows, at + SLICE))} ${insert}`).run();
  };
  await topUp("users", shape.users, `INSERT INTO users (id, username, name, email, password_hash, created_at)
    SELECT n, 'user' || n, 'User ' || n, 'user' || n || '@example.com', 'x', ${now} - n FROM s`);
  await topUp("groups", shape.groups, `INSERT INTO groups (id, name, path, full_path, parent_id, visibility, created_at)
    SELECT n, 'Group ' || n, 'group' || n, 'group' || n, CASE WHEN n % 10 = 0 THEN n - 1 END,
           CASE n % 3 WHEN 0 THEN 'public' WHEN 1 THEN 'internal' ELSE 'private' END, ${now} - n FROM s`);
  const g = shape.groups;
  await topUp("projects", shape.projects, `INSERT INTO projects (id, name, path, path_with_namespace, namespace_kind, namespace_id, visibility, created_at, last_activity_at)
    SELECT n, 'Project ' || n, 'project' || n, 'group' || (1 + (n - 1) % ${g}) || '/project' || n, 'group', 1 + (n - 1) % ${g},
           CASE n % 3 WHEN 0 THEN 'public' WHEN 1 THEN 'internal' ELSE 'private' END, ${now} - n, ${now} - (n * 7) % 100000 FROM s`);
  await topUp("audit_events", shape.auditEvents, `INSERT INTO audit_events (id, action, author_id, entity_type, entity_id, details, created_at)
    SELECT n, 'sign_in', 1, 'user', '1', '{}', ${now} - ${shape.auditEvents} + n FROM s`);
  await topUp("runners", shape.runners, `INSERT INTO runners (id, runner_type, description, token_hash, created_at, contacted_at)
    SELECT n, 'instance_type', 'runner ' || n, 'bench-ratio-' || n, ${now} - n, CASE WHEN n % 4 = 0 THEN NULL ELSE ${now} - n * 13 END FROM s`);
}

/**
 * What the cron's "search index merge" (src/db/search-upkeep.ts) does over a few runs after a bulk
 * import, done now: FTS5's incremental merge of each search index's segments towards one, a
 * merge of every level started, then continued until nothing is left to merge (24 steps of 500
 * pages cover 100k rows twice over; a finished merge makes a step do nothing). The bench's rows were inserted through the triggers, as an import would be.
 */
export async function mergeSearchIndexes(db, steps = 24) {
  for (const table of ["projects_fts", "groups_fts", "users_fts"]) {
    for (let i = 0; i < steps; i++) await db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES('merge', ${i === 0 ? -500 : 500})`).run();
  }
}

/** Makes `userId` a developer of `count` groups spread over the instance (private ones among them). */
export async function joinGroups(db, userId, count, groups = SHAPE.groups) {
  const step = Math.floor(groups / count);
  await db.prepare(`INSERT OR IGNORE INTO members (source_type, source_id, user_id, access_level, created_at)
    SELECT 'group', id, ?, 30, ? FROM groups WHERE id % ? = 2 AND id <= ? LIMIT ?`).bind(userId, Date.now(), step, step * count, count).run();
}

/**
 * The instance of --ratios in the D1 of a Worker served at `base` (`db` its binding): seeded, with
 * root's and a member of 50 groups' Authorization headers, for the scripts that compare builds on it
 * (bench/cpu.mjs CPU_LISTINGS=1, bench/listing-phases.mjs).
 */
export async function seededRatiosInstance(base, db) {
  const tokenFor = async (username, password) =>
    (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username, password, scope: "api" })))).access_token;
  const admin = { Authorization: `Bearer ${await tokenFor("root", BENCH_VARS.ROOT_PASSWORD)}` };
  const member50 = await json(
    await fetch(`${base}/api/v4/users`, {
      method: "POST",
      headers: { ...admin, "Content-Type": "application/json" },
      body: JSON.stringify({ username: "member50", name: "member50", email: "member50@example.com", password: USER_PASSWORD, skip_confirmation: true }),
    }),
  );
  await seedShape(db);
  await joinGroups(db, member50.id, 50);
  const as50 = { Authorization: `Bearer ${await tokenFor("member50", USER_PASSWORD)}` };
  return { admin, member50, as50 };
}

/**
 * Measures each of `requests` ([name, url, init, expected status]) `perListing` times, one request
 * at a time: in each round every listing once, each followed by one `GET /api/v4/user` of
 * `floorInit`'s caller (the floor), so that every figure sees the same moments of load. Two
 * rounds first warm the Worker and the database's page cache up (not counted).
 */
export async function measureRatios(base, requests, floorInit, perListing = 30, warmup = 2, floorBase = base) {
  const floor = [];
  const times = requests.map(() => []);
  const timed = async (url, init, expect, name) => {
    const start = performance.now();
    const res = await fetch(`${base}${url}`, init);
    const text = await res.text();
    const ms = performance.now() - start;
    if (res.status !== expect) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
    return ms;
  };
  for (let round = -warmup; round < perListing; round++) {
    for (const [i, [name, url, init, expect]] of requests.entries()) {
      const ms = await timed(url, init, expect ?? 200, name);
      const floorMs = await timed(`${floorBase.slice(base.length)}/api/v4/user`, floorInit, 200, "GET /api/v4/user");
      if (round < 0) continue;
      times[i].push(ms);
      floor.push(floorMs);
    }
  }
  const floorMedian = median(floor);
  return {
    load: os.loadavg().map((x) => x.toFixed(2)).join(" "),
    floor: { medianMs: floorMedian, p99Ms: p99(floor) },
    rows: requests.map(([name, url], i) => ({ name, url, medianMs: median(times[i]), p10Ms: p10(times[i]), p99Ms: p99(times[i]), ratio: median(times[i]) / floorMedian })),
    floorP10Ms: p10(floor),
  };
}

export function ratioTable({ floor, rows, load }, loadBefore) {
  const ms = (x) => `${x.toFixed(2)} ms`;
  const lines = [
    `load average before: ${loadBefore}; after: ${load}`,
    "",
    "| listing | p50 | p99 | p50 / `GET /api/v4/user` | goal <= 2x |",
    "|---|---:|---:|---:|---|",
    `| \`GET /api/v4/user\` (the floor) | ${ms(floor.medianMs)} | ${ms(floor.p99Ms)} | 1.00x | |`,
  ];
  for (const r of rows) lines.push(`| ${r.name} | ${ms(r.medianMs)} | ${ms(r.p99Ms)} | ${r.ratio.toFixed(2)}x | ${r.ratio <= GOAL ? "yes" : "**no**"} |`);
  return lines.join("\n");
}
