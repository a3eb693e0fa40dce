import { Hono, type Context } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findProject } from "../../db/projects";
import {
  findRepository,
  findTag,
  firstTagsOf,
  listRepositories,
  listTags,
  repositoryTagsSize,
  type RepositoryScope,
  type RegistryRepositoryRow,
  type RegistryTagRow,
} from "../../db/registry";
import type { AppEnv } from "../../env";
import { deleteContainerRepository, deleteContainerTags } from "../../services/registry-images";
import { gate } from "../../http/gate";
import { READ_API, requestActor, requireAuth, WRITE_API } from "./auth";
import { notFound } from "./errors";
import { iso, loadGroup, loadProject } from "./load";
import { optionalBool, parseParams, queryParams } from "./validate";
import { parsePage, setPaginationHeaders } from "./pagination";
import { boolParam, idParam } from "./params";

/**
 * Container registry API (GitLab). Personal and OAuth tokens may get, list and delete here (DESIGN,
 * Registries). Repositories appear when their first manifest is pushed to /v2/; deleting a tag or a
 * repository here removes it from /v2/ at once and collects the blobs nothing references any more.
 */
const registry = new Hono<AppEnv>();

const registryHost = (c: Context) => new URL(c.req.url).host;
const renderTagSummary = (c: Context, repo: RegistryRepositoryRow, t: RegistryTagRow) => ({
  name: t.name,
  path: `${repo.path}:${t.name}`,
  location: `${registryHost(c)}/${repo.path}:${t.name}`,
});

function renderRepository(c: Context, repo: RegistryRepositoryRow, extra: { tags?: RegistryTagRow[]; tagsCount?: number; size?: number }) {
  const view: Record<string, unknown> = {
    id: repo.id,
    name: repo.name,
    path: repo.path,
    project_id: repo.projectId,
    location: `${registryHost(c)}/${repo.path}`,
    created_at: iso(repo.createdAt),
    cleanup_policy_started_at: null,
  };
  if (extra.tagsCount !== undefined) view.tags_count = extra.tagsCount;
  if (extra.tags) view.tags = extra.tags.map((t) => renderTagSummary(c, repo, t));
  if (extra.size !== undefined) view.size = extra.size;
  return view;
}

const ListQuery = z.object({ tags: z.string().optional(), tags_count: z.string().optional() });
const bool = (name: string, v: string | undefined) => optionalBool(name, v) ?? false;

async function respondRepositories(c: Context<AppEnv>, scope: RepositoryScope, honourTags: boolean) {
  const q = parseParams(ListQuery, queryParams(c));
  // Ignored parameters are not even validated (GitLab drops them from the declared params).
  const tags = honourTags && bool("tags", q.tags);
  const tagsCount = honourTags && bool("tags_count", q.tags_count);
  const db = getDb(c.env.DB);
  const page = parsePage(c);
  const { rows, total, hasNext } = await listRepositories(db, scope, { limit: page.perPage, offset: page.offset });
  // Each repository's first TAGS_PER_REPOSITORY tags (docs/registries.md); the count is exact, kept on the row.
  const tagMap = tags ? await firstTagsOf(db, rows.map((r) => r.id)) : new Map<number, RegistryTagRow[]>();
  setPaginationHeaders(c, page, total, hasNext);
  return c.json(
    rows.map((r) =>
      renderRepository(c, r, {
        tags: tags ? (tagMap.get(r.id) ?? []) : undefined,
        tagsCount: tagsCount ? r.tagsCount : undefined,
      }),
    ),
  );
}

registry.get("/projects/:id/registry/repositories", requireAuth(READ_API), async (c) => {
  const { project } = await loadProject(c, c.req.param("id"), "read_container_image");
  return respondRepositories(c, { projectId: project.id }, true);
});

