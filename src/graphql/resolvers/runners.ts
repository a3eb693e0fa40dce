import { actorOf } from "../../credentials/principal";
import { findRunner, runnerRequiredLevel, type RunnerRow } from "../../db/runners";
import { updateRunnerSettings } from "../../services/runners";
import type { RunnerScope } from "../../db/runner-filters";
import { fullMessages, tagsOf } from "../../domain/runner-settings";
import { reportStatus, statusRulesAt } from "../../domain/runner-status";
import type { ConnectionArgs } from "../connection";
import { isAdmin, mayOnGroup, notAvailable, requireWrite, runnerLevel, type GqlContext } from "../context";
import { projectCountLoader, runnerConditions, runnerConnection, type GqlRunnerStatus, type RunnerFilter } from "../data/runners";
import type { GroupRow } from "../../db/projects";
import { parseGid } from "../schema/global-id";

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

async function listWith(ctx: GqlContext, args: RunnerArgs, scope: RunnerScope) {
  const conditions = runnerConditions(filterFrom(ctx, args), statusRulesAt("graphql", ctx.gate.version).staleReported);
  const connection = await runnerConnection(ctx.db, args, scope, conditions, args.sort ?? "CREATED_DESC", ctx.now);
  // projectCount of the page's runners: one statement for the page, when a node first asks.
  const loader = Promise.resolve(projectCountLoader(ctx.db, connection.nodes));
  for (const r of connection.nodes) ctx.memo.set(projectCountKey(r), loader);
  return connection;
}

const projectCountKey = (r: RunnerRow) => `runner-project-count:${r.id}`;

async function projectCount(ctx: GqlContext, r: RunnerRow): Promise<number | null> {
  if (r.runnerType !== "project_type") return null;
  const loader = (await ctx.memo.get(projectCountKey(r))) as (() => Promise<Map<number, number>>) | undefined;
  return ((await (loader ?? projectCountLoader(ctx.db, [r]))()).get(r.id)) ?? 0;
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
      return listWith(ctx, args, { kind: "all" });
    },
  },
  Group: {
    runners: async (group: GroupRow, args: RunnerArgs, ctx: GqlContext) => {
      if (!(await mayOnGroup(ctx, group, "maintain_group"))) return null;
      return listWith(ctx, args, { kind: "groupTree", groupId: group.id, membership: args.membership ?? "DESCENDANTS" });
    },
  },
  CiRunner: {
    id: (r: RunnerRow) => r.id,
    status: (r: RunnerRow, _: unknown, ctx: GqlContext) => {
      const { status, deprecated } = reportStatus(r, ctx.now, "graphql", ctx.gate.version);
      for (const id of deprecated) ctx.deprecations.add(id);
      return status.toUpperCase();
    },
    active: (r: RunnerRow) => !r.paused,
    paused: (r: RunnerRow) => r.paused,
    runnerType: (r: RunnerRow) => r.runnerType.toUpperCase(),
    tagList: (r: RunnerRow) => tagsOf(r.tagList),
    accessLevel: (r: RunnerRow) => r.accessLevel.toUpperCase(),
    projectCount: (r: RunnerRow, _: unknown, ctx: GqlContext) => projectCount(ctx, r),
  },
  Mutation: {
    runnerUpdate: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: GqlContext) => {
      const principal = requireWrite(ctx);
      const runner = await findRunner(ctx.db, parseGid(input.id, "Ci::Runner", "CiRunnerID"));
      if (!runner || !(await canUpdateRunner(ctx, runner))) throw notAvailable();
      let paused: boolean | undefined;
      if (input.active != null) {
        ctx.deprecations.add(ACTIVE);
        paused = !input.active;
      }
      if (input.paused != null) paused = Boolean(input.paused);
      const result = await updateRunnerSettings(ctx.env, actorOf(principal, ctx.clientAddress), runner, {
        paused,
        description: input.description != null ? String(input.description) : undefined,
        locked: input.locked != null ? Boolean(input.locked) : undefined,
        runUntagged: input.runUntagged != null ? Boolean(input.runUntagged) : undefined,
        tags: input.tagList != null ? (input.tagList as string[]) : undefined,
        accessLevel: input.accessLevel != null ? String(input.accessLevel).toLowerCase() : undefined,
        maintenanceNote: input.maintenanceNote != null ? String(input.maintenanceNote) : undefined,
        maximumTimeout: input.maximumTimeout != null ? Number(input.maximumTimeout) : undefined,
      });
      const clientMutationId = input.clientMutationId ?? null;
      if (!result.ok) return { runner, errors: fullMessages(result.errors), clientMutationId };
      return { runner: result.runner, errors: [], clientMutationId };
    },
  },
};
