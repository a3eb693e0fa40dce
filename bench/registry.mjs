#!/usr/bin/env node
// Container registry benchmark (issue 10), on the built Worker served directly by workerd (bench/lib/worker.mjs):
//   1. a 50 MiB layer pushed through /v2/ (POST, then PUT ?digest= with the body) and pulled back (GET blob),
//      MiB/s, against a plain R2 put and get of the same bytes through /-/bench/r2-upload and r2-download
//      in the same run (goal: >= 0.8 of plain R2);
//   2. manifest GET by tag req/s and p99, against the one-Durable-Object-read route, the one-D1-read route
//      (a manifest GET is one registry-token verification and one D1 read) and the empty route.
// Usage: node bench/registry.mjs [--duration 5] [--connections 32] [--rounds 3]. Prints JSON and a Markdown
// table, and writes bench/results/registry-latest.json.
import { createHash, randomFillSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cliArg, measure } from "./lib/measure.mjs";
import { startBuiltWorker } from "./lib/worker.mjs";
import { pushSmallImage } from "./lib/hot-path.mjs";

const DURATION = cliArg("duration", 5);
const CONNECTIONS = cliArg("connections", 32);
const ROUNDS = cliArg("rounds", 3);
const MiB = 1024 * 1024;
const LAYER = 50 * MiB;
const ROOT_PASSWORD = "bench-Root-Password-42";

const cannon = (url, opts = {}) => measure(new URL(url).pathname, CONNECTIONS, { url, ...opts }, { duration: DURATION });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sha = (b) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