registry.get("/groups/:id/registry/repositories", requireAuth(READ_API), async (c) => {
  const { group } = await loadGroup(c, c.req.param("id"), "read_group_container_images");
  const g = gate(c);
  // tags and tags_count: honoured (deprecated) below 15.0, ignored from 15.0 (no tag information).
  const usesTags = c.req.query("tags") !== undefined || c.req.query("tags_count") !== undefined;
  const removed = g.isRemoved("group-registry-repositories-tags");
  if (usesTags && !removed) g.markDeprecated("group-registry-repositories-tags");
  return respondRepositories(c, { groupId: group.id }, !removed);
});

/** GET /registry/repositories/:id: remains, with tags and tag_count (the replacement of the group parameters). */
registry.get("/registry/repositories/:id", requireAuth(READ_API), async (c) => {
  const q = parseParams(
    z.object({ tags: boolParam.optional(), tag_count: boolParam.optional(), size: boolParam.optional() }),
    queryParams(c),
  );
  const db = getDb(c.env.DB);
  const repo = await findRepository(db, parseParams(idParam, c.req.param("id")));
  if (!repo) throw notFound();
  const project = await findProject(db, String(repo.projectId));
  if (!project) throw notFound();
  await loadProject(c, String(project.id), "read_container_image");
  const wantTags = q.tags === true;
  const wantCount = q.tag_count === true;
  const wantSize = q.size === true;
  const [tags, size] = await Promise.all([wantTags ? firstTagsOf(db, [repo.id]) : undefined, wantSize ? repositoryTagsSize(db, repo.id) : undefined]);
  return c.json(
    renderRepository(c, repo, {
      tags: tags ? (tags.get(repo.id) ?? []) : undefined,
      tagsCount: wantCount ? repo.tagsCount : undefined,
      size,
    }),
  );
});

async function loadRepository<A extends "read_container_image" | "destroy_container_image">(c: Context<AppEnv>, ability: A) {
  const { project, access } = await loadProject(c, c.req.param("id")!, ability);
  access.check("read_container_image");
  const repoId = parseParams(idParam, c.req.param("repository_id"));
  const repo = await findRepository(getDb(c.env.DB), repoId);
  if (!repo || repo.projectId !== project.id) throw notFound("Repository Not Found");
  return { project, repo };
}

registry.delete("/projects/:id/registry/repositories/:repository_id", requireAuth(WRITE_API), async (c) => {
  const { project, repo } = await loadRepository(c, "destroy_container_image");
  // Gone from /v2/ when this answers; GitLab schedules the deletion and answers 202.
  await deleteContainerRepository(c.env, requestActor(c), project, repo);
  return c.body(null, 202);
});

registry.get("/projects/:id/registry/repositories/:repository_id/tags", requireAuth(READ_API), async (c) => {
  const { repo } = await loadRepository(c, "read_container_image");
  const page = parsePage(c);
  const { rows, total, hasNext } = await listTags(getDb(c.env.DB), repo.id, { limit: page.perPage, offset: page.offset });
  setPaginationHeaders(c, page, total, hasNext);
  return c.json(rows.map((t) => renderTagSummary(c, repo, t)));
});

registry.get("/projects/:id/registry/repositories/:repository_id/tags/:tag_name", requireAuth(READ_API), async (c) => {
  const { repo } = await loadRepository(c, "read_container_image");
  const tag = await findTag(getDb(c.env.DB), repo.id, c.req.param("tag_name"));
  if (!tag) throw notFound("Tag Not Found");
  return c.json({
    ...renderTagSummary(c, repo, tag),
    revision: tag.revision,
    short_revision: tag.revision.slice(0, 9),
    digest: tag.digest,
    created_at: iso(tag.createdAt),
    total_size: tag.totalSize,
  });
});

registry.delete("/projects/:id/registry/repositories/:repository_id/tags/:tag_name", requireAuth(WRITE_API), async (c) => {
  const { project, repo } = await loadRepository(c, "destroy_container_image");
  const deleted = await deleteContainerTags(c.env, requestActor(c), project, repo, [c.req.param("tag_name")]);
  if (!deleted.length) throw notFound("Tag Not Found");
  return c.body(null, 200);
});

export default registry;
