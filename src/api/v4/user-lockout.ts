import { Hono } from "hono";
import { unlockAccount } from "../../auth/lockout";
import { getDb } from "../../db/client";
import { findUserById } from "../../db/users";
import type { AppEnv } from "../../env";
import { clientIp } from "../../web/page";
import { WRITE_API, requireAdmin, requireAuth } from "./auth";
import { invalidParam, notFound } from "./errors";
import { idParam } from "./params";

/**
 * POST /users/:id/unlock (administrators): lifts every address's lock on the account
 * (docs/security.md, Lockout). GitLab has the action on its admin page only; the API route follows
 * its block/unblock convention: 201 with `true`. Audited as `account_unlocked`.
 */
const lockout = new Hono<AppEnv>();

lockout.post("/users/:id/unlock", requireAuth(WRITE_API), requireAdmin, async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const user = await findUserById(getDb(c.env.DB), id.data);
  if (!user) throw notFound("User Not Found");
  await unlockAccount(c.env, user.id, c.get("principal").user.id, clientIp(c));
  return c.json(true, 201);
});

export default lockout;
