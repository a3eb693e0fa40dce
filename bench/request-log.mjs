// What the request log line costs (docs/operations.md, Logs; issue 32): the same built Worker served
// four times side by side on workerd, its one line per request emitted four ways, the empty route
// measured on each in turns (bench/lib/measure.mjs), so the load of a shared machine falls on all:
//   - "text line (concatenated)": the service as built (src/observability/request-log.ts);
//   - "text line (JSON.stringify)": the line serialised per request, as before;
//   - "object line (console.log(obj))": the fields handed to console.log as an object;
//   - "no line": the call removed; the floor the others are compared with.
// The variants are made by replacing the one call in the bundle, so nothing else differs.
// Run: npm run bench -- request-log   (about 1.5 minutes; writes bench/results/request-log-latest.json)
import { execSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { machine, measureInterleaved } from "./lib/measure.mjs";
import { BENCH_VARS } from "./lib/seed.mjs";
import { ROOT, buildWorker, startBuiltWorker } from "./lib/worker.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SLICES = Number(process.env.BENCH_SLICES ?? 4);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const CALL = "console.log(requestLineText(line));";

const built = buildWorker();
const source = readFileSync(built, "utf8");
if (!source.includes(CALL)) throw new Error(`the bundle has no "${CALL}": src/observability/request-log.ts changed`);
const variants = {
  "text line (concatenated)": CALL,
  "text line (JSON.stringify)": "console.log(JSON.stringify(line));",
  "object line (console.log(obj))": "console.log(line);",
  "no line": "void line;",
};
const workers = {};
try {
  for (const [name, call] of Object.entries(variants)) {
    // A sibling of the bundle, so its other modules (if any) resolve the same.
    const file = path.join(path.dirname(built), `request-log-${Object.keys(workers).length}.js`);
    writeFileSync(file, source.replace(CALL, call));
    workers[name] = await startBuiltWorker({ vars: BENCH_VARS, scriptPath: file });
  }
  const scenarios = Object.fromEntries(Object.entries(workers).map(([name, w]) => [name, { url: `${w.url}/-/bench/empty` }]));
  for (const [name, s] of Object.entries(scenarios)) if ((await fetch(s.url)).status !== 200) throw new Error(`${name}: empty route not 200`);
  const load = execSync("uptime", { encoding: "utf8" }).trim();
  console.log(load);
  const rows = await measureInterleaved(scenarios, CONNECTIONS, { slices: SLICES, sliceSeconds: SLICE_SECONDS });
  const floor = rows.find((r) => r.name === "no line");
  const table = [
    `| empty route, ${CONNECTIONS} connections | req/s | p50 ms | p99 ms | of "no line" |`,
    "|---|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.name} | ${r.rps} | ${r.p50} | ${r.p99} | ${(r.rps / floor.rps).toFixed(2)} |`),
  ].join("\n");
  mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench", "results", "request-log-latest.json"), JSON.stringify({ date: new Date().toISOString(), machine: machine(), load, rows, table }, null, 2));
  console.log(`\n${table}\n\n(after: ${execSync("uptime", { encoding: "utf8" }).trim()})`);
} finally {
  await Promise.allSettled(Object.values(workers).map((w) => w.stop()));
}
