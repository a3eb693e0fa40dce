// CPU per request of the Worker's runtime, A/B across bundles, on a shared machine (issue 32).
// Throughput on 2 cores shared with other work measures the machine; the CPU time the workerd
// process itself spends (all its threads' time on a CPU, /proc/<pid>/task/*/schedstat) for a fixed number
// of requests does not depend on who else is running, only on what the Worker does. Each bundle is
// served on its own workerd (bench/lib/worker.mjs), seeded alike; the bundles take turns scenario by
// scenario, ROUNDS times; each figure is the median over rounds of CPU µs per request, and each
// ratio the median over rounds of the two bundles' ratio within a round.
//
// What it includes: everything workerd does for a request (HTTP parsing, Miniflare's entry worker,
// the Worker's JavaScript, its Durable Object calls, which run in the same process, and the log line
// handed to the runtime). What it leaves out: the load generator and Miniflare's log handling in this
// Node process (printed separately as "node µs/req", which is not the Worker's cost).
//
// Run:  npx node bench/cpu.mjs                       the current tree, every scenario
//       CPU_BUNDLES=base=/tmp/a/index.js,new=/tmp/b/index.js npx node bench/cpu.mjs empty user
//       (bundles from `wrangler deploy --dry-run --outdir`, e.g. buildWorker() of bench/lib/worker.mjs)
//       CPU_MODE=loop ... the Worker's JavaScript alone (below)
//       CPU_LISTINGS=1 ... adds the listings of bench/listings.mjs --ratios (each bundle's D1 seeded
//       to its instance first: 100,251 projects, 20k groups, 200k audit events, 20k runners, and a
//       member of 50 groups), and the D1 floors /-/bench/d1-first and /-/bench/d1-read
// Bounded: ROUNDS (default 5) x scenarios x bundles x REQUESTS (default 2000) at 8 connections.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";
import { buildWorker, startBuiltWorker } from "./lib/worker.mjs";
import { startWorkersOAuthProvider } from "./lib/peer-servers.mjs";
import { dpopGets, dpopKey } from "./lib/dpop-proofs.mjs";
import { seededRatiosInstance } from "./lib/listing-ratios.mjs";

const ROUNDS = Number(process.env.CPU_ROUNDS ?? 5);
const REQUESTS = Number(process.env.CPU_REQUESTS ?? 2000);
const CONNECTIONS = Number(process.env.CPU_CONNECTIONS ?? 8);
/**
 * CPU_MODE=loop: each figure is one request whose Worker calls the bundle's own fetch REQUESTS times
 * in a row (a wrapper module beside the bundle, below), so HTTP parsing, Miniflare's entry worker and
 * the connection fall out and what is left is the Worker's JavaScript per request (the log line and
 * the Response included). Small differences between bundles stand out there; the default mode
 * gives the whole cost a client sees.
 */
const LOOP = process.env.CPU_MODE === "loop";
const LISTINGS = process.env.CPU_LISTINGS === "1";
/** The loop's default export; the bundle's own is renamed to `bundled_default` (loopScript). */
const LOOP_WRAPPER = `
const cpu_loop_default = {
  ...bundled_default,
  async fetch(req, env, ctx) {
    const u = new URL(req.url);
    const n = Number(u.searchParams.get("__loop") ?? 0);
    if (!n) return bundled_default.fetch(req, env, ctx);
    const spec = JSON.parse(u.searchParams.get("__request"));
    for (let i = 0; i < n; i++) {
      const res = await bundled_default.fetch(new Request(spec.url, { method: spec.method, headers: spec.headers, body: spec.body }), env, ctx);
      await res.arrayBuffer();
      if (res.status !== 200) return new Response(String(res.status), { status: 500 });
    }
    return new Response("ok");
  },
};
`;
/**
 * A copy of the bundle whose default export is the loop (Miniflare loads one module file): the
 * bundle's closing `export { ..., x as default }` is rewritten, the rest is byte for byte the same.
 */
function loopScript(bundle) {
  const source = readFileSync(bundle, "utf8");
  const exported = /\n {2}(\w+) as default\n\};/.exec(source);
  if (!exported) throw new Error(`${bundle}: no "x as default" export to wrap`);
  const file = path.join(path.dirname(bundle), "cpu-loop.js");
  const rewritten = source.replace(exported[0], "\n  cpu_loop_default as default\n};");
  writeFileSync(file, rewritten.replace(/\nexport \{/, `\nconst bundled_default = ${exported[1]};${LOOP_WRAPPER}export {`));
  return file;
}

/** workerd processes that are children of this one. */
function workerdChildren() {
  const out = new Set();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === process.pid && /\(workerd\)/.test(stat)) out.add(Number(pid));
    } catch {
      // the process ended while listing
    }
  }
  return out;
}

