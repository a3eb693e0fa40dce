import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { createGroup } from "../../services/namespaces";
import { groupSearch, listGroups } from "../../db/namespace-listing";
import { encodeCursor } from "../../db/listing";
import type { GroupRow } from "../../db/projects";
import { isValidNamespacePath, VISIBILITIES } from "../../domain/namespace-input";
import type { AppEnv } from "../../env";
import { allowAnonymous, READ_API, requestActor, requireAuth, WRITE_API } from "./auth";
import { iso, loadGroup, webUrl } from "./load";
import { parseParams, queryParams, readParams } from "./validate";
import { cursorAfter, keysetUnavailable, parsePage, setKeysetNext, setPaginationHeaders } from "./pagination";
import { coerceBool, displayName, idParam } from "./params";

/** Groups (GitLab: POST /groups, GET /groups, GET /groups/:id). */
const groups = new Hono<AppEnv>();

export const pathSchema = z.string().refine(isValidNamespacePath);
export const visibilitySchema = z.enum(VISIBILITIES);

export function renderGroup(c: Context, g: GroupRow) {
  return {
    id: g.id,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    full_name: g.fullPath.split("/").join(" / "),
    full_path: g.fullPath,
    parent_id: g.parentId,
    created_at: iso(g.createdAt),
    web_url: webUrl(c, `groups/${g.fullPath}`),
    avatar_url: null,
  };
}

const CreateGroup = z.object({
  name: displayName(255),
  path: pathSchema,
  parent_id: idParam.optional(),
  visibility: visibilitySchema.default("private"),
  description: z.string().max(2000).default(""),
});

groups.post("/groups", requireAuth(WRITE_API), async (c) => {
  const input = parseParams(CreateGroup, await readParams(c));
  // Subgroups need owner, admin_group (GitLab's default "Maintainers" creation level is an option we don't model).
  const parent = input.parent_id ? (await loadGroup(c, String(input.parent_id), "admin_group")).group : null;
  // A taken or reserved path is NamespacePathError: 400 {"message":{"path":[...]}} as GitLab.
  const group = await createGroup(c.env, requestActor(c), { name: input.name, path: input.path, parent, visibility: input.visibility, description: input.description });
  return c.json(renderGroup(c, group), 201);
});

const ListGroups = z.object({
  search: z.string().max(255).optional(),
  owned: z.string().optional(),
  all_available: z.string().optional(),
  order_by: z.enum(["name", "path", "id"]).default("name"),
  sort: z.enum(["asc", "desc"]).default("asc"),
  pagination: z.enum(["offset", "keyset"]).optional(),
  cursor: z.string().max(2000).optional(),
});

groups.get("/groups", allowAnonymous(READ_API), async (c) => {
  const q = parseParams(ListGroups, queryParams(c));
  const page = parsePage(c);
  const keyset = q.pagination === "keyset";
  // GitLab offers keyset pagination of groups ordered by name, ascending only.
  if (keyset && (q.order_by !== "name" || q.sort !== "asc")) throw keysetUnavailable();
  const after = keyset && q.cursor !== undefined ? cursorAfter(q.cursor, "name") : undefined;
  // Without a token (allowAnonymous): public groups only, as GitLab.
  const user = c.var.caller?.kind === "user" ? c.var.principal.user : null;
  const viewer = { userId: user?.id ?? null, isAdmin: user?.isAdmin ?? false, membershipOnly: coerceBool(q.owned) === true };
  const { rows, total, hasNext } = await listGroups(getDb(c.env.DB), viewer, {
    orderBy: q.order_by,
    sort: q.sort,
    limit: page.perPage,
    offset: keyset ? 0 : page.offset,
    after,
    search: q.search ? groupSearch(q.search) : null,
  });
  if (keyset) {
    const last = rows[rows.length - 1];
    setKeysetNext(c, page.perPage, hasNext && last ? { cursor: encodeCursor({ name: last.name, id: String(last.id) }) } : null);
  } else {
    setPaginationHeaders(c, page, total, hasNext);
  }
  return c.json(rows.map((g) => renderGroup(c, g)));
});

groups.get("/groups/:id", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"));
  return c.json(renderGroup(c, group));
});

export default groups;
