import type { Context } from "hono";
import { z } from "zod";
import type { RunnerRow } from "../../db/runners";
import { reportStatus, isOnline, replacementAvailable } from "../../domain/runner-status";
import { parseTagInput, tagsOf } from "../../domain/runner-settings";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { iso } from "./load";
import { optionalBool } from "./validate";
import { ApiError } from "./errors";
import { intParam } from "./params";

/** Rendering and settings input of runners by service version (spec part b, runner rows). List parameters: runner-list-params.ts. */


export function renderRunner(c: Context<AppEnv>, r: RunnerRow, now = Date.now()) {
  const g = gate(c);
  const { status, deprecated } = reportStatus(r, now, "rest", g.version);
  for (const id of deprecated) g.markDeprecated(id);
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
    tag_list: tagsOf(r.tagList),
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

/** tag_list as a comma-separated string or an array. */
export const tagListSchema = z
  .union([z.string(), z.array(z.string())])
  .transform(parseTagInput);

export const RunnerSettings = z.object({
  description: z.string().max(1024).optional(),
  active: z.string().or(z.boolean()).optional(),
  paused: z.string().or(z.boolean()).optional(),
  tag_list: tagListSchema.optional(),
  run_untagged: z.string().or(z.boolean()).optional(),
  locked: z.string().or(z.boolean()).optional(),
  access_level: z.enum(["not_protected", "ref_protected"]).optional(),
  maximum_timeout: intParam(0).optional(),
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