/** CPU time of a process's threads in µs (schedstat's nanoseconds on the CPU, finer than stat's ticks). */
function cpuMicros(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended while listing
    }
  }
  return ns / 1000;
}

const bundles = process.env.CPU_BUNDLES
  ? process.env.CPU_BUNDLES.split(",").map((pair) => pair.split("="))
  : [["current tree", buildWorker()]];
const wanted = process.argv.slice(2);

/** CPU_MODE=loop: one request that makes the Worker answer `opts` REQUESTS times. */
async function loopOnce(b, opts) {
  const spec = { url: opts.url, method: opts.method ?? "GET", headers: opts.headers ?? {}, body: opts.body };
  const res = await fetch(`${b.worker.url}/-/cpu-loop?__loop=${REQUESTS}&__request=${encodeURIComponent(JSON.stringify(spec))}`);
  const text = await res.text();
  return { requests: { total: REQUESTS }, non2xx: res.status === 200 ? 0 : REQUESTS, errors: res.status === 200 ? 0 : `${res.status} ${text}` };
}

/**
 * CPU_LISTINGS=1: the instance of bench/listings.mjs --ratios (bench/lib/listing-ratios.mjs) in this
 * bundle's D1, an administrator and a member of 50 groups signed in, and the listings of its table.
 */
async function listingScenarios(worker, base) {
  const { admin, as50 } = await seededRatiosInstance(base, await worker.mf.getD1Database("DB"));
  return {
    "d1-first": { url: `${base}/-/bench/d1-first` },
    "d1-read": { url: `${base}/-/bench/d1-read` },
    "projects-admin": { url: `${base}/api/v4/projects`, headers: admin },
    "projects-50": { url: `${base}/api/v4/projects`, headers: as50 },
    "projects-200-admin": { url: `${base}/api/v4/projects?page=200`, headers: admin },
    "projects-200-50": { url: `${base}/api/v4/projects?page=200`, headers: as50 },
    "projects-keyset-50": { url: `${base}/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=90225`, headers: as50 },
    "projects-search-50": { url: `${base}/api/v4/projects?search=project77776`, headers: as50 },
    "groups-50": { url: `${base}/api/v4/groups`, headers: as50 },
    "users-search": { url: `${base}/api/v4/users?search=user17777`, headers: as50 },
    "audit-admin": { url: `${base}/api/v4/audit_events`, headers: admin },
    "runners-admin": { url: `${base}/api/v4/runners/all`, headers: admin },
  };
}

