import type { ProjectRow } from "../../db/projects";
import { paginate, type ConnectionArgs } from "../connection";
import { canSeeProjectCode, loadProject, type GqlContext } from "../context";
import { findPipeline, listFindings, listProjectPipelines, type FindingRow } from "../../db/pipelines";
import type { PipelineRow } from "../../db/package-lists";
import { toGid } from "../schema/global-id";

/** Pipeline and PipelineSecurityReportFinding (schedule: projectFingerprint deprecated, uuid instead). */
export const pipelineResolvers = {
  Project: {
    pipeline: async (project: ProjectRow, args: { iid?: string | null; sha?: string | null }, ctx: GqlContext) => {
      if (!(await canSeeProjectCode(ctx, project))) return null;
      if (args.iid != null) {
        const iid = Number(args.iid);
        return Number.isSafeInteger(iid) ? findPipeline(ctx.db, project.id, { iid }) : null;
      }
      if (args.sha != null) return findPipeline(ctx.db, project.id, { sha: args.sha });
      return null;
    },
    pipelines: async (project: ProjectRow, args: ConnectionArgs, ctx: GqlContext) =>
      (await canSeeProjectCode(ctx, project)) ? paginate(args, (w) => listProjectPipelines(ctx.db, project.id, w)) : null,
  },
  Pipeline: {
    id: (p: PipelineRow) => toGid("Ci::Pipeline", p.id),
    iid: (p: PipelineRow) => String(p.iid),
    status: (p: PipelineRow) => p.status.toUpperCase(),
    project: (p: PipelineRow, _: unknown, ctx: GqlContext) => loadProject(ctx, p.projectId),
    // Reaching a pipeline already required code access to its project.
    securityReportFindings: (p: PipelineRow, args: ConnectionArgs & { reportType?: string[] | null; severity?: string[] | null }, ctx: GqlContext) =>
      paginate(args, (w) => listFindings(ctx.db, p.id, { reportTypes: args.reportType ?? undefined, severities: args.severity ?? undefined }, w)),
  },
  PipelineSecurityReportFinding: {
    projectFingerprint: (f: FindingRow, _: unknown, ctx: GqlContext) => {
      ctx.deprecations.add("graphql-security-report-finding-project-fingerprint");
      return f.projectFingerprint;
    },
    severity: (f: FindingRow) => f.severity.toUpperCase(),
    reportType: (f: FindingRow) => f.reportType.toUpperCase(),
    state: (f: FindingRow) => f.state.toUpperCase(),
    project: (f: FindingRow, _: unknown, ctx: GqlContext) => loadProject(ctx, f.projectId),
  },
};
