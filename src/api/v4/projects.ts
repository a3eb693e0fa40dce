import { and, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { createProject, listProjects, projectVisibleTo, type ProjectOrder } from "../../db/namespaces";
import type { ProjectRow } from "../../db/projects";
import { projects as projectsTable } from "../../db/schema/projects";
import { AccessLevel } from "../../domain/access";
import type { AppEnv } from "../../env";
import { READ_API, requireAuth, WRITE_API } from "./auth";
import { invalidParam } from "./errors";
import { pathSchema, visibilitySchema } from "./groups";
import { iso, loadGroup, loadProject, uniqueOr400, webUrl } from "./load";
import { parseParams, queryParams, readParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { coerceBool, displayName, idParam } from "./params";

/** Projects (GitLab: POST /projects, GET /projects, GET /projects/:id by id or URL-encoded path). */
const projects = new Hono<AppEnv>();

export function renderProject(c: Context, p: ProjectRow) {
  const namespacePath = p.pathWithNamespace.slice(0, p.pathWithNamespace.length - p.path.length - 1);
  return {
    id: p.id,
    name: p.name,
    path: p.path,
    path_with_namespace: p.pathWithNamespace,
    name_with_namespace: `${namespacePath.split("/").join(" / ")} / ${p.name}`,
    description: p.description,
    visibility: p.visibility,
    default_branch: p.defaultBranch,
    namespace: {
      id: p.namespaceId,
      kind: p.namespaceKind,
      path: namespacePath.split("/").pop(),
      full_path: namespacePath,
    },
    creator_id: p.creatorId,
    created_at: iso(p.createdAt),
    last_activity_at: iso(p.lastActivityAt),
    web_url: webUrl(c, p.pathWithNamespace),
    http_url_to_repo: webUrl(c, `${p.pathWithNamespace}.git`),
  };
}

const CreateProject = z
  .object({
    name: displayName(255).optional(),
    path: pathSchema.optional(),
    namespace_id: idParam.optional(),
    visibility: visibilitySchema.default("private"),
    description: z.string().max(2000).default(""),
    default_branch: z.string().min(1).max(255).optional(),
  })
  .refine((p) => p.name || p.path, { path: ["name"], message: "received undefined" });

projects.post("/projects", requireAuth(WRITE_API), async (c) => {
  const input = parseParams(CreateProject, await readParams(c));
  const { user } = c.var.principal;
  const path = input.path ?? input.name!.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
  if (!pathSchema.safeParse(path).success) throw invalidParam("path");
  let namespace: { kind: "group" | "user"; id: number; fullPath: string };
  if (input.namespace_id) {
    // GitLab's default project creation level: developers and maintainers.
    const { group } = await loadGroup(c, String(input.namespace_id), AccessLevel.DEVELOPER);
    namespace = { kind: "group", id: group.id, fullPath: group.fullPath };
  } else {
    namespace = { kind: "user", id: user.id, fullPath: user.username };
  }
  const project = await uniqueOr400("path", () =>
    createProject(getDb(c.env.DB), {
      name: input.name ?? path,
      path,
      namespace,
      visibility: input.visibility,
      description: input.description,
      defaultBranch: input.default_branch,
      creatorId: user.id,
    }),
  );
  return c.json(renderProject(c, project), 201);
});

const ListProjects = z.object({
  search: z.string().optional(),
  membership: z.string().optional(),
  owned: z.string().optional(),
  visibility: visibilitySchema.optional(),
  order_by: z.enum(["id", "name", "path", "created_at", "last_activity_at"]).default("created_at"),
  sort: z.enum(["asc", "desc"]).default("desc"),
});

async function list(c: Context<AppEnv>, extra: ReturnType<typeof sql>[]) {
  const q = parseParams(ListProjects, queryParams(c));
  const page = parsePage(c);
  const { user } = c.var.principal;
  const membershipOnly = coerceBool(q.membership) === true || coerceBool(q.owned) === true;
  const conds = [projectVisibleTo(user.id, user.isAdmin, membershipOnly), ...extra];
  if (q.visibility) conds.push(sql`${projectsTable.visibility} = ${q.visibility}`);
  if (q.search) conds.push(sql`lower(${projectsTable.pathWithNamespace}) LIKE ${`%${q.search.toLowerCase()}%`}`);
  const { rows, total } = await listProjects(getDb(c.env.DB), and(...conds)!, {
    orderBy: q.order_by as ProjectOrder,
    sort: q.sort,
    limit: page.perPage,
    offset: page.offset,
  });
  setPaginationHeaders(c, page, total);
  return c.json(rows.map((p) => renderProject(c, p)));
}

projects.get("/projects", requireAuth(READ_API), (c) => list(c, []));

projects.get("/groups/:id/projects", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"));
  return list(c, [sql`${projectsTable.namespaceKind} = 'group' AND ${projectsTable.namespaceId} = ${group.id}`]);
});

projects.get("/projects/:id", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"));
  return c.json(renderProject(c, project));
});

export default projects;