const served = [];
try {
  for (const [name, scriptPath] of bundles) {
    const before = workerdChildren();
    const worker = await startBuiltWorker({ vars: BENCH_VARS, scriptPath: LOOP ? loopScript(scriptPath) : scriptPath });
    const pids = [...workerdChildren()].filter((p) => !before.has(p));
    if (pids.length !== 1) throw new Error(`${name}: expected one new workerd process, found ${pids.length}`);
    const base = worker.url;
    const seed = await seedService(base);
    const reader = await seed.family();
    const passwordToken = (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "bench", password: USER_PASSWORD })))).access_token;
    const confidential = seed.confidentialApp;
    const basic = `Basic ${Buffer.from(`${confidential.application_id}:${confidential.secret}`).toString("base64")}`;
    const bearer = { Authorization: `Bearer ${reader.access_token}` };
    const scenarios = {
      empty: { url: `${base}/-/bench/empty` },
      "do-read": { url: `${base}/-/bench/do-read` },
      user: { url: `${base}/api/v4/user`, headers: bearer },
      "token-info": { url: `${base}/oauth/token/info`, headers: bearer },
      introspect: {
        url: `${base}/oauth/introspect`,
        method: "POST",
        headers: { Authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: passwordToken }).toString(),
      },
    };
    if (LISTINGS) Object.assign(scenarios, await listingScenarios(worker, base));
    // A DPoP-bound GET /api/v4/user (issue 29's cost row): every request its own proof, from a
    // pool signed before each run (beforeRun, outside the figure); a proof cannot be replayed, so
    // the scenario is left out of CPU_MODE=loop.
    if (!LOOP) {
      const key = dpopKey();
      const tokenUrl = `${base}/oauth/token`;
      const dpopForm = (proof) => ({ ...form({ grant_type: "password", username: "bench", password: USER_PASSWORD, scope: "api" }), headers: { "Content-Type": "application/x-www-form-urlencoded", DPoP: proof } });
      const nonce = (await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl)))).headers.get("DPoP-Nonce");
      const bound = await json(await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl, { nonce }))));
      if (bound.token_type !== "DPoP") throw new Error(`${name}: not DPoP-bound: ${JSON.stringify(bound)}`);
      scenarios.dpop = dpopGets(`${base}/api/v4/user`, bound.access_token, key, nonce, REQUESTS + 200);
    }
    for (const [s, opts] of Object.entries(scenarios)) {
      if (opts.beforeRun) continue; // dpop: its non-2xx count is checked when measured
      const res = await fetch(opts.url, { method: opts.method ?? "GET", headers: opts.headers, body: opts.body });
      if (res.status !== 200) throw new Error(`${name} ${s}: ${res.status} ${await res.text()}`);
    }
    served.push({ name, worker, pid: pids[0], scenarios });
  }
  // CPU_PEER=1: @cloudflare/workers-oauth-provider on its own workerd, its empty and Bearer routes
  // beside ours (bench/lib/peer-servers.mjs), so the gap of issue 32's first rows reads in µs.
  if (process.env.CPU_PEER === "1" && !LOOP) {
    const before = workerdChildren();
    const wop = await startWorkersOAuthProvider();
    const pids = [...workerdChildren()].filter((p) => !before.has(p));
    if (pids.length !== 1) throw new Error(`peer: expected one new workerd process, found ${pids.length}`);
    const token = (await wop.grant()).access_token;
    served.push({ name: "workers-oauth-provider", worker: wop, pid: pids[0], scenarios: { empty: { url: `${wop.url}/-/empty` }, user: { url: `${wop.url}/api/user`, headers: { Authorization: `Bearer ${token}` } } } });
  }

  const names = Object.keys(served[0].scenarios).filter((s) => wanted.length === 0 || wanted.includes(s));
  // Warm-up: JIT and every object, once per bundle and scenario, outside the figures.
  const servedFor = (s) => served.filter((b) => b.scenarios[s]);
  /** One autocannon run; a scenario's `beforeRun` (the DPoP proof pool) runs first, outside any figure. */
  const run = async ({ beforeRun, ...opts }, amount) => {
    await beforeRun?.();
    return autocannon({ ...opts, connections: CONNECTIONS, amount });
  };
  for (const s of names) for (const b of servedFor(s)) await (LOOP ? loopOnce(b, b.scenarios[s]) : run(b.scenarios[s], Math.min(REQUESTS, 1000)));

  const samples = {}; // `${scenario}\t${bundle}` -> [{ worker, node }]
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of names) {
      for (const b of servedFor(s)) {
        const { beforeRun, ...opts } = b.scenarios[s];
        await beforeRun?.();
        const w0 = cpuMicros(b.pid);
        const n0 = process.cpuUsage();
        const result = LOOP ? await loopOnce(b, opts) : await autocannon({ ...opts, connections: CONNECTIONS, amount: REQUESTS });
        const worker = (cpuMicros(b.pid) - w0) / result.requests.total;
        const nu = process.cpuUsage(n0);
        const node = (nu.user + nu.system) / result.requests.total;
        if (result.non2xx || result.errors) throw new Error(`${b.name} ${s}: non-2xx ${result.non2xx}, errors ${result.errors}`);
        (samples[`${s}\t${b.name}`] ??= []).push({ worker, node });
      }
    }
  }

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const header = `| scenario | ${served.map((b) => `${b.name}: workerd µs/req (min-max)`).join(" | ")}${served.length > 1 ? ` | ${served.slice(1).map((b) => `${b.name} / ${served[0].name}`).join(" | ")}` : ""} | node µs/req (${served.map((b) => b.name).join(" / ")}) |`;
  const lines = [header, `|---|${served.map(() => "---:").join("|")}${served.length > 1 ? `|${served.slice(1).map(() => "---:").join("|")}` : ""}|---:|`];
  for (const s of names) {
    const per = served.map((b) => samples[`${s}\t${b.name}`]?.map((x) => x.worker) ?? null);
    const cells = per.map((xs) => (xs ? `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))})` : "—"));
    // Each round's bundles ran one after the other: the ratio within a round, then its median.
    const ratios = per.slice(1).map((xs) => (xs && per[0] ? median(xs.map((x, r) => x / per[0][r])).toFixed(2) : "—"));
    const node = served.map((b) => (samples[`${s}\t${b.name}`] ? Math.round(median(samples[`${s}\t${b.name}`].map((x) => x.node))) : "—")).join(" / ");
    lines.push(`| ${s} | ${cells.join(" | ")}${ratios.length ? ` | ${ratios.join(" | ")}` : ""} | ${node} |`);
  }
  console.log(`\n${ROUNDS} rounds x ${REQUESTS} requests ${LOOP ? "in one loop inside the Worker (CPU_MODE=loop)" : `at ${CONNECTIONS} connections`} per scenario and bundle\n\n${lines.join("\n")}`);
} finally {
  await Promise.allSettled(served.map((b) => b.worker.stop()));
}
