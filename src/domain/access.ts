/** GitLab access levels. */
export const AccessLevel = {
  NONE: 0,
  MINIMAL: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export type Visibility = "private" | "internal" | "public";

/**
 * What a user may do with a project, from its visibility and the user's effective access level
 * (the highest of their project and ancestor-group memberships). Administrators see and may do all.
 */
export function canReadProject(visibility: Visibility, accessLevel: number, signedIn: boolean, isAdmin: boolean): boolean {
  if (isAdmin) return true;
  if (visibility === "public") return true;
  if (visibility === "internal") return signedIn;
  return accessLevel >= AccessLevel.GUEST;
}

/** Reading code (git fetch) needs reporter on private projects; public and internal follow visibility. */
export function canReadCode(visibility: Visibility, accessLevel: number, signedIn: boolean, isAdmin: boolean): boolean {
  if (isAdmin) return true;
  if (visibility === "private") return accessLevel >= AccessLevel.REPORTER;
  return canReadProject(visibility, accessLevel, signedIn, isAdmin);
}

/** Pushing needs developer (protected-branch rules are out of scope). */
export function canPushCode(accessLevel: number, isAdmin: boolean): boolean {
  return isAdmin || accessLevel >= AccessLevel.DEVELOPER;
}

/**
 * Abilities that REST and GraphQL both check, as minimum levels (GitLab's policies; administrators
 * pass every one). Routes pass them to their loaders; GraphQL resolvers ask `hasAbility`.
 */
export const Ability = {
  /** destroy_container_image: delete container repositories and tags. */
  destroyContainerImage: AccessLevel.DEVELOPER,
  /** Deploy tokens of a project or group: list, read, create, revoke. */
  manageDeployTokens: AccessLevel.MAINTAINER,
} as const;

export function hasAbility(accessLevel: number, isAdmin: boolean, minimum: number): boolean {
  return isAdmin || accessLevel >= minimum;
}

/** read_container_image: as reading code (reporter on private projects, else the visibility). */
export const canReadContainerImages = canReadCode;
