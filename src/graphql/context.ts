import { GraphQLError } from "graphql";
import { runnerAccessLevel, type RunnerRow } from "../db/runners";
import type { Principal } from "../credentials/principal";
import type { Db } from "../db/client";
import { findGroup, findProject, groupAccessLevel, projectAccessLevel, type GroupRow, type ProjectRow } from "../db/projects";
import { canReadCode, canReadProject, type Visibility } from "../domain/access";
import { hasAnyScope } from "../domain/scopes";
import type { Bindings } from "../env";
import type { SchemaGate } from "./schema/features";

/** What every resolver sees: the caller (null when anonymous), storage, the version's gate. */
export interface GqlContext {
  env: Bindings;
  db: Db;
  principal: Principal | null;
  gate: SchemaGate;
  /** Origin of the request, for webUrl fields. */
  origin: string;
  /** The caller's address (src/http/client-address.ts), for the audit rows of mutations. */
  clientAddress: string | null;
  /** Catalogue ids of deprecated things this request used (answered with Deprecation headers). */
  deprecations: Set<string>;
  now: number;
  /** Per-request memo of access levels, so nested fields cost no extra queries. */
  memo: Map<string, Promise<unknown>>;
}

/** GitLab's message for anything missing or not permitted (existence is not revealed). */
export const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

export function notAvailable(): GraphQLError {
  return new GraphQLError(NOT_AVAILABLE, { extensions: { code: "RESOURCE_NOT_AVAILABLE" } });
}

/** Mutations need the api scope (read_api tokens may only query). */
export function requireWrite(ctx: GqlContext): Principal {
  if (!ctx.principal) throw notAvailable();
  if (!hasAnyScope(ctx.principal.scopes, ["api"])) {
    throw new GraphQLError("Insufficient scope: mutations need a token with the api scope", {
      extensions: { code: "INSUFFICIENT_SCOPE", scope: "api" },
    });
  }
  return ctx.principal;
}

export const isAdmin = (ctx: GqlContext) => ctx.principal?.user.isAdmin === true;

function memo<T>(ctx: GqlContext, key: string, load: () => Promise<T>): Promise<T> {
  let hit = ctx.memo.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = load();
    ctx.memo.set(key, hit);
  }
  return hit;
}

export function projectLevel(ctx: GqlContext, project: ProjectRow): Promise<number> {
  const p = ctx.principal;
  if (!p) return Promise.resolve(0);
  return memo(ctx, `project-level:${project.id}`, () => projectAccessLevel(ctx.db, project, p.user.id));
}

export function groupLevel(ctx: GqlContext, groupId: number): Promise<number> {
  const p = ctx.principal;
  if (!p) return Promise.resolve(0);
  return memo(ctx, `group-level:${groupId}`, () => groupAccessLevel(ctx.db, groupId, p.user.id));
}

export function runnerLevel(ctx: GqlContext, runner: RunnerRow): Promise<number> {
  const p = ctx.principal;
  if (!p) return Promise.resolve(0);
  return memo(ctx, `runner-level:${runner.id}`, () => runnerAccessLevel(ctx.db, runner, p.user.id));
}

export async function canSeeProject(ctx: GqlContext, project: ProjectRow): Promise<boolean> {
  return canReadProject(project.visibility as Visibility, await projectLevel(ctx, project), ctx.principal !== null, isAdmin(ctx));
}

/** Packages, pipelines, findings and merge requests need reporter on private projects (GitLab). */
export async function canSeeProjectCode(ctx: GqlContext, project: ProjectRow): Promise<boolean> {
  return canReadCode(project.visibility as Visibility, await projectLevel(ctx, project), ctx.principal !== null, isAdmin(ctx));
}

export async function canSeeGroup(ctx: GqlContext, group: GroupRow): Promise<boolean> {
  return canReadProject(group.visibility as Visibility, await groupLevel(ctx, group.id), ctx.principal !== null, isAdmin(ctx));
}

export function loadProject(ctx: GqlContext, idOrPath: string | number): Promise<ProjectRow | null> {
  return memo(ctx, `project:${idOrPath}`, () => findProject(ctx.db, String(idOrPath)));
}

export function loadGroup(ctx: GqlContext, idOrPath: string | number): Promise<GroupRow | null> {
  return memo(ctx, `group:${idOrPath}`, () => findGroup(ctx.db, String(idOrPath)));
}

/** A project the caller may see, or null (GitLab answers null for invisible projects). */
export async function visibleProject(ctx: GqlContext, idOrPath: string | number, code = false): Promise<ProjectRow | null> {
  const project = await loadProject(ctx, idOrPath);
  if (!project) return null;
  return (await (code ? canSeeProjectCode(ctx, project) : canSeeProject(ctx, project))) ? project : null;
}
