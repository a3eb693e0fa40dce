import { applyD1Migrations, env } from "cloudflare:test";

// Applies drizzle/ to the test D1 database exactly as `wrangler d1 migrations apply` would.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Each test file is one client address (CF-Connecting-IP, as Cloudflare sets it; fixtures' call()
// sends it unless a test sets its own). Files share one runtime (isolate: false), and the
// failed-authentication throttle counts per address: without this, the wrong passwords and
// refused tokens of every file would add up under one address and ban the sign-ins of the next.
const hex = () => Math.floor(Math.random() * 0x10000).toString(16);
(globalThis as { testClientAddress?: string }).testClientAddress = `2001:db8:${hex()}:${hex()}::1`;
