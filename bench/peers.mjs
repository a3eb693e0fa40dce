// Peers benchmark (issue 9). In one run, on this machine and runtime, this service beside
//   - Cloudflare's @cloudflare/workers-oauth-provider: a small Worker (bench/peers/workers-oauth-provider.mjs)
//     with its Bearer-protected API route and its refresh grant, bundled and served on workerd
//     through Miniflare exactly as this service is (bench/lib/worker.mjs), with its KV namespace;
//   - panva's oidc-provider in Node, in memory (bench/peers/oidc-provider.mjs): userinfo, refresh,
//     introspection;
// every goal row of issue 22: empty route, token-authenticated GET, refresh rotation, introspection,
// userinfo, manifest GET by digest and Plugin Call at 1 and 32 connections, beside the
// empty-route, one-DO-read and one-DO-write floors of the same run. Scenarios take turns in short
// slices (bench/lib/measure.mjs) so a shared machine's load falls on all alike. Loopback only.
// The service runs with its default configuration (the validation cache on, README's bound).
// Run: npx node bench/peers.mjs   (writes bench/results/peers-latest.json and prints the table)
//   BENCH_SLICES, BENCH_SLICE_SECONDS, BENCH_CONNECTIONS (default "1,32") shorten a check run.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { machine, measureInterleaved, table } from "./lib/measure.mjs";
import { keyedDoWrites, refreshChains } from "./lib/scenarios.mjs";
import { manifestByDigestScenario, pluginCallScenario } from "./lib/hot-path.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";
import { ROOT, startBuiltWorker } from "./lib/worker.mjs";
import { freePort, startOidcProvider, startWorkersOAuthProvider } from "./lib/peer-servers.mjs";

const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "1,32").split(",").map(Number);
const SLICES = Number(process.env.BENCH_SLICES ?? 3);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const CHAINS = 40;

