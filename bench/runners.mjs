// Runners list benchmark (issue 5, Performance). Builds the Worker, serves the bundle directly on
// workerd (bench/lib/worker.mjs), seeds 10,000 runners in D1, and measures
// GET /api/v4/runners/all?per_page=100 for page 1, page 100 and a keyset page (id_after), first as
// sequential latency (median of N requests, one at a time), then with autocannon.
// The D1 query count per list request is asserted in workers tests (test/api/runner-queries.test.ts).
// Run: npx node bench/runners.mjs   (writes bench/results/runners-latest.json; the table goes into RESULTS.md)
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startBuiltWorker, ROOT } from "./lib/worker.mjs";
import { machine, measure, table } from "./lib/measure.mjs";

const ROOT_PASSWORD = "bench-Root-Password-1";
const RUNNERS = Number(process.env.BENCH_RUNNERS ?? 10_000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const DURATION = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = [1, 8];

const worker = await startBuiltWorker({ vars: { ROOT_PASSWORD, SEED_DEMO_DATA: "false" } });
const base = worker.url;

async function json(res) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

try {
  const root = await json(
    await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", username: "root", password: ROOT_PASSWORD }),
    }),
  );
  const headers = { Authorization: `Bearer ${root.access_token}` };

  // 10,000 runners in one statement, spread over types, contact times and tags.
  const db = await worker.mf.getD1Database("DB");
  const now = Date.now();
  await db
    .prepare(
      `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${RUNNERS})
       INSERT INTO runners (runner_type, description, token_hash, paused, tag_list, contacted_at, created_at)
       SELECT CASE n % 3 WHEN 0 THEN 'instance_type' WHEN 1 THEN 'group_type' ELSE 'project_type' END,
              'bench runner ' || n, 'bench-hash-' || n, n % 7 = 0,
              CASE n % 2 WHEN 0 THEN 'docker,linux' ELSE 'shell' END,
              CASE WHEN n % 5 = 0 THEN NULL ELSE ${now} - (n % 1000) * 60000 END, ${now} - n * 1000
       FROM seq`,
    )
    .run();
  const first = await fetch(`${base}/api/v4/runners/all?per_page=100`, { headers });
  const total = first.headers.get("x-total");
  if (total !== String(RUNNERS)) throw new Error(`expected ${RUNNERS} runners, X-Total is ${total}`);
  const page1 = await first.json();
  // A keyset page in the middle of the table: after the 9,900th id (the same depth as page 100).
  const idAfter = RUNNERS - 100;

  const scenarios = [
    ["page 1", `/api/v4/runners/all?per_page=100&page=1`],
    ["page 100", `/api/v4/runners/all?per_page=100&page=100`],
    ["keyset after 9,900", `/api/v4/runners/all?per_page=100&pagination=keyset&id_after=${idAfter}`],
    ["page 100, status=online", `/api/v4/runners/all?per_page=100&page=100&status=online`],
  ];

  // Interleaved (one request of each scenario per round), so the noise of a shared machine falls
  // on every scenario alike.
  for (const [, p] of scenarios) for (let i = 0; i < 10; i++) await (await fetch(base + p, { headers })).arrayBuffer(); // warm up
  const times = scenarios.map(() => []);
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const [k, [name, p]] of scenarios.entries()) {
      const t0 = performance.now();
      const res = await fetch(base + p, { headers });
      const body = await res.json();
      times[k].push(performance.now() - t0);
      if (res.status !== 200 || !Array.isArray(body)) throw new Error(`${name}: ${res.status}`);
    }
  }
  const sequential = scenarios.map(([name], k) => {
    const sorted = [...times[k]].sort((a, b) => a - b);
    const row = { name, requests: SEQUENTIAL, median_ms: +median(sorted).toFixed(2), p90_ms: +sorted[Math.floor(sorted.length * 0.9)].toFixed(2) };
    console.log(`${name}: median ${row.median_ms} ms, p90 ${row.p90_ms} ms`);
    return row;
  });
  const ratio = +(sequential[1].median_ms / sequential[0].median_ms).toFixed(2);
  console.log(`page 100 / page 1 median latency: ${ratio}x (requirement: within 2x); page 1 returned ${page1.length} runners`);

  const rows = [];
  for (const c of CONNECTIONS) {
    for (const [name, p] of scenarios.slice(0, 3)) rows.push(await measure(name, c, { url: base + p, headers }, { duration: DURATION }));
  }
  const md = [
    "| scenario | sequential requests | median ms | p90 ms |",
    "|---|---:|---:|---:|",
    ...sequential.map((r) => `| ${r.name} | ${r.requests} | ${r.median_ms} | ${r.p90_ms} |`),
    "",
    table(rows, (r, all) => (r.name === "page 1" ? null : all.find((x) => x.name === "page 1" && x.connections === r.connections))),
  ].join("\n");
  console.log(`\n${md}\n`);
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(
    path.join(ROOT, "bench", "results", "runners-latest.json"),
    JSON.stringify({ date: new Date().toISOString(), machine: machine(), runners: RUNNERS, sequential, ratio_page100_page1: ratio, autocannon: rows, markdown: md }, null, 2),
  );
  if (ratio > 2) {
    console.error("page 100 is more than 2x slower than page 1");
    process.exitCode = 1;
  }
} finally {
  await worker.stop();
}
