#!/usr/bin/env node
// `npm run check:integrity [-- --url <base URL>]`: runs the integrity check (docs/operations.md,
// "Integrity check") of a running instance and prints its findings. The check runs inside the
// Worker (GET /api/v4/admin/integrity), because only the Worker holds every binding the check
// compares (D1, R2): that works the same for `npm start` (its PERSIST_DIR) and for a deployment.
//
// The base URL: --url, else INTEGRITY_URL, else the local `npm start` (http://127.0.0.1:PORT).
// The credential: INTEGRITY_TOKEN (an administrator's personal access token with read_api), else,
// for a loopback URL only, root's password from ROOT_PASSWORD (the environment or .dev.vars) by
// the password grant. Exit status: 0 clean, 1 findings, 2 the check could not run.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnvFile } from "./env-file.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const devVarsPath = path.join(root, ".dev.vars");
const devVars = existsSync(devVarsPath) ? parseEnvFile(readFileSync(devVarsPath, "utf8")) : {};
const setting = (name) => process.env[name] ?? devVars[name];

function fail(message) {
  console.error(`check:integrity: ${message}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const urlAt = args.indexOf("--url");
if (args.some((a, i) => a !== "--url" && !(urlAt >= 0 && i === urlAt + 1)) || (urlAt >= 0 && !args[urlAt + 1])) fail(`unknown option ${args.join(" ")} (the only option is --url <base URL>)`);
const base = (urlAt >= 0 ? args[urlAt + 1] : undefined) ?? process.env.INTEGRITY_URL ?? `http://127.0.0.1:${setting("PORT") ?? 8787}`;
let url;
try {
  url = new URL(base);
} catch {
  fail(`${base} is not a URL`);
}
const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);

async function token() {
  if (process.env.INTEGRITY_TOKEN) return process.env.INTEGRITY_TOKEN;
  const password = setting("ROOT_PASSWORD");
  if (!loopback || !password) fail("set INTEGRITY_TOKEN to an administrator's personal access token (scope read_api)");
  const res = await fetch(new URL("/oauth/token", url), { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "root", password, scope: "read_api" }) });
  if (res.status !== 200) fail(`root's password grant at ${url.origin} answered ${res.status}; set INTEGRITY_TOKEN instead`);
  return (await res.json()).access_token;
}

let res;
try {
  res = await fetch(new URL("/api/v4/admin/integrity", url), { headers: { Authorization: `Bearer ${await token()}` } });
} catch (err) {
  fail(`${url.origin} does not answer (${err.cause?.code ?? err.message}); is the service running?`);
}
if (res.status !== 200) fail(`${url.origin} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
const report = await res.json();
if (!report.complete) console.log("note: a listing stopped at its bound; the counts below are a lower bound");
if (!report.findings.length) {
  console.log(`integrity check of ${url.origin} at ${report.checked_at}: nothing found`);
  process.exit(0);
}
console.log(`integrity check of ${url.origin} at ${report.checked_at}: ${report.findings.length} kind(s) of finding`);
for (const f of report.findings) {
  console.log(`\n${f.kind}: ${f.count} (${f.meaning})`);
  for (const e of f.examples) console.log(`  ${e}`);
}
process.exit(1);
