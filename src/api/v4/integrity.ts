import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { runIntegrityCheck } from "../../setup/integrity";
import { READ_API, requireAdmin, requireAuth } from "./auth";

/**
 * GET /api/v4/admin/integrity (administrators; our own, GitLab has none): the integrity check run
 * now, with the Worker's real bindings (D1, R2), which is why `npm run check:integrity` calls it
 * rather than reading storage itself (docs/operations.md, "Integrity check"). 200 either way; a
 * clean instance answers `findings: []`.
 */
const integrity = new Hono<AppEnv>();

integrity.get("/admin/integrity", requireAuth(READ_API), requireAdmin, async (c) => {
  c.header("Cache-Control", "no-store");
  return c.json(await runIntegrityCheck(c.env));
});

export default integrity;
