import { applyD1Migrations, env } from "cloudflare:test";

// Applies drizzle/ to the test D1 database exactly as `wrangler d1 migrations apply` would.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
