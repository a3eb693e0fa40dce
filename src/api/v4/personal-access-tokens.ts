import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import {
  getPersonalAccessToken,
  isPatExpired,
  listPersonalAccessTokens,
  type PersonalAccessTokenRow,
} from "../../db/personal-access-tokens";
import { findUserById } from "../../db/users";
import type { AppEnv } from "../../env";
import { READ_API, WRITE_API, requestActor, requireAdmin, requireAuth } from "./auth";
import { ApiError, invalidParam, notFound } from "./errors";
import { iso } from "./load";
import { parsePage, setPaginationHeaders } from "./pagination";
import { boolParam, idParam } from "./params";
import { validateParams, validateQuery } from "./validate";
import { createPersonalAccessToken, revokePersonalAccessToken } from "../../services/personal-access-tokens";
import { parseScopeList, parseScopes } from "../../domain/scopes";

/**
 * GitLab's personal access token API: administrators create tokens for users; everyone lists,
 * shows and revokes their own (administrators anyone's). Expiry is mandatory, at most a year.
 */
const pats = new Hono<AppEnv>();

export function patEntity(pat: PersonalAccessTokenRow, now = Date.now()) {
  return {
    id: pat.id,
    name: pat.name,
    revoked: pat.revoked,
    created_at: iso(pat.createdAt),
    description: null,
    scopes: parseScopes(pat.scopes),
    user_id: pat.userId,
    last_used_at: iso(pat.lastUsedAt),
    active: !pat.revoked && !isPatExpired(pat.expiresAt, now),
    expires_at: pat.expiresAt,
  };
}

const NewToken = z.object({
  name: z.string().max(255),
  scopes: z.union([z.string().max(1024), z.array(z.string().max(64)).max(32)]),
  expires_at: z.string().max(32).optional(),
  description: z.string().max(1024).optional(),
});

pats.post("/users/:user_id/personal_access_tokens", requireAuth(WRITE_API), requireAdmin, validateParams(NewToken), async (c) => {
  const userId = idParam.safeParse(c.req.param("user_id"));
  if (!userId.success) throw invalidParam("user_id");
  const db = getDb(c.env.DB);
  const user = await findUserById(db, userId.data);
  if (!user) throw notFound("User Not Found");
  const input = c.req.valid("json");
  const created = await createPersonalAccessToken(c.env, requestActor(c), { userId: user.id, name: input.name, scopes: parseScopeList(input.scopes), expiresAt: input.expires_at });
  if (!created.ok) throw new ApiError(400, { message: created.errors });
  return c.json({ ...patEntity(created.row), token: created.token }, 201);
});

const ListQuery = z.object({
  user_id: idParam.optional(),
  state: z.enum(["active", "inactive"]).optional(),
  revoked: boolParam.optional(),
  search: z.string().max(255).optional(),
  page: z.string().optional(),
  per_page: z.string().optional(),
});

pats.get("/personal_access_tokens", requireAuth(READ_API), validateQuery(ListQuery), async (c) => {
  const q = c.req.valid("query");
  const viewer = c.get("principal").user;
  // Non-administrators see only their own tokens, whatever user_id says (GitLab).
  const userId = viewer.isAdmin ? q.user_id : viewer.id;
  if (!viewer.isAdmin && q.user_id !== undefined && q.user_id !== viewer.id) throw new ApiError(401, { message: "401 Unauthorized" });
  const now = Date.now();
  const page = parsePage(c);
  const { rows, total } = await listPersonalAccessTokens(
    getDb(c.env.DB),
    { userId, state: q.state, revoked: q.revoked, search: q.search, now },
    { limit: page.perPage, offset: page.offset },
  );
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((r) => patEntity(r, now)));
});

/** The token of this request (GitLab's /personal_access_tokens/self). */
function selfId(c: Context<AppEnv>): number {
  const p = c.get("principal");
  if (p.kind !== "personal_access_token") throw notFound();
  return Number(p.tokenId);
}

async function visibleToken(c: Context<AppEnv>): Promise<PersonalAccessTokenRow> {
  const raw = c.req.param("id");
  let id: number;
  if (raw === "self") id = selfId(c);
  else {
    const parsed = idParam.safeParse(raw);
    if (!parsed.success) throw invalidParam("id");
    id = parsed.data;
  }
  const pat = await getPersonalAccessToken(getDb(c.env.DB), id);
  const viewer = c.get("principal").user;
  if (!pat || (!viewer.isAdmin && pat.userId !== viewer.id)) throw notFound();
  return pat;
}

pats.get("/personal_access_tokens/:id", requireAuth(READ_API), async (c) => c.json(patEntity(await visibleToken(c))));

pats.delete("/personal_access_tokens/:id", requireAuth(WRITE_API), async (c) => {
  const pat = await visibleToken(c);
  if (!(await revokePersonalAccessToken(c.env, requestActor(c), pat))) throw new ApiError(400, { message: "400 Bad request - Token already revoked" });
  return c.body(null, 204);
});

export default pats;
