import type { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { requireUser, type PageEnv } from "./page";
import { notFoundPage } from "./pages/not-found";

/**
 * The admin area (`/admin`, `/admin/*`): a visitor signs in first; a signed-in user who is not an
 * administrator gets the ordinary "Page not found" (the area is not revealed), as GitLab answers.
 */
const adminOnly = createMiddleware<PageEnv>(async (c, next) => {
  if (!c.var.user.isAdmin) return notFoundPage(c);
  await next();
});

/** Guards every route of an admin sub-app; call once per file, before its routes. */
export function guardAdmin(app: Hono<PageEnv>, paths: readonly string[] = ["/admin", "/admin/*"]): void {
  for (const p of paths) app.use(p, requireUser, adminOnly);
}
