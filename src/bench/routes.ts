import { Hono } from "hono";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { findUserById } from "../db/users";
import { listProjects } from "../db/namespace-listing";
import { rawBatchOfTwo, rawFirst, recordingD1, timeStatement } from "../db/bench-probes";
import type { AppEnv } from "../env";
import { familyStub } from "../credentials/oauth-family";

/**
 * Floor costs for bench/ (only when BENCH_ROUTES is "true"): an empty route, one Durable Object
 * read and one Durable Object write (through the same stub path the token family uses), one D1 read.
 */
const bench = new Hono<AppEnv>();

bench.use("*", async (c, next) => {
  if (!getConfig(c.env).benchRoutes) return c.json({ message: "404 Not Found" }, 404);
  await next();
});

const stub = (c: { env: AppEnv["Bindings"] }, key: string) => familyStub(c.env, `bench:${key}`);

bench.get("/empty", (c) => c.json({ ok: true }));
// One object per connection key spreads the load like real families do.
bench.get("/do-read", async (c) => c.json({ n: await stub(c, c.req.query("k") ?? "0").benchRead() }));
// The floor of anything that needs the user row: one D1 read by primary key.
bench.get("/d1-read", async (c) => c.json({ id: (await findUserById(getDb(c.env.DB), 1))?.id ?? null }));
// Decomposition of a listing's cost (bench/listing-phases.mjs): one statement on the raw binding,
// a batch of two, the projects listing's SQL alone (no authentication, no rendering; ?sql=1 also
// answers the statements it ran, each timed inside the Worker against SELECT 1).
bench.get("/d1-first", async (c) => c.json({ id: await rawFirst(c.env.DB) }));
bench.get("/d1-batch2", async (c) => c.json({ n: await rawBatchOfTwo(c.env.DB) }));
bench.get("/projects-sql", async (c) => {
  const userId = c.req.query("user") ? Number(c.req.query("user")) : null;
  const page = Number(c.req.query("page") ?? 1);
  const ran: { sql: string; params: unknown[] }[] = [];
  const d1 = c.req.query("sql") ? recordingD1(c.env.DB, ran) : c.env.DB;
  const { rows, total } = await listProjects(getDb(d1), { userId, isAdmin: userId === null, membershipOnly: false }, {}, { orderBy: "created_at", sort: "desc", limit: 20, offset: (page - 1) * 20 });
  // ?sql=1: each statement it ran, timed here against SELECT 1 (the listing's own statements only:
  // no SQL is taken from the request).
  const timed = [];
  for (const s of ran) timed.push({ ...s, ...(await timeStatement(c.env.DB, s.sql, s.params, 20)) });
  return c.json({ n: rows.length, total, ran: timed });
});
bench.post("/do-write", async (c) => c.json({ n: await stub(c, c.req.query("k") ?? "0").benchWrite() }));
// Plain HTTP upload of the body into R2 (bench/plugin.mjs measures SendFile against it).
bench.put("/r2-upload", async (c) => {
  if (!c.req.raw.body) return c.json({ message: "body required" }, 400);
  const obj = await c.env.FILES.put(`bench/${crypto.randomUUID()}`, c.req.raw.body);
  return c.json({ size: obj?.size ?? 0, key: obj?.key ?? null });
});
// Plain R2 download of what r2-upload stored (bench/registry.mjs measures /v2/ blob GETs against it).
bench.get("/r2-download/:key", async (c) => {
  const obj = await c.env.FILES.get(`bench/${c.req.param("key")}`);
  if (!obj) return c.json({ message: "404 Not Found" }, 404);
  return new Response(obj.body, { headers: { "Content-Length": String(obj.size), "Content-Type": "application/octet-stream" } });
});

export default bench;
