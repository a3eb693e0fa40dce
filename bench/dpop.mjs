// DPoP benchmark (RFC 9449; docs/scaling.md, "DPoP: the replay check off the serial path"). Builds
// the Worker, serves the bundle on workerd (bench/lib/worker.mjs), seeds the service, then runs
// side by side, interleaved round by round (the fair ratio on a shared box):
//   - GET /api/v4/user with a Bearer token (one hop to the token's family object);
//   - GET /api/v4/user with a DPoP-bound token and a fresh proof per request (proof verification
//     in the Worker, the replay check in the key's DpopReplay object beside the family hop);
//   - GET /oauth/userinfo, Bearer and DPoP, the same way;
//   - the empty route, one DO read and one DO write (a durable commit, what the replay check must
//     wait for) as floors.
// The bar: the DPoP scenario within 1.3x of its Bearer twin. Proofs are signed before the
// timing (each has its own jti), so the client's signing is not counted.
// Run: npx node bench/dpop.mjs   (writes bench/results/dpop-latest.json)
// A short check: BENCH_ROUNDS=20 npx node bench/dpop.mjs
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { startBuiltWorker, ROOT } from "./lib/worker.mjs";
import { machine } from "./lib/measure.mjs";
import { BENCH_VARS, USER_PASSWORD, form, json, seedService } from "./lib/seed.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);

const { privateKey, publicKey } = await generateKeyPair("ES256");
const jwk = await exportJWK(publicKey);
const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
const ath = async (token) => b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))));

function proof(htm, htu, extra = {}) {
  return new SignJWT({ jti: crypto.randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ...extra })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
    .sign(privateKey);
}

const worker = await startBuiltWorker({ vars: BENCH_VARS });
const base = worker.url;

try {
  await seedService(base);
  const tokenUrl = `${base}/oauth/token`;
  const password = (scope) => ({ grant_type: "password", username: "bench", password: USER_PASSWORD, scope });
  // §8: the first proof learns the nonce; the token endpoint sends it with every answer.
  const first = await fetch(tokenUrl, { ...form(password("api")), headers: { ...form({}).headers, DPoP: await proof("POST", tokenUrl) } });
  const nonce = first.headers.get("DPoP-Nonce");
  if (!nonce) throw new Error("no DPoP-Nonce from the token endpoint");
  const dpopToken = async (scope) => {
    const res = await fetch(tokenUrl, { ...form(password(scope)), headers: { ...form({}).headers, DPoP: await proof("POST", tokenUrl, { nonce }) } });
    const body = await json(res);
    if (body.token_type !== "DPoP") throw new Error(`not DPoP-bound: ${JSON.stringify(body)}`);
    return body.access_token;
  };
  const bearer = (await json(await fetch(tokenUrl, form(password("api openid"))))).access_token;
  const bound = await dpopToken("api openid");
  const boundAth = await ath(bound);

  // Proofs signed ahead of the timing, one per request; the rounds finish well inside the window.
  const userUrl = `${base}/api/v4/user`;
  const userinfoUrl = `${base}/oauth/userinfo`;
  const proofs = { user: [], userinfo: [] };
  for (let i = 0; i < ROUNDS + 1; i++) {
    proofs.user.push(await proof("GET", userUrl, { nonce, ath: boundAth }));
    proofs.userinfo.push(await proof("GET", userinfoUrl, { nonce, ath: boundAth }));
  }
  const dpopHeaders = (which) => ({ Authorization: `DPoP ${bound}`, DPoP: proofs[which].pop() });
  for (const [name, res] of [
    ["bearer user", await fetch(userUrl, { headers: { Authorization: `Bearer ${bearer}` } })],
    ["dpop user", await fetch(userUrl, { headers: dpopHeaders("user") })],
    ["dpop userinfo", await fetch(userinfoUrl, { headers: dpopHeaders("userinfo") })],
  ]) {
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
  }

  const scenarios = {
    "empty route": () => fetch(`${base}/-/bench/empty`),
    "one DO read": () => fetch(`${base}/-/bench/do-read`),
    "one DO write": () => fetch(`${base}/-/bench/do-write`, { method: "POST" }),
    "GET /api/v4/user (Bearer)": () => fetch(userUrl, { headers: { Authorization: `Bearer ${bearer}` } }),
    "GET /api/v4/user (DPoP)": () => fetch(userUrl, { headers: dpopHeaders("user") }),
    "GET /oauth/userinfo (Bearer)": () => fetch(userinfoUrl, { headers: { Authorization: `Bearer ${bearer}` } }),
    "GET /oauth/userinfo (DPoP)": () => fetch(userinfoUrl, { headers: dpopHeaders("userinfo") }),
  };
  const times = Object.fromEntries(Object.keys(scenarios).map((k) => [k, []]));
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, go] of Object.entries(scenarios)) {
      const t = performance.now();
      const res = await go();
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${name}: ${res.status}`);
      times[name].push(performance.now() - t);
    }
  }
  const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const rows = Object.entries(times).map(([name, xs]) => ({ name, median: +q(xs, 0.5).toFixed(2), p90: +q(xs, 0.9).toFixed(2) }));
  const median = (name) => rows.find((r) => r.name === name).median;
  const ratios = {
    "GET /api/v4/user": +(median("GET /api/v4/user (DPoP)") / median("GET /api/v4/user (Bearer)")).toFixed(2),
    "GET /oauth/userinfo": +(median("GET /oauth/userinfo (DPoP)") / median("GET /oauth/userinfo (Bearer)")).toFixed(2),
  };
  console.log("| scenario | median ms | p90 ms |\n|---|---|---|");
  for (const r of rows) console.log(`| ${r.name} | ${r.median} | ${r.p90} |`);
  console.log(`\nDPoP / Bearer (median): ${JSON.stringify(ratios)}`);
  const out = path.join(ROOT, "bench/results");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "dpop-latest.json"), JSON.stringify({ machine: machine(), rounds: ROUNDS, rows, ratios }, null, 2));
} finally {
  await worker.stop();
}
