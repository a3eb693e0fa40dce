import { findRunner, runnerRequiredLevel, runnerProjectIds, updateRunner, normaliseTags, type RunnerRow } from "../../db/runners";
import { AccessLevel } from "../../domain/access";
import { paginate, type ConnectionArgs } from "../connection";
import { groupLevel, isAdmin, notAvailable, requireWrite, runnerLevel, type GqlContext } from "../context";
import { countAndPage, gqlRunnerStatus, groupRunnersCondition, runnerConditions, type GqlRunnerStatus, type RunnerFilter } from "../data/runners";
import type { GroupRow } from "../../db/projects";
import { parseGid } from "../schema/global-id";
import { isStale } from "../../domain/runner-status";

/** CiRunner, Query.runners, Group.runners, runnerUpdate (schedule: runner rows, "active becomes paused"). */
const ACTIVE = "graphql-runner-active";

interface RunnerArgs extends ConnectionArgs {
  paused?: boolean | null;
  active?: boolean | null;
  status?: GqlRunnerStatus | null;
  type?: RunnerFilter["type"] | null;
  tagList?: string[] | null;
  search?: string | null;
  sort?: "CREATED_DESC" | "CREATED_ASC" | "CONTACTED_DESC" | "CONTACTED_ASC" | null;
  membership?: "DIRECT" | "DESCENDANTS" | null;
}

function filterFrom(ctx: GqlContext, args: RunnerArgs): RunnerFilter {
  let paused: boolean | undefined;
  // The schema holds only the arguments the version serves; paused wins over the deprecated active.
  if (args.active != null) {
    ctx.deprecations.add(ACTIVE);
    paused = !args.active;
  }
  if (args.paused != null) paused = args.paused;
  if (args.status === "ACTIVE" || args.status === "PAUSED") ctx.deprecations.add("graphql-runner-status-filter-active-paused");
  if (args.status === "NOT_CONNECTED") ctx.deprecations.add("graphql-runner-status-never-contacted");
  // Enum values the version removed never reach here: the query failed validation.
  return {
    paused,
    status: args.status ?? undefined,
    type: args.type ?? undefined,
    tagList: args.tagList ?? undefined,
    search: args.search ?? undefined,
  };
}

async function listWith(ctx: GqlContext, args: RunnerArgs, scope?: ReturnType<typeof groupRunnersCondition>) {
  const where = runnerConditions(filterFrom(ctx, args), ctx.now, !ctx.gate.has("graphql-runner-status-stale"));
  if (scope) where.push(scope);
  return paginate(args, (w) => countAndPage(ctx.db, where, args.sort ?? "CREATED_DESC", w));
}

/**
 * Who may see a runner: administrators; maintainers of its group or of one of its projects (GitLab);
 * updating a group runner takes its owner. One rule with REST: runnerAccessLevel and runnerRequiredLevel.
 */
async function mayAccessRunner(ctx: GqlContext, r: RunnerRow, access: "read" | "manage"): Promise<boolean> {
  if (isAdmin(ctx)) return true;
  if (!ctx.principal) return false;
  return (await runnerLevel(ctx, r)) >= runnerRequiredLevel(r, access);
}

const canReadRunner = (ctx: GqlContext, r: RunnerRow) => mayAccessRunner(ctx, r, "read");
const canUpdateRunner = (ctx: GqlContext, r: RunnerRow) => mayAccessRunner(ctx, r, "manage");

async function runnerById(ctx: GqlContext, gid: unknown): Promise<RunnerRow | null> {
  const runner = await findRunner(ctx.db, parseGid(gid, "Ci::Runner", "CiRunnerID"));
  return runner && (await canReadRunner(ctx, runner)) ? runner : null;
}

