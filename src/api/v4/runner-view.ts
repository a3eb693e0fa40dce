import type { Context } from "hono";
import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { groupsAndDescendants } from "../../db/namespaces";
import { contactStatusCondition, type RunnerRow } from "../../db/runners";
import { runners } from "../../db/schema/runners";
import {
  isOnline,
  isStale,
  parseStatusFilter,
  replacementAvailable,
  RUNNER_TYPES,
  runnerStatus,
  type StatusFilter,
} from "../../domain/runner-status";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { iso } from "./load";
import { optionalBool, parseParams, queryParams } from "./validate";
import { ApiError, invalidParam } from "./errors";
import { arrayParam, intParam } from "./params";

/** Rendering and list filters of runners by service version (spec part b, runner rows). */

export function renderRunner(c: Context<AppEnv>, r: RunnerRow, now = Date.now()) {
  const g = gate(c);
  const status = runnerStatus(r, now, g.version);
  if (status === "paused") g.markDeprecated("runner-status-legacy-values");
  if (status === "not_connected") g.markDeprecated("runner-status-never-contacted");
  // Below 15.0 a runner silent for three months is still reported offline/not_connected, not stale.
  if ((status === "offline" || status === "not_connected") && isStale(r, now)) g.markDeprecated("runner-status-stale");
  const view: Record<string, unknown> = {
    id: r.id,
    description: r.description,
    ip_address: r.ipAddress,
    is_shared: r.runnerType === "instance_type",
    runner_type: r.runnerType,
    name: "gitlab-runner",
    online: isOnline(r.contactedAt, now),
    status,
  };
  // active until 16.0 (deprecated from 14.8), the boolean paused from 14.8.
  if (!g.isRemoved("runner-active-field")) {
    view.active = !r.paused;
    g.markDeprecated("runner-active-field");
  }
  if (replacementAvailable("runner-active-field", g.version)) view.paused = r.paused;
  return view;
}

export function renderRunnerDetails(
  c: Context<AppEnv>,
  r: RunnerRow,
  projects: { id: number; name: string; path: string; pathWithNamespace: string }[],
) {
  return {
    ...renderRunner(c, r),
    tag_list: r.tagList ? r.tagList.split(",") : [],
    run_untagged: r.runUntagged,
    locked: r.locked,
    maximum_timeout: r.maximumTimeout,
    access_level: r.accessLevel,
    version: r.version,
    revision: null,
    platform: null,
    architecture: null,
    contacted_at: iso(r.contactedAt),
    created_at: iso(r.createdAt),
    maintenance_note: r.maintenanceNote,
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      path: p.path,
      path_with_namespace: p.pathWithNamespace,
      name_with_namespace: p.pathWithNamespace.split("/").join(" / "),
    })),
  };
}

/**
 * GitLab's ?scope= of runner listings (Ci::Runner::AVAILABLE_STATUSES and AVAILABLE_SCOPES, which
 * python-gitlab's `runner list --scope` sends): GET /runners accepts the statuses; /runners/all and
 * /projects/:id/runners the legacy types and the types too. Another value is Grape's 400.
 */
export const RUNNER_STATUS_SCOPES = ["active", "paused", "online", "offline", "never_contacted", "stale"] as const;
export const RUNNER_ALL_SCOPES = ["specific", "shared", ...RUNNER_TYPES, ...RUNNER_STATUS_SCOPES] as const;

function scopeCondition(scope: string, now: number, staleSplitsOffline: boolean): SQL {
  switch (scope) {
    case "active":
    case "paused":
      return eq(runners.paused, scope === "paused");
    case "online":
    case "offline":
    case "never_contacted":
    case "stale":
      return contactStatusCondition(scope, now, staleSplitsOffline);
    case "specific":
      // GitLab's deprecated_specific: project and group runners.
      return inArray(runners.runnerType, ["project_type", "group_type"]);
    case "shared":
      return eq(runners.runnerType, "instance_type");
    default:
      return eq(runners.runnerType, scope);
  }
}

const ListQuery = z.object({
  scope: z.string().optional(),
  type: z.string().optional(),
  status: z.string().optional(),
  paused: z.unknown().optional(),
  tag_list: arrayParam(z.string()).optional(),
  search: z.string().optional(),
  order_by: z.enum(["id", "created_at", "contacted_at"]).default("id"),
  sort: z.enum(["asc", "desc"]).default("desc"),
  pagination: z.enum(["offset", "keyset"]).default("offset"),
  id_after: intParam(0).default(0),
});
export type RunnerListQuery = z.infer<typeof ListQuery>;

