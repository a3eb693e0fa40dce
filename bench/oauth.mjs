// OAuth benchmark (issue 2, Performance). Builds the Worker, serves the bundle directly on workerd
// (bench/lib/worker.mjs), seeds a user, a trusted public application and token families over
// HTTP, then measures
//   1. sequential latency, all scenarios interleaved round by round (the fair ratio on a shared box);
//   2. autocannon at 1 and 32 connections, scenarios taking turns in short slices: empty route,
//      one DO read, one D1 read, GET /oauth/token/info, GET /api/v4/user (OAuth token; PAT,
//      both one hop), one DO write, a chain of refresh rotations, a password grant, GET /oauth/userinfo.
//   Issue 11 adds to the interleaved rounds: the code exchange with and without openid (the cost of
//   signing an id_token), userinfo, and a device-code poll, beside the floors of the same run.
// Run: npx node bench/oauth.mjs   (Node 22 via the `node` devDependency; writes
// bench/results/oauth-latest.json and prints the Markdown tables of bench/RESULTS.md)
// A short check: BENCH_ROUNDS=20 BENCH_SLICES=1 BENCH_SLICE_SECONDS=1 npx node bench/oauth.mjs
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startBuiltWorker, ROOT } from "./lib/worker.mjs";
import { machine, measureInterleaved, table } from "./lib/measure.mjs";
import { keyedDoWrites, refreshChains } from "./lib/scenarios.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";

const CONNECTIONS = [1, 32];
// Each scenario runs SLICES x SLICE_SECONDS per connection count, in turns with the others.
const SLICES = Number(process.env.BENCH_SLICES ?? 4);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 3);
const FAMILIES = 40;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);

