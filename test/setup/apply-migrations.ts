import { applyD1Migrations, env } from "cloudflare:test";

// Applies drizzle/ to the test D1 database exactly as `wrangler d1 migrations apply` would.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Each test file is one client address (CF-Connecting-IP, as Cloudflare sets it; fixtures' call()
// sends it unless a test sets its own). Files share one runtime (isolate: false), and the
// failed-authentication throttle counts per address: without this, the wrong passwords and
// refused tokens of every file would add up under one address and ban the sign-ins of the next.
const hex = () => Math.floor(Math.random() * 0x10000).toString(16);
(globalThis as { testClientAddress?: string }).testClientAddress = `2001:db8:${hex()}:${hex()}::1`;

// The git origin (scripts/git-origin.mjs) is one process for the whole run, while each lane of
// workers files has its own D1: without this two lanes' projects of the same id would write one
// repository at once. Each runtime's projects start in a random range of ten million ids, one of
// 100,000 ranges (at most 10^12, well inside JSON's exact integers): two runtimes of a run sharing
// a range is about one in 30,000 runs rather than one in 70 with 200 ranges.
const lane = 1 + Math.floor(Math.random() * 100_000);
await env.DB.prepare(
  "INSERT INTO sqlite_sequence (name, seq) SELECT 'projects', ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'projects')",
)
  .bind(lane * 10_000_000)
  .run();
