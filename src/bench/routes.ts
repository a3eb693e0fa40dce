import { Hono } from "hono";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { findUserById } from "../db/users";
import { listProjects } from "../db/namespace-listing";
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
// a batch of two, and the projects listing's SQL alone (no authentication, no rendering).
bench.get("/d1-first", async (c) => c.json({ id: ((await c.env.DB.prepare("SELECT id FROM users WHERE id = 1").first()) as { id: number } | null)?.id ?? null }));
bench.get("/d1-batch2", async (c) => {
  const [a, b] = await c.env.DB.batch([c.env.DB.prepare("SELECT id FROM users WHERE id = 1"), c.env.DB.prepare("SELECT n FROM row_counts WHERE name = 'projects'")]);
  return c.json({ a: a.results.length, b: b.results.length });
});
bench.get("/projects-sql", async (c) => {
  const userId = c.req.query("user") ? Number(c.req.query("user")) : null;
  const page = Number(c.req.query("page") ?? 1);
  // ?sql=1: the statements it ran (their SQL and bound values), for bench/listing-phases.mjs --sql.
  const ran: { sql: string; params: unknown[] }[] = [];
  const raw = c.env.DB;
  const recording = c.req.query("sql")
    ? (new Proxy(raw, {
        get(target, prop) {
          if (prop === "prepare") {
            return (q: string) => {
              const rec = { sql: q, params: [] as unknown[] };
              ran.push(rec);
              const s = target.prepare(q);
              return new Proxy(s, {
                get(t, p) {
                  if (p === "bind") return (...args: unknown[]) => ((rec.params = args), t.bind(...args));
                  const v = Reflect.get(t, p, t);
                  return typeof v === "function" ? v.bind(t) : v;
                },
              });
            };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }) as D1Database)
    : raw;
  const { rows, total } = await listProjects(getDb(recording), { userId, isAdmin: userId === null, membershipOnly: false }, {}, { orderBy: "created_at", sort: "desc", limit: 20, offset: (page - 1) * 20 });
  return c.json({ n: rows.length, total, ran });
});
// One statement's time as the Worker sees it (bench/listing-phases.mjs --sql): n runs of it against
// n runs of SELECT 1, so the difference is the statement's own SQL and result size, not the round trip.
bench.post("/sql-time", async (c) => {
  const { sql, params, n } = (await c.req.json()) as { sql: string; params: unknown[]; n: number };
  const time = async (q: string, ps: unknown[]) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) await c.env.DB.prepare(q).bind(...ps).raw();
    return (performance.now() - start) / n;
  };
  await time(sql, params);
  const trivial = await time("SELECT 1", []);
  const statement = await time(sql, params);
  return c.json({ statementMs: statement, trivialMs: trivial });
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
