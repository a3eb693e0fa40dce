#!/usr/bin/env node
// `npm run bench`: every benchmark in turn (each builds the Worker and serves it directly on
// workerd, see bench/lib/worker.mjs). `npm run bench -- oauth` runs one; `npm run bench -- requests`
// prints the table of request figures (issue 32). Results: bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const all = ["requests", "request-log", "oauth", "dpop", "plugin", "runners", "peers", "registry"];
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${all.join(", ")}`);
    process.exit(2);
  }
  console.log(`\n=== bench/${name}.mjs`);
  const run = spawnSync(process.execPath, [path.join(here, `${name}.mjs`)], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
