import { Hono } from "hono";
import { isUniqueViolation } from "../../db/errors";
import { z } from "zod";
import { passwordWeakness } from "../../crypto/password";
import { getDb } from "../../db/client";
import { createUser, findUserById, listUsers, takenFields } from "../../db/users";
import type { AppEnv } from "../../env";
import { WRITE_API, requireAdmin, requireAuth } from "./auth";
import { ApiError, conflict, invalidParam, notFound } from "./errors";
import { parsePage, setPaginationHeaders } from "./pagination";
import { boolParam, displayName, idParam, text } from "./params";
import { READ_USER } from "./user";
import { userBasic, userPrivate, userProfile } from "./user-entities";
import { validateParams, validateQuery } from "./validate";

/** GitLab's users API: create (administrators), list, show. */
const users = new Hono<AppEnv>();

/** GitLab's username rule (Gitlab::PathRegex.namespace_format_regex, simplified). */
const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,253}[a-zA-Z0-9_-]$/;
/** Usernames that collide with the service's own top-level paths. */
const RESERVED = new Set(["users", "profile", "help", "oauth", "api", "-", "admin", "root", ".well-known", "assets"]);

const NewUser = z.object({
  username: text(255),
  name: displayName(255),
  email: text(254).pipe(z.email()),
  password: z.string().min(1).max(1024),
  skip_confirmation: boolParam.optional(),
  admin: boolParam.optional(),
});

users.post("/users", requireAuth(WRITE_API), requireAdmin, validateParams(NewUser), async (c) => {
  const input = c.req.valid("json");
  if (!USERNAME.test(input.username) || RESERVED.has(input.username.toLowerCase()) || /\.(git|atom)$/i.test(input.username)) {
    throw new ApiError(400, { message: { username: ["is invalid"] } });
  }
  const weakness = passwordWeakness(input.password);
  if (weakness) throw new ApiError(400, { message: { password: [weakness.replace(/^Password /, "")] } });
  const db = getDb(c.env.DB);
  const taken = await takenFields(db, input.username, input.email);
  if (taken.username || taken.email) {
    throw conflict({ ...(taken.username ? { username: ["has already been taken"] } : {}), ...(taken.email ? { email: ["has already been taken"] } : {}) });
  }
  let user;
  try {
    user = await createUser(db, { username: input.username, name: input.name, email: input.email, password: input.password, isAdmin: input.admin ?? false });
  } catch (e) {
    // Two creations racing: the UNIQUE constraint decides, and the loser hears 409 as above.
    if (isUniqueViolation(e)) {
      const field = /users\.email/.test(`${e} ${(e as { cause?: unknown }).cause}`) ? "email" : "username";
      throw conflict({ [field]: ["has already been taken"] });
    }
    throw e;
  }
  return c.json(await userPrivate(user, new URL(c.req.url).origin, true), 201);
});

const ListQuery = z.object({
  username: z.string().max(255).optional(),
  search: z.string().max(255).optional(),
  active: boolParam.optional(),
  blocked: boolParam.optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
});

users.get("/users", requireAuth(READ_USER), validateQuery(ListQuery), async (c) => {
  const q = c.req.valid("query");
  const page = parsePage(c);
  const viewer = c.get("principal").user;
  const state = q.blocked ? "blocked" : q.active ? "active" : undefined;
  const { rows, total } = await listUsers(getDb(c.env.DB), {
    offset: page.offset,
    limit: page.perPage,
    username: q.username,
    search: q.search,
    state,
  });
  setPaginationHeaders(c, page, total);
  const origin = new URL(c.req.url).origin;
  return c.json(await Promise.all(rows.map((u) => (viewer.isAdmin ? userPrivate(u, origin, true) : userBasic(u, origin)))));
});

users.get("/users/:id", requireAuth(READ_USER), async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const user = await findUserById(getDb(c.env.DB), id.data);
  if (!user) throw notFound("User Not Found");
  const viewer = c.get("principal").user;
  const origin = new URL(c.req.url).origin;
  if (viewer.isAdmin) return c.json(await userPrivate(user, origin, true));
  return c.json(await userProfile(user, origin));
});

export default users;