async function json(res, what) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A project, a write_registry token of root, and a registry JWT for its repository. */
async function setup(base) {
  const oauth = await json(await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "root", password: ROOT_PASSWORD, scope: "api" }) }), "token");
  const auth = { Authorization: `Bearer ${oauth.access_token}`, "Content-Type": "application/json" };
  const project = await json(await fetch(`${base}/api/v4/projects`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", path: `bench-${Date.now()}` }) }), "project");
  const expires_at = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const pat = await json(await fetch(`${base}/api/v4/users/1/personal_access_tokens`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", scopes: ["write_registry"], expires_at }) }), "pat");
  const name = project.path_with_namespace.toLowerCase();
  const q = new URLSearchParams({ service: "container_registry", scope: `repository:${name}:pull,push` });
  const jwt = await json(await fetch(`${base}/jwt/auth?${q}`, { headers: { Authorization: `Basic ${Buffer.from(`root:${pat.token}`).toString("base64")}` } }), "jwt");
  return { name, bearer: { Authorization: `Bearer ${jwt.token}` } };
}

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function drain(res, what) {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  let n = 0;
  for await (const chunk of res.body) n += chunk.length;
  return n;
}

/** Best of three for each of the four transfers, interleaved so background load falls on all alike. */
async function blobs(base, { name, bearer }) {
  const best = { plainPut: Infinity, plainGet: Infinity, registryPut: Infinity, registryGet: Infinity };
  for (let i = 0; i < 3; i++) {
    const bytes = randomFillSync(Buffer.alloc(LAYER));
    const digest = sha(bytes);
    let key;
    best.plainPut = Math.min(best.plainPut, await timed(async () => (key = (await json(await fetch(`${base}/-/bench/r2-upload`, { method: "PUT", body: bytes }), "plain put")).key)));
    best.registryPut = Math.min(
      best.registryPut,
      await timed(async () => {
        const start = await fetch(`${base}/v2/${name}/blobs/uploads/`, { method: "POST", headers: bearer });
        if (start.status !== 202) throw new Error(`upload start: ${start.status}`);
        const put = await fetch(`${base}${start.headers.get("location")}?digest=${digest}`, { method: "PUT", headers: bearer, body: bytes });
        if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`);
      }),
    );
    best.plainGet = Math.min(best.plainGet, await timed(async () => drain(await fetch(`${base}/-/bench/r2-download/${key.slice("bench/".length)}`), "plain get")));
    best.registryGet = Math.min(best.registryGet, await timed(async () => drain(await fetch(`${base}/v2/${name}/blobs/${digest}`, { headers: bearer }), "blob get")));
  }
  const mibs = (ms) => Math.round((LAYER / MiB / (ms / 1000)) * 10) / 10;
  return {
    upload: { registryMiBps: mibs(best.registryPut), plainR2MiBps: mibs(best.plainPut), ratio: Math.round((best.plainPut / best.registryPut) * 100) / 100 },
    download: { registryMiBps: mibs(best.registryGet), plainR2MiBps: mibs(best.plainGet), ratio: Math.round((best.plainGet / best.registryGet) * 100) / 100 },
  };
}

async function manifests(base, ctx) {
  await pushSmallImage(base, ctx);
  const scenarios = {
    empty: () => cannon(`${base}/-/bench/empty`),
    doRead: () => cannon(`${base}/-/bench/do-read`, { requests: Array.from({ length: 64 }, (_, k) => ({ path: `/-/bench/do-read?k=${k}` })) }),
    d1Read: () => cannon(`${base}/-/bench/d1-read`),
    manifestGet: () => cannon(`${base}/v2/${ctx.name}/manifests/latest`, { headers: { ...ctx.bearer, Accept: "application/vnd.oci.image.manifest.v1+json" } }),
  };
  const rounds = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, run] of Object.entries(scenarios)) {
      const res = await run();
      (rounds[k] ??= []).push({ reqPerSec: res.rps, p99Ms: res.p99, non2xx: res.non2xx, errors: res.errors });
    }
  }
  const out = {};
  for (const [k, rs] of Object.entries(rounds)) {
    out[k] = { reqPerSec: median(rs.map((x) => x.reqPerSec)), p99Ms: median(rs.map((x) => x.p99Ms)), non2xx: rs.reduce((a, x) => a + x.non2xx, 0), errors: rs.reduce((a, x) => a + x.errors, 0), rounds: rs.map((x) => x.reqPerSec) };
  }
  return out;
}

const worker = await startBuiltWorker({ vars: { BENCH_ROUTES: "true", ROOT_PASSWORD } });
try {
  await fetch(`${worker.url}/-/health`);
  const ctx = await setup(worker.url);
  const b = await blobs(worker.url, ctx);
  const m = await manifests(worker.url, ctx);
  const result = { date: new Date().toISOString(), duration: DURATION, connections: CONNECTIONS, layerMiB: LAYER / MiB, blobs: b, manifests: m, manifestVsDoRead: Math.round((m.manifestGet.reqPerSec / m.doRead.reqPerSec) * 100) / 100, manifestVsD1Read: Math.round((m.manifestGet.reqPerSec / m.d1Read.reqPerSec) * 100) / 100 };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(new URL("./results/registry-latest.json", import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`
| measure | value |
|---|---|
| blob upload, 50 MiB (POST + PUT ?digest=) | ${b.upload.registryMiBps} MiB/s vs plain R2 put ${b.upload.plainR2MiBps} MiB/s (${b.upload.ratio}) |
| blob download, 50 MiB | ${b.download.registryMiBps} MiB/s vs plain R2 get ${b.download.plainR2MiBps} MiB/s (${b.download.ratio}) |
| empty route | ${m.empty.reqPerSec} req/s, p99 ${m.empty.p99Ms} ms |
| one DO read route | ${m.doRead.reqPerSec} req/s, p99 ${m.doRead.p99Ms} ms |
| one D1 read route | ${m.d1Read.reqPerSec} req/s, p99 ${m.d1Read.p99Ms} ms |
| manifest GET by tag | ${m.manifestGet.reqPerSec} req/s, p99 ${m.manifestGet.p99Ms} ms (${result.manifestVsDoRead} of DO read, ${result.manifestVsD1Read} of D1 read) |`);
} finally {
  await worker.stop();
}
