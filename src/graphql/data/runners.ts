import { and, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { contactStatusCondition, listRunners, type ContactStatus, type RunnerRow } from "../../db/runners";
import { runners } from "../../db/schema/runners";
import { isOnline, isStale } from "../../domain/runner-status";
import type { Window } from "../connection";
import { groupsAndDescendants, groupTreeProjectIds } from "../../db/namespaces";

/**
 * Runner queries for GraphQL on the REST area's tables and repository (src/db/runners.ts).
 * Filters take plain values: the resolver has already applied the version's rules.
 */
export type GqlRunnerStatus = "ACTIVE" | "PAUSED" | "ONLINE" | "OFFLINE" | "STALE" | "NOT_CONNECTED" | "NEVER_CONTACTED";

export interface RunnerStatusRules {
  /** Below 15.0 a paused runner reports PAUSED. */
  legacyValues: boolean;
  /** From 15.0 STALE is reported (and splits OFFLINE). */
  staleReported: boolean;
  /** From 15.0 NEVER_CONTACTED replaces NOT_CONNECTED. */
  neverContacted: boolean;
}

/** The status the version reports for a runner (spec part b, States and transitions). */
export function gqlRunnerStatus(r: RunnerRow, now: number, rules: RunnerStatusRules): GqlRunnerStatus {
  if (rules.legacyValues && r.paused) return "PAUSED";
  if (rules.staleReported && isStale(r, now)) return "STALE";
  if (r.contactedAt === null) return rules.neverContacted ? "NEVER_CONTACTED" : "NOT_CONNECTED";
  return isOnline(r.contactedAt, now) ? "ONLINE" : "OFFLINE";
}

export interface RunnerFilter {
  paused?: boolean;
  status?: GqlRunnerStatus;
  type?: "INSTANCE_TYPE" | "GROUP_TYPE" | "PROJECT_TYPE";
  tagList?: string[];
  search?: string;
}

/** SQL for a status filter: contact status, or the paused flag for the legacy ACTIVE/PAUSED values. */
function statusCondition(status: GqlRunnerStatus, now: number, staleSplitsOffline: boolean): SQL {
  if (status === "ACTIVE" || status === "PAUSED") return eq(runners.paused, status === "PAUSED");
  const contact = status === "NOT_CONNECTED" ? "never_contacted" : (status.toLowerCase() as ContactStatus);
  return contactStatusCondition(contact, now, staleSplitsOffline);
}

export function runnerConditions(f: RunnerFilter, now: number, staleSplitsOffline: boolean): SQL[] {
  const where: SQL[] = [];
  if (f.paused !== undefined) where.push(eq(runners.paused, f.paused));
  if (f.status) where.push(statusCondition(f.status, now, staleSplitsOffline));
  if (f.type) where.push(eq(runners.runnerType, f.type.toLowerCase()));
  for (const tag of f.tagList ?? []) where.push(sql`(',' || ${runners.tagList} || ',') LIKE ${`%,${tag},%`}`);
  if (f.search) where.push(sql`lower(${runners.description}) LIKE ${`%${f.search.toLowerCase()}%`}`);
  return where;
}

/** Runners of a group (DIRECT: its own group runners; DESCENDANTS: also subgroups' and their projects' runners). */
export function groupRunnersCondition(groupId: number, membership: "DIRECT" | "DESCENDANTS"): SQL {
  if (membership === "DIRECT") return and(eq(runners.runnerType, "group_type"), eq(runners.groupId, groupId))!;
  const tree = groupsAndDescendants(groupId);
  return or(
    and(eq(runners.runnerType, "group_type"), inArray(runners.groupId, tree)),
    and(
      eq(runners.runnerType, "project_type"),
      inArray(
        runners.id,
        sql`(SELECT runner_id FROM runner_projects WHERE project_id IN ${groupTreeProjectIds(groupId)})`,
      ),
    ),
  )!;
}

export const SORTS = {
  CREATED_DESC: { orderBy: "created_at", sort: "desc" },
  CREATED_ASC: { orderBy: "created_at", sort: "asc" },
  CONTACTED_DESC: { orderBy: "contacted_at", sort: "desc" },
  CONTACTED_ASC: { orderBy: "contacted_at", sort: "asc" },
} as const;

export async function countAndPage(db: Db, where: SQL[], sort: keyof typeof SORTS, w: Window) {
  return listRunners(db, { where: where.length ? and(...where) : undefined, ...SORTS[sort], limit: w.limit, offset: w.offset });
}