const ours = await startBuiltWorker({ vars: BENCH_VARS });
const wop = await startWorkersOAuthProvider();
const oidc = await startOidcProvider(await freePort());
try {
  const base = ours.url;
  const seed = await seedService(base);
  const reader = await seed.family();
  const bearer = { Authorization: `Bearer ${reader.access_token}` };
  const me = await json(await fetch(`${base}/api/v4/user`, { headers: bearer }));
  const pat = await seed.personalAccessToken(me.id);
  const ourChains = [];
  for (let i = 0; i < CHAINS; i++) ourChains.push((await seed.family()).refresh_token);
  // Introspection answers a client about its own tokens and tokens without an application
  // (Doorkeeper): a password-grant token of the user is one of the latter.
  const passwordToken = (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "bench", password: USER_PASSWORD })))).access_token;
  // Userinfo and Plugin Call: a token of the same user with openid and api.
  const openidToken = (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "bench", password: USER_PASSWORD, scope: "openid api" })))).access_token;
  const manifest = await manifestByDigestScenario(base);
  const pluginCall = pluginCallScenario(base, openidToken);
  const confidential = `Basic ${Buffer.from(`${seed.confidentialApp.application_id}:${seed.confidentialApp.secret}`).toString("base64")}`;

  const wopReader = await wop.grant();
  const wopChains = [];
  for (let i = 0; i < CHAINS; i++) wopChains.push((await wop.grant()).refresh_token);

  const oidcReader = await oidc.tokens();
  const oidcChains = [];
  for (let i = 0; i < CHAINS; i++) oidcChains.push((await oidc.tokens()).refresh_token);

  // Sanity: every scenario answers 200 before it is measured.
  const checks = [
    fetch(`${base}/api/v4/user`, { headers: { "PRIVATE-TOKEN": pat } }),
    fetch(`${base}/oauth/introspect`, { ...form({ token: passwordToken }), headers: { Authorization: confidential, "Content-Type": "application/x-www-form-urlencoded" } }),
    fetch(`${base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${openidToken}` } }),
    fetch(manifest.url, { headers: manifest.headers }),
    fetch(pluginCall.url, { method: "POST", headers: pluginCall.headers, body: pluginCall.requests[0].body }),
    fetch(`${wop.url}/api/user`, { headers: { Authorization: `Bearer ${wopReader.access_token}` } }),
    fetch(`${oidc.url}/me`, { headers: { Authorization: `Bearer ${oidcReader.access_token}` } }),
    fetch(`${oidc.url}/token/introspection`, { ...form({ token: oidcReader.access_token }), headers: { Authorization: oidc.clientAuth, "Content-Type": "application/x-www-form-urlencoded" } }),
  ];
  for (const r of await Promise.all(checks)) if (r.status !== 200) throw new Error(`sanity ${r.url}: ${r.status} ${await r.text()}`);
  const introspected = await json(await fetch(`${base}/oauth/introspect`, { ...form({ token: passwordToken }), headers: { Authorization: confidential, "Content-Type": "application/x-www-form-urlencoded" } }));
  if (!introspected.active) throw new Error("our introspection: token inactive");

  const formHeaders = (auth) => ({ Authorization: auth, "content-type": "application/x-www-form-urlencoded" });
  const scenarios = {
    "floor: empty route": { url: `${base}/-/bench/empty` },
    "floor: one DO read": { url: `${base}/-/bench/do-read` },
    "floor: one DO write": keyedDoWrites(base, CHAINS),
    "ours: GET /api/v4/user (OAuth)": { url: `${base}/api/v4/user`, headers: bearer },
    "ours: GET /oauth/token/info": { url: `${base}/oauth/token/info`, headers: bearer },
    "ours: GET /api/v4/user (PAT)": { url: `${base}/api/v4/user`, headers: { "PRIVATE-TOKEN": pat } },
    "ours: refresh rotation": refreshChains(`${base}/oauth/token`, ourChains, { client_id: seed.app.application_id }),
    "ours: GET /oauth/userinfo": { url: `${base}/oauth/userinfo`, headers: { Authorization: `Bearer ${openidToken}` } },
    "ours: GET manifest by digest": manifest,
    "ours: Plugin Call (Connect binary ping)": pluginCall,
    "ours: POST /oauth/introspect": { url: `${base}/oauth/introspect`, method: "POST", headers: formHeaders(confidential), body: new URLSearchParams({ token: passwordToken }).toString() },
    "workers-oauth-provider: empty route": { url: `${wop.url}/-/empty` },
    "workers-oauth-provider: Bearer GET /api/user": { url: `${wop.url}/api/user`, headers: { Authorization: `Bearer ${wopReader.access_token}` } },
    "workers-oauth-provider: refresh rotation": refreshChains(`${wop.url}/oauth/token`, wopChains, { client_id: wop.client.clientId }),
    "oidc-provider (Node): GET /me (userinfo)": { url: `${oidc.url}/me`, headers: { Authorization: `Bearer ${oidcReader.access_token}` } },
    "oidc-provider (Node): refresh rotation": refreshChains(`${oidc.url}/token`, oidcChains, {}, { Authorization: oidc.clientAuth }),
    "oidc-provider (Node): introspection": { url: `${oidc.url}/token/introspection`, method: "POST", headers: formHeaders(oidc.clientAuth), body: new URLSearchParams({ token: oidcReader.access_token }).toString() },
  };
  const rows = [];
  for (const connections of CONNECTIONS) {
    rows.push(...(await measureInterleaved(scenarios, connections, { slices: SLICES, sliceSeconds: SLICE_SECONDS })));
  }

  const at = (name, c) => rows.find((x) => x.name === name && x.connections === c);
  const baselineFor = (r) => {
    if (r.name.startsWith("floor: empty")) return null;
    if (/refresh rotation/.test(r.name)) return at("floor: one DO write", r.connections);
    if (r.name.startsWith("floor:")) return at("floor: empty route", r.connections);
    if (r.name.endsWith("empty route")) return null;
    return at("floor: one DO read", r.connections);
  };
  const ratio = (a, b, c) => +(at(a, c).rps / at(b, c).rps).toFixed(2);
  // The goals of issue 22 (the hot path past the storage floor), as ratios of this one run.
  const goals = CONNECTIONS.map((c) => ({
    connections: c,
    "empty route / workers-oauth-provider empty route (goal >= 0.95)": ratio("floor: empty route", "workers-oauth-provider: empty route", c),
    "OAuth GET /api/v4/user / one DO read (goal >= 1.0, past the floor)": ratio("ours: GET /api/v4/user (OAuth)", "floor: one DO read", c),
    "OAuth GET / workers-oauth-provider Bearer GET (goal >= 2)": ratio("ours: GET /api/v4/user (OAuth)", "workers-oauth-provider: Bearer GET /api/user", c),
    "refresh / workers-oauth-provider refresh (goal >= 2)": ratio("ours: refresh rotation", "workers-oauth-provider: refresh rotation", c),
    "POST /oauth/introspect / one DO read (goal >= 0.5)": ratio("ours: POST /oauth/introspect", "floor: one DO read", c),
    "GET /oauth/userinfo / one DO read (goal >= 0.7)": ratio("ours: GET /oauth/userinfo", "floor: one DO read", c),
    "manifest GET by digest / one DO read (goal >= 0.7)": ratio("ours: GET manifest by digest", "floor: one DO read", c),
    "Plugin Call / one DO read (goal >= 0.8)": ratio("ours: Plugin Call (Connect binary ping)", "floor: one DO read", c),
    "OAuth GET / oidc-provider userinfo (moonshot >= 0.5)": ratio("ours: GET /api/v4/user (OAuth)", "oidc-provider (Node): GET /me (userinfo)", c),
    "GET /oauth/token/info / one DO read": ratio("ours: GET /oauth/token/info", "floor: one DO read", c),
    "PAT GET / one DO read": ratio("ours: GET /api/v4/user (PAT)", "floor: one DO read", c),
    "refresh / one DO write": ratio("ours: refresh rotation", "floor: one DO write", c),
    "introspection / oidc-provider introspection": ratio("ours: POST /oauth/introspect", "oidc-provider (Node): introspection", c),
    "refresh / oidc-provider refresh": ratio("ours: refresh rotation", "oidc-provider (Node): refresh rotation", c),
  }));
  const out = { date: new Date().toISOString(), machine: machine(), slices: SLICES, sliceSeconds: SLICE_SECONDS, rows, goals, table: table(rows, baselineFor) };
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench", "results", "peers-latest.json"), JSON.stringify(out, null, 2));
  console.log(`\n${out.table}\n`);
  console.log(JSON.stringify({ goals, machine: out.machine }, null, 2));
} finally {
  await Promise.allSettled([ours.stop(), wop.stop(), oidc.stop()]);
}