/** Parses the list parameters (scope, type, status, paused, tag_list, search) into one SQL condition. */
export function runnerFilters(
  c: Context<AppEnv>,
  opts: { typeAllowed?: readonly string[]; scopes?: readonly string[] } = {},
): { query: RunnerListQuery; where: SQL[] } {
  const g = gate(c);
  const query = parseParams(ListQuery, queryParams(c));
  const where: SQL[] = [];
  // Listings without a scope parameter in GitLab (group runners) ignore it, as Grape does.
  if (query.scope !== undefined && opts.scopes) {
    if (!opts.scopes.includes(query.scope)) throw invalidParam("scope", "does not have a valid value");
    where.push(scopeCondition(query.scope, Date.now(), g.isRemoved("runner-status-stale")));
  }
  if (query.type !== undefined) {
    const allowed = opts.typeAllowed ?? RUNNER_TYPES;
    if (!allowed.includes(query.type)) throw invalidParam("type", "does not have a valid value");
    where.push(eq(runners.runnerType, query.type));
  }
  if (query.status !== undefined) {
    const f: StatusFilter = parseStatusFilter(query.status, g.version);
    if (f.kind === "paused") {
      g.markDeprecated(f.deprecatedId);
      where.push(eq(runners.paused, f.paused));
    } else {
      if (f.deprecatedId) g.markDeprecated(f.deprecatedId);
      where.push(contactStatusCondition(f.value, Date.now(), g.isRemoved("runner-status-stale")));
    }
  }
  // paused=true|false exists from 14.8 (when active was deprecated); earlier it is ignored, as Grape ignores unknown parameters.
  if (query.paused !== undefined && replacementAvailable("runner-active-field", g.version)) {
    where.push(eq(runners.paused, optionalBool("paused", query.paused)!));
  }
  if (query.tag_list) {
    for (const tag of query.tag_list.map((t) => t.trim()).filter(Boolean)) {
      where.push(sql`(',' || ${runners.tagList} || ',') LIKE ${`%,${tag},%`}`);
    }
  }
  if (query.search) where.push(sql`lower(${runners.description}) LIKE ${`%${query.search.toLowerCase()}%`}`);
  return { query, where };
}

/** Runners a user manages: project runners of projects they maintain, group runners of groups they own. */
export function runnersManagedBy(userId: number): SQL {
  const groupsAtLeast = (level: number) =>
    groupsAndDescendants(sql`SELECT source_id FROM members WHERE source_type = 'group' AND user_id = ${userId} AND access_level >= ${level}`);
  const ownerGroups = groupsAtLeast(50);
  const maintainerProjects = sql`(
    SELECT source_id FROM members WHERE source_type = 'project' AND user_id = ${userId} AND access_level >= 40
    UNION SELECT id FROM projects WHERE namespace_kind = 'user' AND namespace_id = ${userId}
    UNION SELECT id FROM projects WHERE namespace_kind = 'group' AND namespace_id IN ${groupsAtLeast(40)})`;
  return or(
    inArray(runners.id, sql`(SELECT runner_id FROM runner_projects WHERE project_id IN ${maintainerProjects})`),
    and(eq(runners.runnerType, "group_type"), inArray(runners.groupId, ownerGroups)),
  )!;
}

/** tag_list as a comma-separated string or an array. */
export const tagListSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((t) => t.trim()).filter(Boolean));

export const RunnerSettings = z.object({
  description: z.string().max(1024).optional(),
  active: z.string().or(z.boolean()).optional(),
  paused: z.string().or(z.boolean()).optional(),
  tag_list: tagListSchema.optional(),
  run_untagged: z.string().or(z.boolean()).optional(),
  locked: z.string().or(z.boolean()).optional(),
  access_level: z.enum(["not_protected", "ref_protected"]).optional(),
  maximum_timeout: intParam(600).optional(),
  maintenance_note: z.string().max(1024).optional(),
});
export type RunnerSettingsInput = z.infer<typeof RunnerSettings>;

/**
 * The paused state a request asks for: paused (from 14.8) wins; active is accepted until 16.0
 * (deprecated from 14.8) and from 16.0 refused with a 400 naming paused.
 */
export function requestedPaused(c: Context<AppEnv>, input: { active?: unknown; paused?: unknown }, entryId: string): boolean | undefined {
  const g = gate(c);
  let paused: boolean | undefined;
  if (input.active !== undefined) {
    if (g.isRemoved(entryId)) throw new ApiError(400, { error: "active is not supported; use paused" });
    const active = optionalBool("active", input.active)!;
    g.markDeprecated(entryId);
    paused = !active;
  }
  if (input.paused !== undefined && replacementAvailable(entryId, g.version)) {
    paused = optionalBool("paused", input.paused);
  }
  return paused;
}
