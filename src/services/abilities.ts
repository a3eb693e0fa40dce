import { deployTokenCovers } from "../credentials/deploy-token";
import type { Caller, DeployTokenPrincipal, UserRow } from "../credentials/principal";
import { getDb } from "../db/client";
import { findGroup, findProject, groupAccessLevel, projectAccessLevel, type GroupRow, type ProjectRow } from "../db/projects";
import { decideAbility, type AbilityActor, type AbilityDecision, type AbilityName, type GroupAbility, type ProjectAbility } from "../domain/abilities";
import { AccessLevel, type Visibility } from "../domain/access";
import { AppError } from "../domain/errors";
import type { Bindings } from "../env";

/**
 * The one resolver of "may this caller do X to this project (or group)?" (docs/architecture.md,
 * "Access checks"): it reads the caller's effective level once, asks the abilities table
 * (src/domain/abilities.ts) and answers a checked project, or refuses with the error family: not
 * found (reason `project_not_found`, `group_not_found`) for what the caller may not see, forbidden
 * (reason `ability_forbidden`) for what it may see but not do. Each family renders these in its own
 * words (REST `404 Project Not Found`, git's and the pages' sentences).
 */

declare const checked: unique symbol;

/**
 * A project someone was allowed `A` on. Services that change a project take only this type, so a
 * project that no one checked does not compile.
 */
export type CheckedProject<A extends ProjectAbility = ProjectAbility> = ProjectRow & { readonly [checked]: { readonly [K in A]: true } };
export type CheckedGroup<A extends GroupAbility = GroupAbility> = GroupRow & { readonly [checked]: { readonly [K in A]: true } };

/**
 * Who asks, as the resolver needs it. `scopes` of a user are null where the family's door judged
 * them (REST and GraphQL by method, pages by session), the token's where they are judged per
 * ability (git, /jwt/auth, the package registry).
 */
export type Asker =
  | { kind: "anonymous" }
  | { kind: "user"; user: UserRow; scopes: readonly string[] | null }
  | { kind: "deploy_token"; token: DeployTokenPrincipal }
  | { kind: "application"; scopes: readonly string[] };

/** The asker of a caller the front door admitted; `scopes` says whether its token's scopes are judged per ability. */
export function askerOf(caller: Caller, scopes: "judged_by_door" | "per_ability"): Asker {
  switch (caller.kind) {
    case "anonymous":
      return caller;
    case "user":
      return { kind: "user", user: caller.principal.user, scopes: scopes === "per_ability" ? caller.principal.scopes : null };
    case "deploy_token":
      return { kind: "deploy_token", token: caller.token };
    case "application":
      return { kind: "application", scopes: caller.application.scopes };
  }
}

/** A signed-in person on a page (their session carries every ability their level allows). */
export const sessionAsker = (user: UserRow | null): Asker => (user ? { kind: "user", user, scopes: null } : { kind: "anonymous" });

export const projectNotFound = () => new AppError("not_found", "Project Not Found", { reason: "project_not_found" });
export const groupNotFound = () => new AppError("not_found", "Group Not Found", { reason: "group_not_found" });
const abilityForbidden = (ability: AbilityName) => new AppError("forbidden", "", { reason: "ability_forbidden", ability });

/** What one asker may do with one project or group: its level read once, every ability answered from the table. */
export class Access<Row extends ProjectRow | GroupRow, A extends AbilityName> {
  constructor(
    readonly row: Row,
    private readonly actor: AbilityActor,
    /** The effective access level the decisions read (memberships: no grant above one's own level). */
    readonly level: number,
    private readonly notFound: () => AppError,
  ) {}

  decide(ability: A): AbilityDecision {
    return decideAbility(ability, this.actor, { visibility: this.row.visibility as Visibility, level: this.level });
  }

  can(ability: A): boolean {
    return this.decide(ability) === "allowed";
  }

  /** The row, branded as checked for `ability`; or the family's not found or forbidden. */
  check<B extends A>(ability: B): Row & { readonly [checked]: { readonly [K in B]: true } } {
    const decision = this.decide(ability);
    if (decision === "not_found") throw this.notFound();
    if (decision === "forbidden") throw abilityForbidden(ability);
    return this.row as Row & { readonly [checked]: { readonly [K in B]: true } };
  }
}

export type ProjectAccess = Access<ProjectRow, ProjectAbility>;
export type GroupAccess = Access<GroupRow, GroupAbility>;

function actorOf(asker: Asker, covers: boolean): AbilityActor {
  switch (asker.kind) {
    case "user":
      return { kind: "user", isAdmin: asker.user.isAdmin, scopes: asker.scopes };
    case "deploy_token":
      return { kind: "deploy_token", scopes: asker.token.scopes, covers };
    default:
      return asker;
  }
}

/** One asker's access to a project it already holds the row of (one level query; none for administrators). */
export async function projectAccess(env: Bindings, asker: Asker, project: ProjectRow): Promise<ProjectAccess> {
  const db = getDb(env.DB);
  const level =
    asker.kind !== "user" ? AccessLevel.NONE : asker.user.isAdmin ? AccessLevel.OWNER : await projectAccessLevel(db, project, asker.user.id);
  const covers = asker.kind === "deploy_token" && (await deployTokenCovers(env, asker.token, project));
  return new Access(project, actorOf(asker, covers), level, projectNotFound);
}

/**
 * A user's (or anonymous) access to a project whose effective level a batch query already read
 * (`projectsWithAccessLevels`, src/db/projects.ts): the same answers as projectAccess, no query.
 */
export function projectAccessAtLevel(asker: Exclude<Asker, { kind: "deploy_token" }>, project: ProjectRow, level: number): ProjectAccess {
  const effective = asker.kind !== "user" ? AccessLevel.NONE : asker.user.isAdmin ? AccessLevel.OWNER : level;
  return new Access(project, actorOf(asker, false), effective, projectNotFound);
}

/** One asker's access to a group (deploy tokens cover their own group only). */
export async function groupAccess(env: Bindings, asker: Asker, group: GroupRow): Promise<GroupAccess> {
  const level = asker.kind !== "user" ? AccessLevel.NONE : asker.user.isAdmin ? AccessLevel.OWNER : await groupAccessLevel(getDb(env.DB), group.id, asker.user.id);
  const covers = asker.kind === "deploy_token" && asker.token.groupId === group.id;
  return new Access(group, actorOf(asker, covers), level, groupNotFound);
}

/** The project of `idOrPath` (numeric id or full path), checked for `ability`; not found when there is none. */
export async function checkProject<A extends ProjectAbility>(
  env: Bindings,
  asker: Asker,
  idOrPath: string,
  ability: A,
): Promise<{ project: CheckedProject<A>; access: ProjectAccess }> {
  const access = await findProjectAccess(env, asker, idOrPath);
  if (!access) throw projectNotFound();
  return { project: access.check(ability), access };
}

/** The access to the project of `idOrPath`, or null when no project has it. */
export async function findProjectAccess(env: Bindings, asker: Asker, idOrPath: string): Promise<ProjectAccess | null> {
  const project = await findProject(getDb(env.DB), idOrPath);
  return project ? projectAccess(env, asker, project) : null;
}

export async function checkGroup<A extends GroupAbility>(
  env: Bindings,
  asker: Asker,
  idOrPath: string,
  ability: A,
): Promise<{ group: CheckedGroup<A>; access: GroupAccess }> {
  const group = await findGroup(getDb(env.DB), idOrPath);
  if (!group) throw groupNotFound();
  const access = await groupAccess(env, asker, group);
  return { group: access.check(ability), access };
}
