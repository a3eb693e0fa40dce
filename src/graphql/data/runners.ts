import type { Db } from "../../db/client";
import { runnerWhere, type RunnerCondition, type RunnerScope } from "../../db/runner-filters";
import { countRunners, projectCounts, runnerPage, type RunnerRow } from "../../db/runners";
import type { ContactStatus, RunnerType } from "../../domain/runner-status";
import { paginateLazyCount, type ConnectionArgs } from "../connection";

/**
 * Runner listings for GraphQL on the REST area's repository (src/db/runners.ts, runner-filters.ts).
 * Filters take plain values: the resolver has already applied the version's rules.
 */
export type GqlRunnerStatus = "ACTIVE" | "PAUSED" | "ONLINE" | "OFFLINE" | "STALE" | "NOT_CONNECTED" | "NEVER_CONTACTED";

export interface RunnerFilter {
  paused?: boolean;
  status?: GqlRunnerStatus;
  type?: "INSTANCE_TYPE" | "GROUP_TYPE" | "PROJECT_TYPE";
  tagList?: string[];
  search?: string;
}

/** The filter as the listing's conditions (the same SQL as REST's ?status=, ?tag_list=, ...). */
export function runnerConditions(f: RunnerFilter, staleSplitsOffline: boolean): RunnerCondition[] {
  const conditions: RunnerCondition[] = [];
  if (f.paused !== undefined) conditions.push({ kind: "paused", paused: f.paused });
  if (f.status === "ACTIVE" || f.status === "PAUSED") conditions.push({ kind: "paused", paused: f.status === "PAUSED" });
  else if (f.status) {
    const status = (f.status === "NOT_CONNECTED" ? "never_contacted" : f.status.toLowerCase()) as ContactStatus;
    conditions.push({ kind: "contact", status, staleSplitsOffline });
  }
  if (f.type) conditions.push({ kind: "type", types: [f.type.toLowerCase() as RunnerType] });
  for (const tag of (f.tagList ?? []).map((t) => t.trim()).filter(Boolean)) conditions.push({ kind: "tag", tag });
  if (f.search) conditions.push({ kind: "search", text: f.search });
  return conditions;
}

export const SORTS = {
  CREATED_DESC: { orderBy: "created_at", sort: "desc" },
  CREATED_ASC: { orderBy: "created_at", sort: "asc" },
  CONTACTED_DESC: { orderBy: "contacted_at", sort: "desc" },
  CONTACTED_ASC: { orderBy: "contacted_at", sort: "asc" },
} as const;

/** A runners connection: its page, and its count only if asked for. */
export async function runnerConnection(db: Db, args: ConnectionArgs, scope: RunnerScope, conditions: RunnerCondition[], sort: keyof typeof SORTS, now: number) {
  const where = await runnerWhere(db, scope, conditions, now);
  return paginateLazyCount<RunnerRow>(
    args,
    (w) => runnerPage(db, { where, ...SORTS[sort], limit: w.limit, offset: w.offset }),
    () => countRunners(db, where),
  );
}

/**
 * projectCount of every runner of a page in one statement, read the first time a node asks: the
 * loader is kept in the request's memo under each runner's id.
 */
export function projectCountLoader(db: Db, rows: readonly RunnerRow[]): () => Promise<Map<number, number>> {
  let loaded: Promise<Map<number, number>> | undefined;
  const ids = rows.filter((r) => r.runnerType === "project_type").map((r) => r.id);
  return () => (loaded ??= projectCounts(db, ids));
}
