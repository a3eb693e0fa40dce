import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { requireAuth } from "./auth";
import { userPrivate } from "./user-entities";

/** GET /api/v4/user: the token's user, with GitLab's field set (scopes api, read_api, read_user). */
const user = new Hono<AppEnv>();

export const READ_USER = ["api", "read_api", "read_user"] as const;

user.get("/user", requireAuth(READ_USER), async (c) => {
  const me = c.get("principal").user;
  return c.json(await userPrivate(me, new URL(c.req.url).origin, me.isAdmin));
});

export default user;
