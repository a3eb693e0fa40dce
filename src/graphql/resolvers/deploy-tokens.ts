import { GraphQLError } from "graphql";
import { actorOf } from "../../credentials/principal";
import {
  findDeployTokenById,
  listDeployTokens,
  type DeployTokenOwner,
  type DeployTokenRow,
} from "../../db/deploy-tokens";
import type { GroupRow, ProjectRow } from "../../db/projects";
import { isDeployTokenExpired } from "../../domain/deploy-token-input";
import { createDeployToken, revokeDeployToken, type ManagedOwner } from "../../services/deploy-tokens";
import { parseScopes } from "../../domain/scopes";
import { paginate, type ConnectionArgs } from "../connection";
import { canSeeGroup, groupAccessOf, loadGroup, mayOnGroup, mayOnProject, notAvailable, projectAccessOf, requireWrite, visibleProject, type GqlContext } from "../context";
import { parseGid } from "../schema/global-id";

/**
 * Project.deployTokens, Group.deployTokens, deployTokenCreate, deployTokenRevoke: the REST deploy
 * token API's rules (admin_project and maintain_group, maintainers; the input checks of
 * src/domain/deploy-token-input.ts) and its storage functions. The secret is in the create answer
 * only.
 */
interface ListArgs extends ConnectionArgs {
  active?: boolean | null;
}

const mayManageProject = (ctx: GqlContext, project: ProjectRow) => mayOnProject(ctx, project, "admin_project");
const mayManageGroup = (ctx: GqlContext, group: GroupRow) => mayOnGroup(ctx, group, "maintain_group");

function list(ctx: GqlContext, owner: DeployTokenOwner, args: ListArgs) {
  return paginate(args, (w) => listDeployTokens(ctx.db, owner, { active: args.active ?? undefined, now: ctx.now, limit: w.limit, offset: w.offset }));
}

/** The owner named by projectPath or groupPath, if the caller may manage its deploy tokens. */
async function managedOwner(ctx: GqlContext, input: { projectPath?: string | null; groupPath?: string | null }): Promise<ManagedOwner> {
  if ((input.projectPath == null) === (input.groupPath == null)) {
    throw new GraphQLError("Give exactly one of projectPath and groupPath", { extensions: { code: "BAD_USER_INPUT" } });
  }
  if (input.projectPath != null) {
    const project = await visibleProject(ctx, input.projectPath);
    if (!project || !(await mayManageProject(ctx, project))) throw notAvailable();
    return { project: (await projectAccessOf(ctx, project)).check("admin_project") };
  }
  const group = await loadGroup(ctx, input.groupPath!);
  if (!group || !(await canSeeGroup(ctx, group)) || !(await mayManageGroup(ctx, group))) throw notAvailable();
  return { group: (await groupAccessOf(ctx, group)).check("maintain_group") };
}

export const deployTokenResolvers = {
  Project: {
    deployTokens: async (project: ProjectRow, args: ListArgs, ctx: GqlContext) =>
      (await mayManageProject(ctx, project)) ? list(ctx, { projectId: project.id }, args) : null,
  },
  Group: {
    deployTokens: async (group: GroupRow, args: ListArgs, ctx: GqlContext) => ((await mayManageGroup(ctx, group)) ? list(ctx, { groupId: group.id }, args) : null),
  },
  DeployToken: {
    id: (t: DeployTokenRow) => t.id,
    scopes: (t: DeployTokenRow) => parseScopes(t.scopes).map((s) => s.toUpperCase()),
    expiresAt: (t: DeployTokenRow) => t.expiresAt,
    expired: (t: DeployTokenRow, _: unknown, ctx: GqlContext) => isDeployTokenExpired(t.expiresAt, ctx.now),
  },
  Mutation: {
    deployTokenCreate: async (_: unknown, { input }: { input: Record<string, unknown> & { clientMutationId?: string } }, ctx: GqlContext) => {
      const principal = requireWrite(ctx);
      const owner = await managedOwner(ctx, input as { projectPath?: string; groupPath?: string });
      // The same use case as REST's POST .../deploy_tokens: validated, stored and audited once.
      const created = await createDeployToken(ctx.env, actorOf(principal, ctx.clientAddress), owner, {
        name: String(input.name),
        scopes: (input.scopes as string[]).map((s) => s.toLowerCase()),
        // The Time scalar parsed it to milliseconds; the REST rules take GitLab's date text.
        expiresAt: typeof input.expiresAt === "number" ? new Date(input.expiresAt).toISOString() : null,
        username: (input.username as string | null | undefined) ?? null,
      });
      const clientMutationId = input.clientMutationId ?? null;
      if (!created.ok) {
        const errors = Object.entries(created.errors).flatMap(([field, msgs]) => (msgs ?? []).map((m) => `${field} ${m}`));
        return { deployToken: null, token: null, errors, clientMutationId };
      }
      return { deployToken: created.row, token: created.token, errors: [], clientMutationId };
    },
    deployTokenRevoke: async (_: unknown, { input }: { input: { id: string; clientMutationId?: string } }, ctx: GqlContext) => {
      const principal = requireWrite(ctx);
      const token = await findDeployTokenById(ctx.db, parseGid(input.id, "DeployToken", "DeployTokenID"));
      let allowed = false;
      if (token?.projectId != null) {
        const project = await visibleProject(ctx, token.projectId);
        allowed = project !== null && (await mayManageProject(ctx, project));
      } else if (token?.groupId != null) {
        const group = await loadGroup(ctx, token.groupId);
        allowed = group !== null && (await canSeeGroup(ctx, group)) && (await mayManageGroup(ctx, group));
      }
      if (!token || !allowed) throw notAvailable();
      await revokeDeployToken(ctx.env, actorOf(principal, ctx.clientAddress), token);
      return { errors: [], clientMutationId: input.clientMutationId ?? null };
    },
  },
};