export const runnerResolvers = {
  Query: {
    runner: (_: unknown, args: { id: string }, ctx: GqlContext) => runnerById(ctx, args.id),
    // Instance-wide runners are an administrator's view (GitLab's Ci::RunnersFinder).
    runners: (_: unknown, args: RunnerArgs, ctx: GqlContext) => {
      if (!isAdmin(ctx)) throw notAvailable();
      return listWith(ctx, args);
    },
  },
  Group: {
    runners: async (group: GroupRow, args: RunnerArgs, ctx: GqlContext) => {
      if (!isAdmin(ctx) && (await groupLevel(ctx, group.id)) < AccessLevel.MAINTAINER) return null;
      return listWith(ctx, args, groupRunnersCondition(group.id, args.membership ?? "DESCENDANTS"));
    },
  },
  CiRunner: {
    id: (r: RunnerRow) => r.id,
    status: (r: RunnerRow, _: unknown, ctx: GqlContext) => {
      const g = ctx.gate;
      const status = gqlRunnerStatus(r, ctx.now, {
        legacyValues: g.has("graphql-runner-status-legacy-values"),
        staleReported: !g.has("graphql-runner-status-stale"),
        neverContacted: !g.has("graphql-runner-status-never-contacted"),
      });
      if (status === "PAUSED") ctx.deprecations.add("graphql-runner-status-legacy-values");
      if (status === "NOT_CONNECTED") ctx.deprecations.add("graphql-runner-status-never-contacted");
      // Below 15.0 a runner silent for three months is still OFFLINE or NOT_CONNECTED, not STALE.
      if ((status === "OFFLINE" || status === "NOT_CONNECTED") && isStale(r, ctx.now)) ctx.deprecations.add("graphql-runner-status-stale");
      return status;
    },
    active: (r: RunnerRow) => !r.paused,
    paused: (r: RunnerRow) => r.paused,
    runnerType: (r: RunnerRow) => r.runnerType.toUpperCase(),
    tagList: (r: RunnerRow) => (r.tagList ? r.tagList.split(",") : []),
    accessLevel: (r: RunnerRow) => r.accessLevel.toUpperCase(),
    projectCount: async (r: RunnerRow, _: unknown, ctx: GqlContext) => (r.runnerType === "project_type" ? (await runnerProjectIds(ctx.db, r.id)).length : null),
  },
  Mutation: {
    runnerUpdate: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: GqlContext) => {
      requireWrite(ctx);
      const runner = await findRunner(ctx.db, parseGid(input.id, "Ci::Runner", "CiRunnerID"));
      if (!runner || !(await canUpdateRunner(ctx, runner))) throw notAvailable();
      const patch: Partial<RunnerRow> = {};
      if (input.description != null) patch.description = String(input.description);
      if (input.active != null) {
        ctx.deprecations.add(ACTIVE);
        patch.paused = !input.active;
      }
      if (input.paused != null) patch.paused = Boolean(input.paused);
      if (input.locked != null) patch.locked = Boolean(input.locked);
      if (input.runUntagged != null) patch.runUntagged = Boolean(input.runUntagged);
      if (input.tagList != null) patch.tagList = normaliseTags(input.tagList as string[]);
      if (input.accessLevel != null) patch.accessLevel = String(input.accessLevel).toLowerCase();
      if (input.maintenanceNote != null) patch.maintenanceNote = String(input.maintenanceNote);
      if (input.maximumTimeout != null) {
        const t = Number(input.maximumTimeout);
        // GitLab: at least 600 seconds.
        if (t < 600) return { runner, errors: ["Maximum timeout needs to be at least 10 minutes"], clientMutationId: input.clientMutationId ?? null };
        patch.maximumTimeout = t;
      }
      if ((patch.tagList === "" || (patch.tagList === undefined && runner.tagList === "")) && patch.runUntagged === false) {
        return { runner, errors: ["Tags list can not be empty when runner is not allowed to pick untagged jobs"], clientMutationId: input.clientMutationId ?? null };
      }
      const updated = Object.keys(patch).length ? await updateRunner(ctx.db, runner.id, patch) : runner;
      return { runner: updated, errors: [], clientMutationId: input.clientMutationId ?? null };
    },
  },
};
