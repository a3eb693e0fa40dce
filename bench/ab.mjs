// Throughput A/B of two bundles in one run (issue 32's routes), for a shared machine: both served
// on workerd (bench/lib/worker.mjs), seeded alike, every route of both taking turns slice by slice
// (bench/lib/measure.mjs measureInterleaved), so background load falls on both alike; prints
// requests/s per route and bundle and each route's B/A ratio, and each route against the same
// bundle's one-DO-read floor. Bounded: AB_SLICES x AB_SLICE_SECONDS per route and bundle.
// Run: AB_A=/tmp/a/index.js AB_B=/tmp/b/index.js npx node bench/ab.mjs   (bundles from buildWorker())
import { execSync } from "node:child_process";
import { measureInterleaved } from "./lib/measure.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";
import { startBuiltWorker } from "./lib/worker.mjs";

const SLICES = Number(process.env.AB_SLICES ?? 3);
const SLICE_SECONDS = Number(process.env.AB_SLICE_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 32);
const bundles = { A: process.env.AB_A, B: process.env.AB_B };
if (!bundles.A || !bundles.B) throw new Error("set AB_A and AB_B to two built bundles (index.js)");

const workers = {};
try {
  const scenarios = {};
  for (const [name, scriptPath] of Object.entries(bundles)) {
    const w = (workers[name] = await startBuiltWorker({ vars: BENCH_VARS, scriptPath }));
    const seed = await seedService(w.url);
    const bearer = { Authorization: `Bearer ${(await seed.family()).access_token}` };
    const passwordToken = (await json(await fetch(`${w.url}/oauth/token`, form({ grant_type: "password", username: "bench", password: USER_PASSWORD })))).access_token;
    const basic = `Basic ${Buffer.from(`${seed.confidentialApp.application_id}:${seed.confidentialApp.secret}`).toString("base64")}`;
    Object.assign(scenarios, {
      [`${name}: empty route`]: { url: `${w.url}/-/bench/empty` },
      [`${name}: one DO read`]: { url: `${w.url}/-/bench/do-read` },
      [`${name}: GET /api/v4/user`]: { url: `${w.url}/api/v4/user`, headers: bearer },
      [`${name}: GET /oauth/token/info`]: { url: `${w.url}/oauth/token/info`, headers: bearer },
      [`${name}: POST /oauth/introspect`]: {
        url: `${w.url}/oauth/introspect`,
        method: "POST",
        headers: { Authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: passwordToken }).toString(),
      },
    });
  }
  for (const [name, s] of Object.entries(scenarios)) {
    const res = await fetch(s.url, { method: s.method ?? "GET", headers: s.headers, body: s.body });
    if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
  }
  const load = execSync("uptime", { encoding: "utf8" }).trim();
  const rows = await measureInterleaved(scenarios, CONNECTIONS, { slices: SLICES, sliceSeconds: SLICE_SECONDS });
  const rps = (n) => rows.find((r) => r.name === n).rps;
  const routes = ["empty route", "one DO read", "GET /api/v4/user", "GET /oauth/token/info", "POST /oauth/introspect"];
  const lines = ["| route | A req/s | B req/s | B / A | A / A's DO read | B / B's DO read |", "|---|---:|---:|---:|---:|---:|"];
  for (const r of routes) {
    const a = rps(`A: ${r}`);
    const b = rps(`B: ${r}`);
    lines.push(`| ${r} | ${a} | ${b} | ${(b / a).toFixed(2)} | ${(a / rps("A: one DO read")).toFixed(2)} | ${(b / rps("B: one DO read")).toFixed(2)} |`);
  }
  console.log(`\nbefore: ${load}\nafter: ${execSync("uptime", { encoding: "utf8" }).trim()}\n${SLICES} slices x ${SLICE_SECONDS} s per route and bundle, ${CONNECTIONS} connections\n\n${lines.join("\n")}`);
} finally {
  await Promise.allSettled(Object.values(workers).map((w) => w.stop()));
}
