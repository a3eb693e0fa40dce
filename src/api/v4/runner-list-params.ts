import type { Context } from "hono";
import { z } from "zod";
import type { RunnerCondition } from "../../db/runner-filters";
import { parseStatusFilter, replacementAvailable, RUNNER_TYPES, statusRulesAt, type RunnerType } from "../../domain/runner-status";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { optionalBool, parseParams, queryParams } from "./validate";
import { invalidParam } from "./errors";
import { arrayParam, intParam } from "./params";

/**
 * GitLab's ?scope= of runner listings (Ci::Runner::AVAILABLE_STATUSES and AVAILABLE_SCOPES, which
 * python-gitlab's `runner list --scope` sends): GET /runners accepts the statuses; /runners/all and
 * /projects/:id/runners the legacy types and the types too. Another value is Grape's 400.
 */
export const RUNNER_STATUS_SCOPES = ["active", "paused", "online", "offline", "never_contacted", "stale"] as const;
export const RUNNER_ALL_SCOPES = ["specific", "shared", ...RUNNER_TYPES, ...RUNNER_STATUS_SCOPES] as const;

function scopeCondition(scope: string, staleSplitsOffline: boolean): RunnerCondition {
  switch (scope) {
    case "active":
    case "paused":
      return { kind: "paused", paused: scope === "paused" };
    case "online":
    case "offline":
    case "never_contacted":
    case "stale":
      return { kind: "contact", status: scope, staleSplitsOffline };
    case "specific":
      // GitLab's deprecated_specific: project and group runners.
      return { kind: "type", types: ["project_type", "group_type"] };
    case "shared":
      return { kind: "type", types: ["instance_type"] };
    default:
      return { kind: "type", types: [scope as RunnerType] };
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

/** Parses the list parameters (scope, type, status, paused, tag_list, search) into the listing's conditions. */
export function runnerFilters(
  c: Context<AppEnv>,
  opts: { typeAllowed?: readonly string[]; scopes?: readonly string[] } = {},
): { query: RunnerListQuery; conditions: RunnerCondition[] } {
  const g = gate(c);
  const query = parseParams(ListQuery, queryParams(c));
  const conditions: RunnerCondition[] = [];
  const staleSplitsOffline = statusRulesAt("rest", g.version).staleReported;
  // Listings without a scope parameter in GitLab (group runners) ignore it, as Grape does.
  if (query.scope !== undefined && opts.scopes) {
    if (!opts.scopes.includes(query.scope)) throw invalidParam("scope", "does not have a valid value");
    conditions.push(scopeCondition(query.scope, staleSplitsOffline));
  }
  if (query.type !== undefined) {
    const allowed = opts.typeAllowed ?? RUNNER_TYPES;
    if (!allowed.includes(query.type)) throw invalidParam("type", "does not have a valid value");
    conditions.push({ kind: "type", types: [query.type as RunnerType] });
  }
  if (query.status !== undefined) {
    const f = parseStatusFilter(query.status, g.version);
    if (f.deprecatedId) g.markDeprecated(f.deprecatedId);
    conditions.push(f.kind === "paused" ? { kind: "paused", paused: f.paused } : { kind: "contact", status: f.value, staleSplitsOffline });
  }
  // paused=true|false exists from 14.8 (when active was deprecated); earlier it is ignored, as Grape ignores unknown parameters.
  if (query.paused !== undefined && replacementAvailable("runner-active-field", g.version)) {
    conditions.push({ kind: "paused", paused: optionalBool("paused", query.paused)! });
  }
  for (const tag of (query.tag_list ?? []).map((t) => t.trim()).filter(Boolean)) conditions.push({ kind: "tag", tag });
  if (query.search) conditions.push({ kind: "search", text: query.search });
  return { query, conditions };
}
