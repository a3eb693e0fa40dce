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
