import { Hono } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findUserById, listUsers, type UserOrder, type UserRow } from "../../db/users";
import { createUserAccount } from "../../services/accounts/user-create";
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
  const created = await createUserAccount(c.env, { username: input.username, name: input.name, email: input.email, password: input.password, admin: input.admin ?? false });
  if (!created.ok) throw created.conflict ? conflict(created.errors) : new ApiError(400, { message: created.errors });
  return c.json(await userPrivate(created.user, new URL(c.req.url).origin, true), 201);
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
    // The cursor carries every value as a string; ids and times compare as the numbers they are
    // stored as (SQLite orders any number before any string: a text id would match no row, or all).
    const value = q.order_by === "created_at" ? Date.parse(at.value) : q.order_by === "id" ? Number(at.value) : at.value;
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
