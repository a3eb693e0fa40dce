import { Hono } from "hono";
import { MODERATION_ACTIONS } from "../../services/accounts/moderation";
import { deleteUser } from "../../services/accounts/user-delete";
import type { AppEnv } from "../../env";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";
import { invalidParam } from "./errors";
import { idParam } from "./params";
import { optionalBool, readParams } from "./validate";

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
    // Refusals are AppErrors: 404 "404 User Not Found", 403 "403 Forbidden - <why>" (renderApiError).
    const result = await action(c.env, requestActor(c), id.data);
    return c.json(result, 201);
  });
}

/**
 * GitLab's `DELETE /users/:id` (administrators): 204 once the deletion is recorded and finished;
 * `hard_delete` (query or body) deletes the user's contributions instead of moving them to the
 * ghost user (docs/operations.md, "Delete a user").
 */
moderation.delete("/users/:id", requireAuth(WRITE_API), requireAdmin, async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const hardDelete = optionalBool("hard_delete", (await readParams(c)).hard_delete) ?? false;
  await deleteUser(c.env, requestActor(c), id.data, { hardDelete });
  return c.body(null, 204);
});

export default moderation;
