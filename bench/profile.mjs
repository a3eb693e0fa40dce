// CPU profile of the hot path (issue 9): the built Worker on workerd (bench/lib/worker.mjs) with
// the V8 inspector on a loopback port; while autocannon drives one scenario, the Profiler samples
// the Worker's isolate (the token families and PAT objects run in it too). Prints the functions
// with the most self time, grouped by source (the bundle's module paths are kept in its names).
// Run: npx node bench/profile.mjs [oauth|pat|token-info|empty|do-read|d1-read|introspect|refresh|refresh-secret|dpop|projects-50|groups-50|projects-admin|audit-admin|runners-admin]
//   (default oauth; bounded: 6 s). refresh-secret: a confidential client's rotations with client_id
//   and client_secret in the form body (16 chains); dpop: GET /api/v4/user with a DPoP-bound token;
//   projects-50 / groups-50: GET /projects / GET /groups page 1 of a member of 50 groups on the
//   instance of bench/listings.mjs --ratios (seeded first: 100,251 projects, 20,000 groups);
//   projects-admin / audit-admin / runners-admin: the same instance, as the administrator.
import { writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { BENCH_VARS, USER_PASSWORD, form, seedService, json } from "./lib/seed.mjs";
import { refreshChains } from "./lib/scenarios.mjs";
import { dpopGets, dpopKey } from "./lib/dpop-proofs.mjs";
import { startBuiltWorker } from "./lib/worker.mjs";
import { freePort } from "./lib/free-port.mjs";
import { joinGroups, seedShape } from "./lib/listing-ratios.mjs";

const SCENARIO = process.argv[2] ?? "oauth";
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 6);


const inspectorPort = await freePort();
const worker = await startBuiltWorker({ vars: BENCH_VARS, inspectorPort, scriptPath: process.env.PROFILE_SCRIPT });
try {
  const base = worker.url;
  const seed = await seedService(base);
  const reader = await seed.family();
  const me = await json(await fetch(`${base}/api/v4/user`, { headers: { Authorization: `Bearer ${reader.access_token}` } }));
  const pat = await seed.personalAccessToken(me.id);
  const tokenUrl = `${base}/oauth/token`;
  const confidential = seed.confidentialApp;
  const chains = async (secret) => {
    const out = [];
    for (let i = 0; i < 16; i++) {
      const exchange = await seed.codeExchange(secret ? confidential : seed.app);
      if (secret) exchange.body.set("client_secret", confidential.secret);
      out.push((await json(await fetch(tokenUrl, exchange))).refresh_token);
    }
    return out;
  };
  const dpop = async () => {
    const key = dpopKey();
    const dpopForm = (proof) => ({ ...form({ grant_type: "password", username: "bench", password: USER_PASSWORD, scope: "api" }), headers: { "Content-Type": "application/x-www-form-urlencoded", DPoP: proof } });
    const nonce = (await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl)))).headers.get("DPoP-Nonce");
    const bound = await json(await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl, { nonce }))));
    const s = dpopGets(`${base}/api/v4/user`, bound.access_token, key, nonce, 0);
    return s;
  };
  const listing = SCENARIO.endsWith("-50") || SCENARIO.endsWith("-admin");
  const adminToken = async () =>
    (await json(await fetch(tokenUrl, form({ grant_type: "password", username: "root", password: BENCH_VARS.ROOT_PASSWORD, scope: "api" })))).access_token;
  if (listing) {
    const db = await worker.mf.getD1Database("DB");
    await seedShape(db);
    await joinGroups(db, me.id, 50);
  }
  const opts = {
    "projects-50": listing ? { url: `${base}/api/v4/projects`, headers: { Authorization: `Bearer ${reader.access_token}` } } : null,
    "projects-admin": listing ? { url: `${base}/api/v4/projects`, headers: { Authorization: `Bearer ${await adminToken()}` } } : null,
    "audit-admin": listing ? { url: `${base}/api/v4/audit_events`, headers: { Authorization: `Bearer ${await adminToken()}` } } : null,
    "runners-admin": listing ? { url: `${base}/api/v4/runners/all`, headers: { Authorization: `Bearer ${await adminToken()}` } } : null,
    "groups-50": listing ? { url: `${base}/api/v4/groups`, headers: { Authorization: `Bearer ${reader.access_token}` } } : null,
    "d1-read": { url: `${base}/-/bench/d1-read` },
    refresh: SCENARIO === "refresh" ? refreshChains(tokenUrl, await chains(false), { client_id: seed.app.application_id }) : null,
    "refresh-secret": SCENARIO === "refresh-secret" ? refreshChains(tokenUrl, await chains(true), { client_id: confidential.application_id, client_secret: confidential.secret }) : null,
    dpop: SCENARIO === "dpop" ? await dpop() : null,
    oauth: { url: `${base}/api/v4/user`, headers: { Authorization: `Bearer ${reader.access_token}` } },
    "token-info": { url: `${base}/oauth/token/info`, headers: { Authorization: `Bearer ${reader.access_token}` } },
    pat: { url: `${base}/api/v4/user`, headers: { "PRIVATE-TOKEN": pat } },
    empty: { url: `${base}/-/bench/empty` },
    introspect: {
      url: `${base}/oauth/introspect`,
      method: "POST",
      headers: {
        Authorization: `Basic ${Buffer.from(`${seed.confidentialApp.application_id}:${seed.confidentialApp.secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token: reader.access_token }).toString(),
    },
    "do-read": { url: `${base}/-/bench/do-read` },
  }[SCENARIO];
  if (!opts) throw new Error(`unknown scenario ${SCENARIO}`);

  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const target = targets.find((t) => /edge-auth-service/.test(t.title ?? "") || /edge-auth-service/.test(t.url ?? "")) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      id += 1;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  // Warm up first (JIT, objects), then sample.
  const { beforeRun, afterRun, ...cannon } = opts;
  await autocannon({ ...cannon, connections: 8, duration: 2 });
  afterRun?.();
  await beforeRun?.();
  await send("Profiler.start");
  const result = await autocannon({ ...cannon, connections: 8, duration: SECONDS });
  const { result: { profile } } = await send("Profiler.stop");
  ws.close();
  // PROFILE_OUT=file.cpuprofile keeps the raw profile (Chrome DevTools opens it; bench/profile-modules.mjs reads it).
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify({ ...profile, requests: result.requests.total }));

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((nodeId, i) => {
    const n = byId.get(nodeId);
    const f = n.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url ? f.url.split("/").pop() : ""}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([k]) => /^\((idle|program|garbage collector)\)/.test(k)).reduce((a, [, v]) => a + v, 0);
  console.log(`${SCENARIO}: ${Math.round(result.requests.average)} req/s at 8 connections (non-2xx ${result.non2xx}); sampled ${(total / 1e6).toFixed(2)} s, busy ${(((total - idle) / total) * 100).toFixed(1)}%`);
  const busyPerRequest = (total - idle) / result.requests.total;
  console.log(`busy CPU per request in the isolate: ${busyPerRequest.toFixed(0)} µs`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${(v / result.requests.total).toFixed(1).padStart(6)} µs/req  ${k}`);
  }
} finally {
  await worker.stop();
}
