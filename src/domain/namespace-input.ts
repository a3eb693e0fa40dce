/**
 * What a project's or group's path and visibility may be (GitLab's Gitlab::PathRegex): checked by
 * REST (src/api/v4/groups.ts) and the pages' forms alike, so both refuse the same paths.
 */
export const NAMESPACE_PATH_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
export const VISIBILITIES = ["private", "internal", "public"] as const;
export type VisibilityLevel = (typeof VISIBILITIES)[number];

export function isValidNamespacePath(p: string): boolean {
  return p.length >= 1 && p.length <= 255 && NAMESPACE_PATH_PATTERN.test(p) && !/\.(git|atom)$/.test(p);
}

/** GitLab's path from a name: lower case, runs of other characters as one "-". */
export function pathFromName(name: string): string {
  return name.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
}
