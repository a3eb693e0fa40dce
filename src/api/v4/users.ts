import { Hono } from "hono";
import { z } from "zod";
import { passwordWeakness } from "../../crypto/password";
import { getDb } from "../../db/client";
import { createUser, findUserById, listUsers, takenFields, type UserOrder, type UserRow } from "../../db/users";
import { encodeCursor } from "../../db/listing";
import type { AppEnv } from "../../env";
import { WRITE_API, requireAdmin, requireAuth } from "./auth";
import { ApiError, conflict, invalidParam, notFound } from "./errors";
import { cursorAfter, parsePage, setKeysetNext, setPaginationHeaders } from "./pagination";
import { boolParam, displayName, idParam, text } from "./params";
import { READ_USER } from "./user";
import { userBasic, userPrivate, userProfile } from "./user-entities";
import { validateParams, validateQuery } from "./validate";

/** GitLab's users API: create (administrators), list, show. */
const users = new Hono<AppEnv>();

/**
 * GitLab's username rule (Gitlab::PathRegex.namespace_format_regex, simplified). Reserved names and
 * names another user or a group holds are refused by createUser (docs/security.md "Namespaces").
 */
export const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,253}[a-zA-Z0-9_-]$/;

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
  if (!USERNAME.test(input.username) || /\.(git|atom)$/i.test(input.username)) {
    throw new ApiError(400, { message: { username: ["is invalid"] } });
  }
  const weakness = passwordWeakness(input.password);
  if (weakness) throw new ApiError(400, { message: { password: [weakness.replace(/^Password /, "")] } });
  const db = getDb(c.env.DB);
  const taken = await takenFields(db, input.username, input.email);
  if (taken.username || taken.email) {
    throw conflict({ ...(taken.username ? { username: ["has already been taken"] } : {}), ...(taken.email ? { email: ["has already been taken"] } : {}) });
  }
  // Two creations racing: D1 decides, and the loser hears 409 as above (NamespacePathError).
  const user = await createUser(db, { username: input.username, name: input.name, email: input.email, password: input.password, isAdmin: input.admin ?? false });
  return c.json(await userPrivate(user, new URL(c.req.url).origin, true), 201);
});

const ListQuery = z.object({
  username: z.string().max(255).optional(),
  search: z.string().max(255).optional(),
  active: boolParam.optional(),
  blocked: boolParam.optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
  // GitLab's orders of GET /users (updated_at is not kept here, so it is not offered).
  order_by: z.enum(["id", "name", "username", "created_at"]).default("id"),
  sort: z.enum(["asc", "desc"]).default("desc"),
  pagination: z.enum(["offset", "keyset"]).optional(),
  cursor: z.string().max(2000).optional(),
});

/** A row's value of the order column as a keyset cursor carries it (times as ISO 8601, as GitLab). */
const cursorValue = (u: UserRow, orderBy: UserOrder): string =>
  orderBy === "created_at" ? new Date(u.createdAt).toISOString() : orderBy === "id" ? String(u.id) : u[orderBy];

users.get("/users", requireAuth(READ_USER), validateQuery(ListQuery), async (c) => {
  const q = c.req.valid("query");
  const page = parsePage(c);
  const keyset = q.pagination === "keyset";
  let after: { value: unknown; id: number } | undefined;
  if (keyset && q.cursor !== undefined) {
    const at = cursorAfter(q.cursor, q.order_by);
    const value = q.order_by === "created_at" ? Date.parse(at.value) : at.value;
    if (typeof value === "number" && Number.isNaN(value)) throw invalidParam("cursor");
    after = { value, id: at.id };
  }
  const viewer = c.get("principal").user;
  const state = q.blocked ? "blocked" : q.active ? "active" : undefined;
  const { rows, total, hasNext } = await listUsers(getDb(c.env.DB), {
    offset: keyset ? 0 : page.offset,
    limit: page.perPage,
    orderBy: q.order_by,
    sort: q.sort,
    after,
    username: q.username,
    search: q.search,
    searchEmails: viewer.isAdmin,
    state,
  });
  if (keyset) {
    const last = rows[rows.length - 1];
    const next = hasNext && last ? { cursor: encodeCursor({ [q.order_by]: cursorValue(last, q.order_by), id: String(last.id) }) } : null;
    setKeysetNext(c, page.perPage, next);
  } else {
    setPaginationHeaders(c, page, total, hasNext);
  }
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
