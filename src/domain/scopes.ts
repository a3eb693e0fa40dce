/** The scope catalogue (GitLab's names and descriptions). */
export const SCOPES = {
  api: "Grants complete read/write access to the API, including all groups and projects, the container registry, and the package registry.",
  read_api: "Grants read access to the API, including all groups and projects, the container registry, and the package registry.",
  read_user: "Grants read-only access to the authenticated user's profile through the /user API endpoint.",
  read_repository: "Grants read-only access to repositories on private projects using Git-over-HTTP or the Repository Files API.",
  write_repository: "Grants read-write access to repositories on private projects using Git-over-HTTP (not using the API).",
  read_registry: "Grants read-only access to container registry images on private projects.",
  write_registry: "Grants write access to container registry images on private projects.",
  sudo: "Grants permission to perform API actions as any user in the system, when authenticated as an admin user.",
  openid: "Grants permission to authenticate with the service using OpenID Connect.",
  profile: "Grants read-only access to the user's profile data using OpenID Connect.",
  email: "Grants read-only access to the user's primary email address using OpenID Connect.",
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export function isScope(s: string): s is Scope {
  return Object.hasOwn(SCOPES, s);
}

/** Parses a space-separated list (a + in a query string is already a space once decoded). */
export function parseScopes(value: string | null | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(/[\s+]+/).filter(Boolean))];
}

export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(" ");
}

/** True when the token holds at least one of the scopes a route accepts. */
export function hasAnyScope(held: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => held.includes(s));
}
