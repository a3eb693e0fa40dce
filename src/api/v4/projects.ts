import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { listProjects, projectSearch, type ProjectOrder } from "../../db/namespace-listing";
import type { ProjectRow } from "../../db/projects";
import { projectRegistrySize } from "../../db/registry-content";
import { pathFromName } from "../../domain/namespace-input";
import type { AppEnv } from "../../env";
import { allowAnonymous, READ_API, requestActor, requireAuth, WRITE_API } from "./auth";
import { invalidParam } from "./errors";
import { createProject, destroyProject, updateProject, type NewProject } from "../../services/namespaces";
import { pathSchema, visibilitySchema } from "./groups";
import { iso, loadGroup, loadProject, webUrl } from "./load";
import { parseParams, queryParams, readParams } from "./validate";
import { keysetUnavailable, parsePage, refuseOffsetPastLimit, setKeysetNext, setPaginationHeaders } from "./pagination";
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
    initialize_with_readme: z.union([z.boolean(), z.string()]).optional(),
  })
  .refine((p) => p.name || p.path, { path: ["name"], message: "received undefined" });

projects.post("/projects", requireAuth(WRITE_API), async (c) => {
  const input = parseParams(CreateProject, await readParams(c));
  const { user } = c.var.principal;
  const path = input.path ?? pathFromName(input.name!);
  if (!pathSchema.safeParse(path).success) throw invalidParam("path");
  // GitLab's default project creation level in a group: developers and maintainers (create_projects).
  const namespace: NewProject["namespace"] = input.namespace_id
    ? { kind: "group", group: (await loadGroup(c, String(input.namespace_id), "create_projects")).group }
    : { kind: "user", id: user.id, fullPath: user.username };
  // A path taken without regard to case in the namespace: 400 {"message":{"path":[...]}} (NamespacePathError).
  const project = await createProject(c.env, requestActor(c), {
    name: input.name ?? path,
    path,
    namespace,
    visibility: input.visibility,
    description: input.description,
    defaultBranch: input.default_branch,
    readme: coerceBool(input.initialize_with_readme) === true,
    creator: user,
  });
  return c.json(renderProject(c, project), 201);
});

const ListProjects = z.object({
  search: z.string().max(255).optional(),
  search_namespaces: z.string().optional(),
  membership: z.string().optional(),
  owned: z.string().optional(),
  visibility: visibilitySchema.optional(),
  order_by: z.enum(["id", "name", "path", "created_at", "last_activity_at"]).default("created_at"),
  sort: z.enum(["asc", "desc"]).default("desc"),
  pagination: z.enum(["offset", "keyset"]).optional(),
  id_after: idParam.optional(),
  id_before: idParam.optional(),
});

async function list(c: Context<AppEnv>, groupId?: number) {
  const q = parseParams(ListProjects, queryParams(c));
  const page = parsePage(c);
  const keyset = q.pagination === "keyset";
  // GitLab offers keyset pagination of projects by id only (id_after / id_before in the next link).
  if (keyset && q.order_by !== "id") throw keysetUnavailable();
  if (!keyset) refuseOffsetPastLimit(page, "Project");
  // Without a token (allowAnonymous): public projects only, as GitLab.
  const user = c.var.caller?.kind === "user" ? c.var.principal.user : null;
  const membershipOnly = coerceBool(q.membership) === true || coerceBool(q.owned) === true;
  const filters = { visibility: q.visibility, idAfter: q.id_after, idBefore: q.id_before, groupId };
  const { rows, total, hasNext } = await listProjects(getDb(c.env.DB), { userId: user?.id ?? null, isAdmin: user?.isAdmin ?? false, membershipOnly }, filters, {
    orderBy: q.order_by as ProjectOrder,
    sort: q.sort,
    limit: page.perPage,
    offset: keyset ? 0 : page.offset,
    search: q.search ? projectSearch(q.search, coerceBool(q.search_namespaces) === true) : null,
    withoutTotal: keyset,
  });
  if (keyset) {
    const last = rows[rows.length - 1];
    setKeysetNext(c, page.perPage, hasNext && last ? { [q.sort === "asc" ? "id_after" : "id_before"]: String(last.id) } : null);
  } else {
    setPaginationHeaders(c, page, total, hasNext);
  }
  return c.json(rows.map((p) => renderProject(c, p)));
}

projects.get("/projects", allowAnonymous(READ_API), (c) => list(c));

projects.get("/groups/:id/projects", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"));
  return list(c, group.id);
});

projects.get("/projects/:id", requireAuth(READ_API), async (c) => {
  const { project, access } = await loadProject(c, c.req.param("id"));
  // GitLab: ?statistics=true adds the project's storage statistics for reporters and above.
  if (c.req.query("statistics") === "true" && access.can("read_statistics")) {
    const containerRegistrySize = await projectRegistrySize(getDb(c.env.DB), project.id);
    return c.json({ ...renderProject(c, project), statistics: { container_registry_size: containerRegistrySize } });
  }
  return c.json(renderProject(c, project));
});

const UpdateProject = z.object({
  name: displayName(255).optional(),
  path: pathSchema.optional(),
  description: z.string().max(2000).optional(),
  default_branch: z.string().min(1).max(255).optional(),
  visibility: visibilitySchema.optional(),
});

// GitLab: maintainers edit a project (admin_project), only owners rename it (rename_project).
projects.put("/projects/:id", requireAuth(WRITE_API), async (c) => {
  const { project, access } = await loadProject(c, c.req.param("id"), "admin_project");
  const input = parseParams(UpdateProject, await readParams(c));
  if (input.name !== undefined && input.name !== project.name) access.check("rename_project");
  const updated = await updateProject(c.env, requestActor(c), project, {
    name: input.name,
    path: input.path,
    description: input.description,
    defaultBranch: input.default_branch,
    visibility: input.visibility,
  });
  return c.json(renderProject(c, updated));
});

// GitLab: owners delete a project (remove_project); the answer is 202 and storage goes afterwards.
projects.delete("/projects/:id", requireAuth(WRITE_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "remove_project");
  const { afterwards } = await destroyProject(c.env, requestActor(c), project);
  c.executionCtx.waitUntil(afterwards);
  return c.json({ message: "202 Accepted" }, 202);
});

export default projects;
