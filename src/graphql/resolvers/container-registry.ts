import { GraphQLError } from "graphql";
import type { ProjectRow } from "../../db/projects";
import { findRepository, listRepositories, listTags, repositoryTagsSize, type RegistryRepositoryRow, type RegistryTagRow, type RepositorySort, type TagSort } from "../../db/registry";
import { actorOf } from "../../credentials/principal";
import { deleteContainerRepository, deleteContainerTags } from "../../services/registry-images";
import { knownTotal, paginate, type ConnectionArgs } from "../connection";
import { loadProject, mayOnProject, notAvailable, projectAccessOf, requireWrite, type GqlContext } from "../context";
import { parseGid } from "../schema/global-id";

/**
 * Project.containerRepositories, Query.containerRepository (details: tags, size), and the
 * destroyContainerRepository / destroyContainerRepositoryTags mutations. The same abilities as the
 * REST registry API (src/domain/abilities.ts: read_container_image, destroy_container_image) and the
 * same storage functions, so a delete here is gone from /v2/ at once.
 */
const MAX_TAGS_PER_DESTROY = 20;

const mayRead = (ctx: GqlContext, project: ProjectRow) => mayOnProject(ctx, project, "read_container_image");
const mayDestroy = (ctx: GqlContext, project: ProjectRow) => mayOnProject(ctx, project, "destroy_container_image");

/** The repository's project, checked for destroy_container_image; null when the caller may not. */
async function destroyable(ctx: GqlContext, repo: RegistryRepositoryRow) {
  const access = await projectAccessOf(ctx, await projectOf(ctx, repo));
  return access.can("destroy_container_image") ? access.check("destroy_container_image") : null;
}

async function projectOf(ctx: GqlContext, repo: RegistryRepositoryRow): Promise<ProjectRow> {
  const project = await loadProject(ctx, repo.projectId);
  if (!project) throw notAvailable();
  return project;
}

/** A repository the caller may read, by global id, or null. */
async function readableRepository(ctx: GqlContext, gid: unknown): Promise<RegistryRepositoryRow | null> {
  const repo = await findRepository(ctx.db, parseGid(gid, "ContainerRepository", "ContainerRepositoryID"));
  if (!repo) return null;
  return (await mayRead(ctx, await projectOf(ctx, repo))) ? repo : null;
}

const host = (ctx: GqlContext) => new URL(ctx.origin).host;

const repositoryFields = {
  id: (r: RegistryRepositoryRow) => r.id,
  location: (r: RegistryRepositoryRow, _: unknown, ctx: GqlContext) => `${host(ctx)}/${r.path}`,
  updatedAt: (r: RegistryRepositoryRow) => r.updatedAt,
  // Kept on the row by triggers on registry_tags: no tag is read.
  tagsCount: (r: RegistryRepositoryRow) => r.tagsCount,
  // Deletes are carried out when they answer, so none is ever scheduled or ongoing.
  status: () => null,
  canDelete: async (r: RegistryRepositoryRow, _: unknown, ctx: GqlContext) => mayDestroy(ctx, await projectOf(ctx, r)),
  project: (r: RegistryRepositoryRow, _: unknown, ctx: GqlContext) => projectOf(ctx, r),
};

interface TagParent {
  tag: RegistryTagRow;
  repo: RegistryRepositoryRow;
}

export const containerRegistryResolvers = {
  Project: {
    containerRepositories: async (project: ProjectRow, args: ConnectionArgs & { name?: string | null; sort?: RepositorySort | null }, ctx: GqlContext) => {
      if (!(await mayRead(ctx, project))) return null;
      const o = { name: args.name, sort: args.sort ?? undefined };
      return paginate(args, async (w) => knownTotal(w, await listRepositories(ctx.db, { projectId: project.id }, w, o)));
    },
    containerRepositoriesCount: async (project: ProjectRow, _: unknown, ctx: GqlContext) => {
      if (!(await mayRead(ctx, project))) return null;
      return (await listRepositories(ctx.db, { projectId: project.id }, { limit: 0, offset: 0 })).total;
    },
  },
  Query: {
    containerRepository: (_: unknown, args: { id: string }, ctx: GqlContext) => readableRepository(ctx, args.id),
  },
  ContainerRepository: repositoryFields,
  ContainerRepositoryDetails: {
    ...repositoryFields,
    // As REST's GET /registry/repositories/:id?size=true: the sum of the tags' image sizes.
    size: (r: RegistryRepositoryRow, _: unknown, ctx: GqlContext) => repositoryTagsSize(ctx.db, r.id),
    tags: async (r: RegistryRepositoryRow, args: ConnectionArgs & { name?: string | null; sort?: TagSort | null }, ctx: GqlContext) => {
      const o = { name: args.name, sort: args.sort ?? undefined };
      const page = await paginate(args, async (w) => knownTotal(w, await listTags(ctx.db, r.id, w, o)));
      const wrap = (tag: RegistryTagRow): TagParent => ({ tag, repo: r });
      return { ...page, nodes: page.nodes.map(wrap), edges: page.edges.map((e) => ({ cursor: e.cursor, node: wrap(e.node) })) };
    },
  },
  ContainerRepositoryTag: {
    name: (p: TagParent) => p.tag.name,
    path: (p: TagParent) => `${p.repo.path}:${p.tag.name}`,
    location: (p: TagParent, _: unknown, ctx: GqlContext) => `${host(ctx)}/${p.repo.path}:${p.tag.name}`,
    digest: (p: TagParent) => p.tag.digest,
    revision: (p: TagParent) => p.tag.revision,
    shortRevision: (p: TagParent) => p.tag.revision.slice(0, 9),
    totalSize: (p: TagParent) => p.tag.totalSize,
    createdAt: (p: TagParent) => p.tag.createdAt,
    canDelete: async (p: TagParent, _: unknown, ctx: GqlContext) => mayDestroy(ctx, await projectOf(ctx, p.repo)),
  },
  Mutation: {
    destroyContainerRepository: async (_: unknown, { input }: { input: { id: string; clientMutationId?: string } }, ctx: GqlContext) => {
      requireWrite(ctx);
      const repo = await readableRepository(ctx, input.id);
      const project = repo && (await destroyable(ctx, repo));
      if (!repo || !project) throw notAvailable();
      await deleteContainerRepository(ctx.env, actorOf(ctx.principal!, ctx.clientAddress), project, repo);
      return { containerRepository: repo, errors: [], clientMutationId: input.clientMutationId ?? null };
    },
    destroyContainerRepositoryTags: async (_: unknown, { input }: { input: { id: string; tagNames: string[]; clientMutationId?: string } }, ctx: GqlContext) => {
      requireWrite(ctx);
      if (input.tagNames.length > MAX_TAGS_PER_DESTROY) {
        throw new GraphQLError(`Number of tags is greater than ${MAX_TAGS_PER_DESTROY}`, { extensions: { code: "BAD_USER_INPUT" } });
      }
      const repo = await readableRepository(ctx, input.id);
      const project = repo && (await destroyable(ctx, repo));
      if (!repo || !project) throw notAvailable();
      const deletedTagNames = await deleteContainerTags(ctx.env, actorOf(ctx.principal!, ctx.clientAddress), project, repo, input.tagNames);
      return { deletedTagNames, errors: [], clientMutationId: input.clientMutationId ?? null };
    },
  },
};
