// The request figures of issue 32 in one command: `npm run bench -- requests`.
// The built Worker on workerd through Miniflare (bench/lib/worker.mjs), beside
// @cloudflare/workers-oauth-provider on the same runtime and node-oidc-provider in Node, in memory
// (bench/lib/peer-servers.mjs); autocannon at 32 connections (refresh: 16 chains, one connection
// each), every scenario taking turns in short
// slices (bench/lib/measure.mjs) so a shared machine's load falls on all alike; ROUNDS rounds of
// SLICES x SLICE_SECONDS per scenario (default 2 rounds of 3 x 2 s: 6 s per figure and round).
//
// Refresh is measured as in the issue: 16 closed-loop chains, each rotating its own refresh token,
// by a **confidential client sending client_id and client_secret in the form body**, on both sides;
// the public (PKCE) client's rotation of bench/peers.mjs is measured beside it for comparison.
// A DPoP-bound GET /api/v4/user (a fresh proof per request, signed before each slice) stands beside
// its Bearer twin (issue 29: a DPoP request costs at most 1.3x a Bearer one).
//
// Prints the goal table (each ratio per round), the latency per route (p50 and p99) and the load
// average (`uptime`) before each round; writes bench/results/requests-latest.json. Loopback only.
// Run: npm run bench -- requests   (about 4 minutes)
// A short check: BENCH_ROUNDS=1 BENCH_SLICES=1 BENCH_SLICE_SECONDS=1 npm run bench -- requests
import { execSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { machine, measureInterleaved } from "./lib/measure.mjs";
import { refreshChains } from "./lib/scenarios.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";
import { ROOT, startBuiltWorker } from "./lib/worker.mjs";
import { freePort, startOidcProvider, startWorkersOAuthProvider } from "./lib/peer-servers.mjs";
import { dpopGets, dpopKey } from "./lib/dpop-proofs.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 3);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const CHAINS = 16;
const started = Date.now();
const uptime = () => execSync("uptime", { encoding: "utf8" }).trim();

const ours = await startBuiltWorker({ vars: BENCH_VARS });
const wop = await startWorkersOAuthProvider();
const oidc = await startOidcProvider(await freePort());
try {
  const base = ours.url;
  const seed = await seedService(base);
  const bearer = { Authorization: `Bearer ${(await seed.family()).access_token}` };
  const confidential = seed.confidentialApp;
  /** A token family of the confidential application, its code exchanged with the secret in the body. */
  const confidentialFamily = async () => {
    const exchange = await seed.codeExchange(confidential);
    exchange.body.set("client_secret", confidential.secret);
    return json(await fetch(`${base}/oauth/token`, exchange));
  };
  const ourChains = [];
  const ourPublicChains = [];
  const wopChains = [];
  for (let i = 0; i < CHAINS; i++) {
    ourChains.push((await confidentialFamily()).refresh_token);
    ourPublicChains.push((await seed.family()).refresh_token);
    wopChains.push((await wop.grant(wop.confidentialClient)).refresh_token);
  }
  const passwordToken = (await json(await fetch(`${base}/oauth/token`, form({ grant_type: "password", username: "bench", password: USER_PASSWORD })))).access_token;
  const basic = `Basic ${Buffer.from(`${confidential.application_id}:${confidential.secret}`).toString("base64")}`;

  // DPoP (RFC 9449): the token endpoint hands out the nonce with its first answer (§8).
  const key = dpopKey();
  const tokenUrl = `${base}/oauth/token`;
  const dpopForm = (proof) => ({ ...form({ grant_type: "password", username: "bench", password: USER_PASSWORD, scope: "api" }), headers: { "Content-Type": "application/x-www-form-urlencoded", DPoP: proof } });
  const nonce = (await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl)))).headers.get("DPoP-Nonce");
  const bound = await json(await fetch(tokenUrl, dpopForm(key.proof("POST", tokenUrl, { nonce }))));
  if (bound.token_type !== "DPoP") throw new Error(`not DPoP-bound: ${JSON.stringify(bound)}`);
  const userUrl = `${base}/api/v4/user`;

  const wopReader = await wop.grant();
  const oidcReader = await oidc.tokens();
  const wopSecret = { client_id: wop.confidentialClient.clientId, client_secret: wop.confidentialClient.clientSecret };
  const formHeaders = { Authorization: basic, "content-type": "application/x-www-form-urlencoded" };

  const scenarios = {
    "ours: empty route": { url: `${base}/-/bench/empty` },
    "workers-oauth-provider: empty route": { url: `${wop.url}/-/empty` },
    "floor: one DO read": { url: `${base}/-/bench/do-read` },
    "ours: GET /api/v4/user (OAuth)": { url: userUrl, headers: bearer },
    "ours: GET /api/v4/user (OAuth, DPoP-bound)": dpopGets(userUrl, bound.access_token, key, nonce, 4000 * SLICE_SECONDS),
    "ours: GET /oauth/token/info": { url: `${base}/oauth/token/info`, headers: bearer },
    "ours: POST /oauth/introspect": { url: `${base}/oauth/introspect`, method: "POST", headers: formHeaders, body: new URLSearchParams({ token: passwordToken }).toString() },
    // Refresh: one connection per chain (16), each a closed loop rotating its own token.
    "ours: refresh (confidential, secret in body)": { ...refreshChains(tokenUrl, ourChains, { client_id: confidential.application_id, client_secret: confidential.secret }), connections: CHAINS },
    "ours: refresh (public, PKCE family)": { ...refreshChains(tokenUrl, ourPublicChains, { client_id: seed.app.application_id }), connections: CHAINS },
    "workers-oauth-provider: Bearer GET /api/user": { url: `${wop.url}/api/user`, headers: { Authorization: `Bearer ${wopReader.access_token}` } },
    "workers-oauth-provider: refresh (confidential, secret in body)": { ...refreshChains(`${wop.url}/oauth/token`, wopChains, wopSecret), connections: CHAINS },
    "oidc-provider (Node): GET /me (userinfo)": { url: `${oidc.url}/me`, headers: { Authorization: `Bearer ${oidcReader.access_token}` } },
  };

  // Sanity: one request of every scenario answers 200 before anything is measured.
  for (const [name, s] of Object.entries(scenarios)) {
    if (s.requests) continue; // chains and DPoP: checked by their non-2xx count below
    const res = await fetch(s.url, { method: s.method ?? "GET", headers: s.headers, body: s.body });
    if (res.status !== 200) throw new Error(`sanity ${name}: ${res.status} ${await res.text()}`);
  }

  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const load = uptime();
    console.log(`\nround ${i + 1}: ${load}`);
    const rows = await measureInterleaved(scenarios, CONNECTIONS, { slices: SLICES, sliceSeconds: SLICE_SECONDS });
    rounds.push({ load, rows });
  }

  const rps = (round, name) => round.rows.find((r) => r.name === name).rps;
  // [figure, numerator, denominator, goal]; a ratio of requests/s measured in the same round.
  const FIGURES = [
    ["empty route / workers-oauth-provider's empty route", "ours: empty route", "workers-oauth-provider: empty route", 0.95],
    ["`GET /api/v4/user` (OAuth) / one-DO-read route", "ours: GET /api/v4/user (OAuth)", "floor: one DO read", 1.2],
    ["`GET /api/v4/user` / workers-oauth-provider's Bearer route", "ours: GET /api/v4/user (OAuth)", "workers-oauth-provider: Bearer GET /api/user", 2.5],
    ["`GET /api/v4/user` / node-oidc-provider's userinfo", "ours: GET /api/v4/user (OAuth)", "oidc-provider (Node): GET /me (userinfo)", 0.5],
    ["`GET /oauth/token/info` / `GET /api/v4/user`", "ours: GET /oauth/token/info", "ours: GET /api/v4/user (OAuth)", 0.95],
    ["refresh rotation, confidential client (secret in body) / workers-oauth-provider's", "ours: refresh (confidential, secret in body)", "workers-oauth-provider: refresh (confidential, secret in body)", 2],
    ["`POST /oauth/introspect` / one-DO-read route", "ours: POST /oauth/introspect", "floor: one DO read", 1.0],
    // Issue 29's bar is on cost: a DPoP request at most 1.3x a Bearer one, i.e. Bearer/DPoP <= 1.3.
    ["cost of a DPoP-bound `GET /api/v4/user` / its Bearer twin (Bearer req/s / DPoP req/s)", "ours: GET /api/v4/user (OAuth)", "ours: GET /api/v4/user (OAuth, DPoP-bound)", -1.3],
    ["(for comparison) public-client refresh / workers-oauth-provider's confidential refresh", "ours: refresh (public, PKCE family)", "workers-oauth-provider: refresh (confidential, secret in body)", null],
  ];
  const goals = FIGURES.map(([figure, a, b, goal]) => {
    const values = rounds.map((r) => +(rps(r, a) / rps(r, b)).toFixed(2));
    const met = goal === null ? "" : values.every((v) => (goal < 0 ? v <= -goal : v >= goal)) ? "yes" : "no";
    return { figure, values, goal: goal === null ? "" : goal < 0 ? `<= ${-goal}` : `>= ${goal}`, met };
  });
  const goalTable = [
    `| figure | ${rounds.map((_, i) => `round ${i + 1}`).join(" | ")} | goal | met |`,
    `|---|${rounds.map(() => "---:").join("|")}|---|---|`,
    ...goals.map((g) => `| ${g.figure} | ${g.values.join(" | ")} | ${g.goal} | ${g.met} |`),
  ].join("\n");
  const routeTable = [
    `| scenario (${CONNECTIONS} connections; refresh ${CHAINS} chains) | ${rounds.map((_, i) => `round ${i + 1} req/s | p50 ms | p99 ms`).join(" | ")} | non-2xx |`,
    `|---|${rounds.map(() => "---:|---:|---:").join("|")}|---:|`,
    ...Object.keys(scenarios).map((name) => {
      const cells = rounds.map((r) => r.rows.find((x) => x.name === name)).map((x) => `${x.rps} | ${x.p50} | ${x.p99}`);
      const non2xx = rounds.reduce((n, r) => n + r.rows.find((x) => x.name === name).non2xx, 0);
      return `| ${name} | ${cells.join(" | ")} | ${non2xx} |`;
    }),
  ].join("\n");
  const loads = rounds.map((r, i) => `round ${i + 1}: ${r.load}`).join("\n");
  const out = { date: new Date().toISOString(), machine: machine(), connections: CONNECTIONS, slices: SLICES, sliceSeconds: SLICE_SECONDS, rounds, goals, goalTable, routeTable, seconds: Math.round((Date.now() - started) / 1000) };
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench", "results", "requests-latest.json"), JSON.stringify(out, null, 2));
  console.log(`\n${loads}\n\n${goalTable}\n\n${routeTable}\n\n(${out.seconds} s in all; after: ${uptime()})`);
} finally {
  await Promise.allSettled([ours.stop(), wop.stop(), oidc.stop()]);
}
