// Reads a CPU profile written by `PROFILE_OUT=x.cpuprofile npx node bench/profile.mjs <scenario>`
// and the bundle it sampled (the `// src/...` and `// node_modules/...` module comments esbuild
// keeps), and prints per request: self time by source module, and inclusive time (the function and
// everything it called, counted once per sample even under recursion) of the heaviest functions.
// Native frames (console.log, Response, storage calls) are charged to the module that called them.
// Run: npx node bench/profile-modules.mjs x.cpuprofile /path/to/bundle/index.js [top=25]
import { readFileSync } from "node:fs";

const [profilePath, bundlePath, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(profilePath, "utf8"));
const lines = readFileSync(bundlePath, "utf8").split("\n");
// Module start lines (0-based), ascending.
const starts = [];
lines.forEach((l, i) => {
  const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(l);
  if (m) starts.push([i, m[1].replace(/^node_modules\//, "npm:")]);
});
const moduleAt = (line) => {
  let lo = 0;
  let hi = starts.length - 1;
  let found = "(bundle prelude)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid][0] <= line) {
      found = starts[mid][1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
};

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const bundleName = bundlePath.split("/").pop();
const isBundle = (f) => f.url && f.url.endsWith(bundleName);
const label = (f) => `${f.functionName || "(anonymous)"} ${moduleAt(f.lineNumber)}:${f.lineNumber + 1}`;
/** The module a node's time belongs to: its own when it is bundle code, else its nearest bundle caller's. */
const ownerModule = (id) => {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur).callFrame;
    if (isBundle(f)) return moduleAt(f.lineNumber);
  }
  return null;
};

const selfByModule = new Map();
const inclusive = new Map();
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const f = byId.get(id).callFrame;
  if (/^\((idle|program|garbage collector)\)$/.test(f.functionName)) {
    idle += f.functionName === "(idle)" ? dt : 0;
    if (f.functionName !== "(idle)") selfByModule.set(f.functionName, (selfByModule.get(f.functionName) ?? 0) + dt);
    return;
  }
  const owner = ownerModule(id) ?? `(runtime) ${f.functionName || "(anonymous)"}`;
  selfByModule.set(owner, (selfByModule.get(owner) ?? 0) + dt);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur).callFrame;
    if (!isBundle(cf)) continue;
    const k = label(cf);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
});
const n = profile.requests;
const busy = total - idle;
console.log(`${n} requests; busy ${(busy / n).toFixed(0)} µs a request (idle excluded)\n`);
console.log("self time by module (native callees charged to their caller's module), µs a request:");
for (const [k, v] of [...selfByModule].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(v / n).toFixed(1).padStart(8)}  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
console.log("\ninclusive time by function, µs a request:");
for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top * 2)) console.log(`${(v / n).toFixed(1).padStart(8)}  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