/** Runs each scenario once per round, in turn, and reports median and p90 latency (ms). */
async function interleave(rounds, scenarios) {
  const times = Object.fromEntries(Object.keys(scenarios).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, go] of Object.entries(scenarios)) {
      const t = performance.now();
      const res = await go();
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${name}: ${res.status}`);
      times[name].push(performance.now() - t);
    }
  }
  const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const out = Object.entries(times).map(([name, xs]) => ({ name, median: +q(xs, 0.5).toFixed(2), p90: +q(xs, 0.9).toFixed(2) }));
  for (const r of out) console.log(`interleaved ${r.name}: median ${r.median} ms, p90 ${r.p90} ms`);
  return out;
}

const worker = await startBuiltWorker({ vars: BENCH_VARS });
const base = worker.url;

try {
  const { app, application, codeExchange, family, personalAccessToken } = await seedService(base);
  const reader = await family();
  let sequential = (await family()).refresh_token;
  const chains = [];
  for (let i = 0; i < FAMILIES; i++) chains.push((await family()).refresh_token);
  const bearer = { Authorization: `Bearer ${reader.access_token}` };
  const me = await json(await fetch(`${base}/api/v4/user`, { headers: bearer }));
  const pat = await personalAccessToken(me.id);
  // Issue 11: one trusted application that may ask for openid, so both exchanges differ only in
  // the id_token (same application, user and token family work).
  const oidcApp = await application({ scopes: "api read_user openid profile email" });
  const oidcReader = await family(oidcApp, "openid profile email");
  if (!oidcReader.id_token) throw new Error("no id_token from the openid exchange");
  const oidcBearer = { Authorization: `Bearer ${oidcReader.access_token}` };
  // Codes for the exchange scenarios, made before timing (they live 10 minutes): scope api (no
  // id_token) or openid profile email (an RS256 id_token).
  const plainCodes = [];
  const openidCodes = [];
  for (let i = 0; i < ROUNDS; i++) {
    plainCodes.push(await codeExchange(oidcApp, "api"));
    openidCodes.push(await codeExchange(oidcApp, "openid profile email"));
  }
  const device = await json(await fetch(`${base}/oauth/authorize_device`, form({ client_id: oidcApp.application_id, scope: "api" })));
  const poll = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: oidcApp.application_id, device_code: device.device_code };
  // Sanity: every scenario answers 200 before it is measured.
  for (const p of ["/-/bench/empty", "/-/bench/do-read", "/-/bench/d1-read", "/oauth/token/info", "/api/v4/user"]) {
    const r = await fetch(`${base}${p}`, { headers: bearer });
    if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
  }
  if ((await fetch(`${base}/oauth/userinfo`, { headers: oidcBearer })).status !== 200) throw new Error("/oauth/userinfo");

  // Interleaved sequential rounds first: every scenario sees the same background load (the
  // machine is shared), so their latency ratios are the fair comparison.
  const interleaved = await interleave(ROUNDS, {
    "empty route": () => fetch(`${base}/-/bench/empty`),
    "one DO read": () => fetch(`${base}/-/bench/do-read`),
    "GET /oauth/token/info": () => fetch(`${base}/oauth/token/info`, { headers: bearer }),
    "GET /api/v4/user": () => fetch(`${base}/api/v4/user`, { headers: bearer }),
    "one DO write": () => fetch(`${base}/-/bench/do-write?k=seq`, { method: "POST" }),
    "refresh rotation": async () => {
      const res = await fetch(`${base}/oauth/token`, form({ grant_type: "refresh_token", client_id: app.application_id, refresh_token: sequential }));
      if (res.ok) sequential = (await res.clone().json()).refresh_token;
      return res;
    },
    "one D1 read": () => fetch(`${base}/-/bench/d1-read`),
    "code exchange (api, no id_token)": () => fetch(`${base}/oauth/token`, plainCodes.pop()),
    "code exchange (openid profile email, id_token)": async () => {
      const res = await fetch(`${base}/oauth/token`, openidCodes.pop());
      if (res.ok && !(await res.clone().json()).id_token) throw new Error("openid exchange without id_token");
      return res;
    },
    "GET /oauth/userinfo": () => fetch(`${base}/oauth/userinfo`, { headers: oidcBearer }),
    // The person never answers: every poll is authorization_pending or slow_down (400), the
    // answers a polling CLI gets all along; either counts as a success for timing, anything else
    // fails the run.
    "device-code poll (pending)": async () => {
      const res = await fetch(`${base}/oauth/token`, form(poll));
      const { error } = await res.json();
      if (error !== "authorization_pending" && error !== "slow_down") throw new Error(`device poll: ${res.status} ${error}`);
      return new Response("{}", { status: 200 });
    },
  });

  const rows = [];
  const scenarios = {
    "empty route": { url: `${base}/-/bench/empty` },
    "one DO read": { url: `${base}/-/bench/do-read` },
    "one D1 read": { url: `${base}/-/bench/d1-read` },
    "GET /oauth/token/info": { url: `${base}/oauth/token/info`, headers: bearer },
    "GET /api/v4/user": { url: `${base}/api/v4/user`, headers: bearer },
    "GET /api/v4/user (PAT)": { url: `${base}/api/v4/user`, headers: { "PRIVATE-TOKEN": pat } },
    // One object per chain, like the refresh families below.
    "one DO write": keyedDoWrites(base, FAMILIES),
    "refresh rotation chain": refreshChains(`${base}/oauth/token`, chains, { client_id: app.application_id }),
    "GET /oauth/userinfo": { url: `${base}/oauth/userinfo`, headers: oidcBearer },
    "password grant": {
      url: `${base}/oauth/token`,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "password", username: "bench", password: USER_PASSWORD }).toString(),
    },
  };
  for (const connections of CONNECTIONS) {
    rows.push(...(await measureInterleaved(scenarios, connections, { slices: SLICES, sliceSeconds: SLICE_SECONDS })));
  }

  const baselineFor = (r, all) => {
    const at = (name) => all.find((x) => x.name === name && x.connections === r.connections);
        if (r.name.startsWith("GET ")) return at("one DO read");
    if (r.name === "refresh rotation chain") return at("one DO write");
    if (r.name !== "empty route") return at("empty route");
    return null;
  };
  const med = (name) => interleaved.find((r) => r.name === name).median;
  const seqBase = {
    "GET /oauth/token/info": "one DO read",
    "GET /api/v4/user": "one DO read",
    "refresh rotation": "one DO write",
    // Issue 11's goal: an id_token costs at most 20% over the same exchange without one.
    "code exchange (openid profile email, id_token)": "code exchange (api, no id_token)",
    "GET /oauth/userinfo": "one DO read",
    "device-code poll (pending)": "one D1 read",
  };
  const seqTable = [
    `| scenario (${ROUNDS} interleaved rounds) | median ms | p90 ms | median latency of baseline / scenario |`,
    "|---|---:|---:|---|",
    ...interleaved.map((r) => {
      const b = seqBase[r.name];
      return `| ${r.name} | ${r.median} | ${r.p90} | ${b ? `${Math.round((med(b) / r.median) * 100)}% (vs ${b})` : ""} |`;
    }),
  ].join("\n");
  const out = { date: new Date().toISOString(), machine: machine(), slices: SLICES, sliceSeconds: SLICE_SECONDS, rounds: ROUNDS, interleaved, rows, seqTable, table: table(rows, baselineFor) };
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench", "results", "oauth-latest.json"), JSON.stringify(out, null, 2));
  console.log(`\n${out.seqTable}\n\n${out.table}\n`);
  console.log(JSON.stringify(out.machine, null, 2));
} finally {
  await worker.stop();
}
