import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../env";
import { disableTwoFactorOfUser } from "../../services/accounts/admin-two-factor";
import { updateUser } from "../../services/accounts/user-edit";
import { reasonOf } from "../../domain/errors";
import { issuerOf } from "../../oauth/issuer";
import { WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";
import { ApiError, invalidParam } from "./errors";
import { boolParam, displayName, idParam, text } from "./params";
import { USERNAME } from "./users";
import { userPrivate } from "./user-entities";
import { validateParams } from "./validate";

/**
 * GitLab's account recovery for administrators: edit a user (`PUT /users/:id`: name, username,
 * email with or without skip_reconfirmation, admin, password) and turn off a user's two-factor
 * authentication (`PATCH /users/:id/disable_two_factor`). The rules are the accounts services'.
 */
const userAdmin = new Hono<AppEnv>();

const UserEdit = z.object({
  username: text(255).optional(),
  name: displayName(255).optional(),
  email: text(254).pipe(z.email()).optional(),
  password: z.string().min(1).max(1024).optional(),
  skip_reconfirmation: boolParam.optional(),
  admin: boolParam.optional(),
});

userAdmin.put("/users/:id", requireAuth(WRITE_API), requireAdmin, validateParams(UserEdit), async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const input = c.req.valid("json");
  if (input.username !== undefined && (!USERNAME.test(input.username) || /\.(git|atom)$/i.test(input.username))) {
    throw new ApiError(400, { message: { username: ["is invalid"] } });
  }
  const origin = new URL(c.req.url).origin;
  try {
    // A confirmation link names the address people use (ISSUER), else this request's origin.
    const user = await updateUser(c.env, issuerOf(c), requestActor(c), id.data, {
      name: input.name,
      username: input.username,
      email: input.email,
      skipReconfirmation: input.skip_reconfirmation,
      password: input.password,
      admin: input.admin,
    });
    return c.json(await userPrivate(user, origin, true));
  } catch (e) {
    // GitLab's validation form for a weak password: {"message":{"password":["is too short ..."]}}.
    if (reasonOf(e, ["weak"])) throw new ApiError(400, { message: { password: [(e as Error).message.replace(/^Password /, "")] } });
    throw e;
  }
});

userAdmin.patch("/users/:id/disable_two_factor", requireAuth(WRITE_API), requireAdmin, async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  await disableTwoFactorOfUser(c.env, requestActor(c), id.data, "api");
  return c.body(null, 204);
});

export default userAdmin;
