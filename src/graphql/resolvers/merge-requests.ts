import type { ProjectRow } from "../../db/projects";
import { paginate, type ConnectionArgs } from "../connection";
import { canSeeProject, canSeeProjectCode, loadProject, notAvailable, requireWrite, visibleProject, type GqlContext } from "../context";
import { findMergeRequest, listMergeRequests, type MergeRequestRow } from "../../db/merge-requests";
import { createIssue, findIssue, findIssueByIid, listIssues, type IssueRow } from "../../db/issues";
import { parseGid, toGid } from "../schema/global-id";
import { loadUser } from "./projects";

/** MergeRequest (schedule: defaultMergeCommitMessageWithDescription removed in 15.0) and Issue. */
async function mergeCommitMessage(mr: MergeRequestRow, ctx: GqlContext, withDescription: boolean): Promise<string> {
  const project = await loadProject(ctx, mr.projectId);
  const parts = [`Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'`, mr.title];
  if (withDescription && mr.description.trim()) parts.push(mr.description.trim());
  parts.push(`See merge request ${project?.pathWithNamespace ?? ""}!${mr.iid}`);
  return parts.join("\n\n");
}

const parseIid = (iid: string | null | undefined) => {
  const n = Number(iid);
  return iid != null && /^\d+$/.test(iid) && Number.isSafeInteger(n) ? n : null;
};

export const mergeRequestResolvers = {
  Query: {
    // The schedule's ID-type example: declared IssueID!, so below 15.0 only does an ID variable pass.
    issue: async (_: unknown, { id }: { id: string }, ctx: GqlContext) => {
      const issue = await findIssue(ctx.db, parseGid(id, "Issue", "IssueID"));
      if (!issue) return null;
      return (await visibleProject(ctx, issue.projectId)) ? issue : null;
    },
  },
  Project: {
    mergeRequest: async (project: ProjectRow, { iid }: { iid: string }, ctx: GqlContext) => {
      const n = parseIid(iid);
      if (n === null || !(await canSeeProjectCode(ctx, project))) return null;
      return findMergeRequest(ctx.db, project.id, n);
    },
    mergeRequests: async (project: ProjectRow, args: ConnectionArgs & { state?: string | null }, ctx: GqlContext) =>
      (await canSeeProjectCode(ctx, project))
        ? paginate(args, (w) =>
            listMergeRequests(ctx.db, project.id, {
              filter: { state: args.state ?? undefined },
              orderBy: "created_at",
              sort: "desc",
              limit: w.limit,
              offset: w.offset,
            }),
          )
        : null,
    issue: async (project: ProjectRow, { iid }: { iid?: string | null }, ctx: GqlContext) => {
      const n = parseIid(iid);
      if (n === null || !(await canSeeProject(ctx, project))) return null;
      return findIssueByIid(ctx.db, project.id, n);
    },
    issues: async (project: ProjectRow, args: ConnectionArgs & { state?: string | null }, ctx: GqlContext) =>
      (await canSeeProject(ctx, project)) ? paginate(args, (w) => listIssues(ctx.db, project.id, args.state ?? undefined, w)) : null,
  },
  MergeRequest: {
    id: (mr: MergeRequestRow) => toGid("MergeRequest", mr.id),
    iid: (mr: MergeRequestRow) => String(mr.iid),
    author: (mr: MergeRequestRow, _: unknown, ctx: GqlContext) => loadUser(ctx, mr.authorId),
    mergeUser: (mr: MergeRequestRow, _: unknown, ctx: GqlContext) => loadUser(ctx, mr.mergeUserId),
    project: (mr: MergeRequestRow, _: unknown, ctx: GqlContext) => loadProject(ctx, mr.projectId),
    webUrl: async (mr: MergeRequestRow, _: unknown, ctx: GqlContext) =>
      `${ctx.origin}/${(await loadProject(ctx, mr.projectId))?.pathWithNamespace}/-/merge_requests/${mr.iid}`,
    defaultMergeCommitMessage: (mr: MergeRequestRow, _: unknown, ctx: GqlContext) => mergeCommitMessage(mr, ctx, false),
    defaultMergeCommitMessageWithDescription: (mr: MergeRequestRow, _: unknown, ctx: GqlContext) => {
      ctx.deprecations.add("graphql-merge-request-default-merge-commit-message-with-description");
      return mergeCommitMessage(mr, ctx, true);
    },
  },
  Issue: {
    id: (i: IssueRow) => toGid("Issue", i.id),
    iid: (i: IssueRow) => String(i.iid),
    author: (i: IssueRow, _: unknown, ctx: GqlContext) => loadUser(ctx, i.authorId),
    webUrl: async (i: IssueRow, _: unknown, ctx: GqlContext) => `${ctx.origin}/${(await loadProject(ctx, i.projectId))?.pathWithNamespace}/-/issues/${i.iid}`,
  },
  Mutation: {
    createIssue: async (_: unknown, { input }: { input: { projectPath: string; title: string; description?: string | null; clientMutationId?: string | null } }, ctx: GqlContext) => {
      const principal = requireWrite(ctx);
      const project = await visibleProject(ctx, input.projectPath);
      if (!project) throw notAvailable();
      const clientMutationId = input.clientMutationId ?? null;
      const title = input.title.trim();
      if (!title) return { issue: null, errors: ["Title can't be blank"], clientMutationId };
      if (title.length > 255) return { issue: null, errors: ["Title is too long (maximum is 255 characters)"], clientMutationId };
      const issue = await createIssue(ctx.db, { projectId: project.id, title, description: input.description ?? "", authorId: principal.user.id });
      return { issue, errors: [], clientMutationId };
    },
  },
};
