import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/db/schema/* into drizzle/ and applied by
// `wrangler d1 migrations apply` (npm start) and by the test setup (npm test).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/*.ts",
  out: "./drizzle",
});
