import type { GroupRow, ProjectRow } from "../../db/projects";
import { findUserById, type UserRow } from "../../db/users";
import { canSeeGroup, loadGroup, visibleProject, type GqlContext } from "../context";
import { toGid } from "../schema/global-id";

/** Query.echo/currentUser/project/group and the Project, Group and UserCore types. */
export async function loadUser(ctx: GqlContext, id: number | null): Promise<UserRow | null> {
  if (id === null) return null;
  let hit = ctx.memo.get(`user:${id}`) as Promise<UserRow | null> | undefined;
  if (!hit) {
    hit = findUserById(ctx.db, id);
    ctx.memo.set(`user:${id}`, hit);
  }
  return hit;
}

export const projectResolvers = {
  Query: {
    // GitLab's testing endpoint: it names the caller, so a client can check its token.
    echo: (_: unknown, { text }: { text: string }, ctx: GqlContext) =>
      ctx.principal ? `"${ctx.principal.user.username}" says: ${text}` : `nil says: ${text}`,
    currentUser: (_: unknown, __: unknown, ctx: GqlContext) => ctx.principal?.user ?? null,
    project: (_: unknown, { fullPath }: { fullPath: string }, ctx: GqlContext) => visibleProject(ctx, fullPath),
    group: async (_: unknown, { fullPath }: { fullPath: string }, ctx: GqlContext) => {
      const group = await loadGroup(ctx, fullPath);
      return group && (await canSeeGroup(ctx, group)) ? group : null;
    },
  },
  Project: {
    id: (p: ProjectRow) => toGid("Project", p.id),
    fullPath: (p: ProjectRow) => p.pathWithNamespace,
    webUrl: (p: ProjectRow, _: unknown, ctx: GqlContext) => `${ctx.origin}/${p.pathWithNamespace}`,
  },
  Group: {
    id: (g: GroupRow) => toGid("Group", g.id),
    webUrl: (g: GroupRow, _: unknown, ctx: GqlContext) => `${ctx.origin}/groups/${g.fullPath}`,
  },
  UserCore: {
    id: (u: UserRow) => toGid("User", u.id),
    webUrl: (u: UserRow, _: unknown, ctx: GqlContext) => `${ctx.origin}/${u.username}`,
  },
};
