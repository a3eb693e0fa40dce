import { AccessLevel, type Visibility } from "./access";
import { hasAnyScope } from "./scopes";

/**
 * GitLab's named abilities on a project or group, as one table (docs/architecture.md, "Access
 * checks"): from who asks (a user with an access level, a deploy token, an application acting for
 * itself, nobody), the visibility and the token's scopes to allow or deny. Every surface (REST,
 * GraphQL, the pages, git, /jwt/auth, the package registry) asks `decideAbility` through the
 * resolver of src/services/abilities.ts; nothing else compares access levels
 * (test/architecture/abilities.test.ts, test/services/access-parity.test.ts).
 */

/**
 * Who reaches a project, with what can carry an ability:
 * - user: an access token or a signed-in session; `scopes` are the token's scopes on surfaces that
 *   judge them per ability (git, /jwt/auth, the package registry), null where the family's door has
 *   judged them already (REST and GraphQL: read_api reads, api writes; pages: a session);
 * - deploy_token: acts for the project or group it belongs to (`covers`), with its scopes;
 * - application: an OAuth application acting for itself (client_credentials): no user, so nothing
 *   beyond what an anonymous visitor may do;
 * - anonymous.
 */
export type AbilityActor =
  | { kind: "anonymous" }
  | { kind: "user"; isAdmin: boolean; scopes: readonly string[] | null }
  | { kind: "deploy_token"; scopes: readonly string[]; covers: boolean }
  | { kind: "application"; scopes: readonly string[] };

/** What the table reads of a project or group: its visibility and the user's effective level (0 when none). */
export interface AccessFacts {
  visibility: Visibility;
  level: number;
}

/**
 * How visibility opens an ability to non-members: "project" (public: anyone; internal: any signed-in
 * user; private: members from `min`), "code" (as "project", but on a private project from reporter:
 * GitLab's download_code), or null (members from `min` only, whatever the visibility).
 */
type VisibilityRule = "project" | "code" | null;

interface AbilityRule {
  /** What the ability is on: a project, or a group. */
  on: "project" | "group";
  /** The lowest member level that has the ability (administrators have every ability). */
  min: number;
  opens: VisibilityRule;
  /** User token scopes that carry it where scopes are judged per ability (GitLab's abilities_for_scopes). */
  scopes: readonly string[];
  /** Deploy token scopes that carry it on the project or group the token covers; none: people only. */
  deployScopes: readonly string[];
}

const { GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;
const API_READ = ["api", "read_api"] as const;
const API = ["api"] as const;
const ANY_DEPLOY = ["read_repository", "read_registry", "write_registry", "read_package_registry", "write_package_registry"] as const;

type On = AbilityRule["on"];
const read = <O extends On>(on: O, min: number, opens: VisibilityRule, scopes: readonly string[], deployScopes: readonly string[] = []) =>
  ({ on, min, opens, scopes, deployScopes }) as AbilityRule & { on: O };
const change = <O extends On>(on: O, min: number, scopes: readonly string[], deployScopes: readonly string[] = []) =>
  ({ on, min, opens: null, scopes, deployScopes }) as AbilityRule & { on: O };

/** The table: one row per ability, GitLab's name and its rule (ProjectPolicy, GroupPolicy, Gitlab::Auth). */
export const ABILITIES = {
  read_project: read("project", GUEST, "project", API_READ, ANY_DEPLOY),
  /** Branches, files, merge requests, pipelines, security findings: GitLab's download_code. */
  read_code: read("project", REPORTER, "code", ["api", "read_repository", "write_repository"], ["read_repository"]),
  push_code: change("project", DEVELOPER, ["api", "write_repository"]),
  read_container_image: read("project", REPORTER, "code", ["api", "read_registry", "write_registry"], ["read_registry", "write_registry"]),
  create_container_image: change("project", DEVELOPER, ["api", "write_registry"], ["write_registry"]),
  /** Deleting repositories and tags: people only (GitLab's deploy tokens push and pull). */
  destroy_container_image: change("project", DEVELOPER, ["api", "write_registry"]),
  read_package: read("project", REPORTER, "code", API_READ, ["read_package_registry", "write_package_registry"]),
  create_package: change("project", DEVELOPER, API, ["write_package_registry"]),
  destroy_package: change("project", MAINTAINER, API),
  /** Project statistics (the `statistics` of GET /projects/:id; left out, never refused). */
  read_statistics: read("project", REPORTER, null, API_READ),
  create_merge_request: change("project", DEVELOPER, API),
  /** A project's external status checks: developers read them (they answer them). */
  read_status_checks: change("project", DEVELOPER, API_READ),
  /** CI lint of a project's configuration (GitLab needs developer: create_pipeline). */
  create_pipeline: change("project", DEVELOPER, API),
  /** Settings, deploy tokens, runners, license policies, external status checks. */
  admin_project: change("project", MAINTAINER, API),
  /** Renaming a project (its name; the path is admin_project's). */
  rename_project: change("project", OWNER, API),
  remove_project: change("project", OWNER, API),
  read_group: read("group", GUEST, "project", API_READ, ANY_DEPLOY),
  /** A group's container repositories: reporter whatever the visibility (GitLab's group registry API). */
  read_group_container_images: change("group", REPORTER, API_READ),
  /** Creating projects in a group. */
  create_projects: change("group", DEVELOPER, API),
  /** A group's deploy tokens, runners and runner registration. */
  maintain_group: change("group", MAINTAINER, API),
  /** Subgroups, members' management, the group's settings. */
  admin_group: change("group", OWNER, API),
} as const satisfies Record<string, AbilityRule>;

export type AbilityName = keyof typeof ABILITIES;
export type ProjectAbility = { [K in AbilityName]: (typeof ABILITIES)[K]["on"] extends "project" ? K : never }[AbilityName];
export type GroupAbility = Exclude<AbilityName, ProjectAbility>;

/**
 * "allowed", or how a refusal is answered (GitLab's policies): not found for a project or group the
 * caller may not see (read_project, read_group), forbidden for anything else on one it sees, a
 * read included (a guest of a private project is forbidden its code, not told it does not exist).
 */
export type AbilityDecision = "allowed" | "not_found" | "forbidden";

function opensTo(r: AbilityRule, visibility: Visibility, level: number, signedInUser: boolean): boolean {
  if (level >= r.min) return true;
  if (r.opens === null) return false;
  if (visibility === "public") return true;
  if (visibility === "internal") return signedInUser;
  return false;
}

/** Whether the actor has the ability, before scopes: visibility and level alone. */
function granted(ability: AbilityName, actor: AbilityActor, facts: AccessFacts): boolean {
  const r: AbilityRule = ABILITIES[ability];
  switch (actor.kind) {
    case "user":
      return actor.isAdmin || opensTo(r, facts.visibility, facts.level, true);
    case "deploy_token":
      return actor.covers && hasAnyScope(actor.scopes, r.deployScopes);
    case "anonymous":
    case "application":
      return opensTo(r, facts.visibility, 0, false);
  }
}

function scopesCarry(ability: AbilityName, actor: AbilityActor): boolean {
  if (actor.kind !== "user" || actor.scopes === null) return true;
  return hasAnyScope(actor.scopes, ABILITIES[ability].scopes);
}

/** What the table answers for one ability, as every surface must answer it (test/services/access-parity.test.ts). */
export function decideAbility(ability: AbilityName, actor: AbilityActor, facts: AccessFacts): AbilityDecision {
  if (granted(ability, actor, facts) && scopesCarry(ability, actor)) return "allowed";
  const sees = granted(ABILITIES[ability].on === "group" ? "read_group" : "read_project", actor, facts);
  return sees ? "forbidden" : "not_found";
}
