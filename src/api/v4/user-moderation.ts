import { Hono } from "hono";
import { AccountStateError } from "../../accounts/user-state";
import { MODERATION_ACTIONS } from "../../accounts/moderation";
import type { AppEnv } from "../../env";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";
import { ApiError, invalidParam, notFound } from "./errors";
import { idParam } from "./params";

/**
 * GitLab's user moderation API (administrators): block, unblock, deactivate, activate, and unlock.
 * Success is 201 with GitLab's body: `true` on a change, `null` when the user already was in that
 * state (GitLab's `break`), `false` when unblocking a user who is not blocked.
 */
const moderation = new Hono<AppEnv>();

for (const [name, action] of Object.entries(MODERATION_ACTIONS)) {
  moderation.post(`/users/:id/${name}`, requireAuth(WRITE_API), requireAdmin, async (c) => {
    const id = idParam.safeParse(c.req.param("id"));
    if (!id.success) throw invalidParam("id");
    try {
      const result = await action(c.env, requestActor(c), id.data);
      return c.json(result, 201);
    } catch (e) {
      if (!(e instanceof AccountStateError)) throw e;
      if (e.kind === "not_found") throw notFound(e.message);
      throw new ApiError(403, { message: `403 Forbidden - ${e.message}` });
    }
  });
}

export default moderation;
