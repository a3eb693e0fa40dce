import { GraphQLError } from "graphql";
import { runnerAccessLevel, type RunnerRow } from "../db/runners";
import type { Principal } from "../credentials/principal";
import type { Db } from "../db/client";
import { findGroup, findProject, type GroupRow, type ProjectRow } from "../db/projects";
import type { GroupAbility, ProjectAbility } from "../domain/abilities";
import { groupAccess, projectAccess, projectAccessAtLevel, type Asker, type GroupAccess, type ProjectAccess } from "../services/abilities";
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
  /** Per-request memo of abilities and rows, so nested fields cost no extra queries. */
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

/** The GraphQL caller as the abilities resolver asks it (the door has judged the token's scopes: read_api queries, api mutations). */
const askerOf = (ctx: GqlContext): Exclude<Asker, { kind: "deploy_token" }> => (ctx.principal ? { kind: "user", user: ctx.principal.user, scopes: null } : { kind: "anonymous" });

/** The caller's abilities on a project (src/services/abilities.ts), once per request. */
export function projectAccessOf(ctx: GqlContext, project: ProjectRow): Promise<ProjectAccess> {
  return memo(ctx, `project-access:${project.id}`, () => projectAccess(ctx.env, askerOf(ctx), project));
}

/** Primes the request's memo with a project and the caller's level on it, read for many projects at once. */
export function primeProjectAccess(ctx: GqlContext, project: ProjectRow, level: number): void {
  ctx.memo.set(`project:${project.id}`, Promise.resolve(project));
  ctx.memo.set(`project-access:${project.id}`, Promise.resolve(projectAccessAtLevel(askerOf(ctx), project, level)));
}

export function groupAccessOf(ctx: GqlContext, group: GroupRow): Promise<GroupAccess> {
  return memo(ctx, `group-access:${group.id}`, () => groupAccess(ctx.env, askerOf(ctx), group));
}

export const mayOnProject = async (ctx: GqlContext, project: ProjectRow, ability: ProjectAbility) => (await projectAccessOf(ctx, project)).can(ability);
export const mayOnGroup = async (ctx: GqlContext, group: GroupRow, ability: GroupAbility) => (await groupAccessOf(ctx, group)).can(ability);

export function runnerLevel(ctx: GqlContext, runner: RunnerRow): Promise<number> {
  const p = ctx.principal;
  if (!p) return Promise.resolve(0);
  return memo(ctx, `runner-level:${runner.id}`, () => runnerAccessLevel(ctx.db, runner, p.user.id));
}

export const canSeeProject = (ctx: GqlContext, project: ProjectRow) => mayOnProject(ctx, project, "read_project");

/** Pipelines, findings and merge requests: read_code (reporter on private projects, GitLab). */
export const canSeeProjectCode = (ctx: GqlContext, project: ProjectRow) => mayOnProject(ctx, project, "read_code");

export const canSeeGroup = (ctx: GqlContext, group: GroupRow) => mayOnGroup(ctx, group, "read_group");

export function loadProject(ctx: GqlContext, idOrPath: string | number): Promise<ProjectRow | null> {
  return memo(ctx, `project:${idOrPath}`, () => findProject(ctx.db, String(idOrPath)));
}

export function loadGroup(ctx: GqlContext, idOrPath: string | number): Promise<GroupRow | null> {
  return memo(ctx, `group:${idOrPath}`, () => findGroup(ctx.db, String(idOrPath)));
}

/** A project the caller has `ability` on, or null (GitLab answers null for what the caller may not see). */
export async function visibleProject(ctx: GqlContext, idOrPath: string | number, ability: ProjectAbility = "read_project"): Promise<ProjectRow | null> {
  const project = await loadProject(ctx, idOrPath);
  if (!project) return null;
  return (await mayOnProject(ctx, project, ability)) ? project : null;
}
