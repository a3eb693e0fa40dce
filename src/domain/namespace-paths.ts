import { AppError } from "./errors";

/**
 * GitLab's namespace rules (DESIGN.md "Namespaces"; docs/security.md "Namespaces"): users and
 * top-level groups share one namespace of paths, unique without regard to case, and the service's
 * own top-level paths are reserved, because `/<path>` is at once a user's or group's projects, a git
 * URL prefix and a registry name prefix. Uniqueness is enforced by D1 (unique indexes on lower(...)
 * and the triggers of the namespace migration, so races are settled by the database);
 * `src/db/namespace-paths.ts` turns its refusals and the reserved names into NamespacePathError.
 */

/**
 * Every first path segment the app answers itself (test/domain/namespace-paths.test.ts checks this
 * against every route `src/app.ts` mounts), plus GitLab's other top-level routes
 * (Gitlab::PathRegex::TOP_LEVEL_ROUTES), so a namespace made here keeps working if it is moved to
 * GitLab and a route added later does not shadow an existing namespace.
 */
export const RESERVED_TOP_LEVEL_PATHS: ReadonlySet<string> = new Set([
  // Mounted by src/app.ts and the pages.
  "-",
  ".well-known",
  "admin",
  "api",
  "favicon.ico",
  "help",
  "jwt",
  "oauth",
  "profile",
  "proto.plugin",
  "users",
  "v2",
  // GitLab's top-level routes (the pages' paths a person finds by links, DESIGN.md "Pages").
  "404.html",
  "422.html",
  "500.html",
  "502.html",
  "503.html",
  "apple-touch-icon.png",
  "assets",
  "dashboard",
  "deploy.html",
  "explore",
  "favicon.png",
  "files",
  "groups",
  "health_check",
  "import",
  "login",
  "projects",
  "public",
  "robots.txt",
  "s",
  "search",
  "sitemap",
  "sitemap.xml",
  "sitemap.xml.gz",
  "slash-command-logo.png",
  "snippets",
  "unsubscribes",
  "uploads",
]);

/** GitLab's username rule (Gitlab::PathRegex.namespace_format_regex, simplified; no `.git`/`.atom` ending). */
export function isValidUsername(username: string): boolean {
  return /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,253}[a-zA-Z0-9_-]$/.test(username) && !/\.(git|atom)$/i.test(username);
}

export function isReservedTopLevelPath(path: string): boolean {
  return RESERVED_TOP_LEVEL_PATHS.has(path.toLowerCase());
}

/** The attribute a namespace refusal names, as GitLab's validation errors name it. */
export type NamespaceField = "path" | "username" | "email";

/**
 * A path, username or email that cannot be used: taken (without regard to case, by a user, group
 * or project of the same namespace) or reserved. The message is GitLab's validation message, which
 * REST renders as `{"message":{"<field>":["<message>"]}}`; GitLab's users API answers a taken
 * username or email with 409, everything else with 400.
 */
export function namespacePathError(field: NamespaceField, reason: "taken" | "reserved", value: string, options?: { cause?: unknown }): AppError {
  const code = reason === "taken" && field !== "path" ? "conflict" : "invalid";
  return new AppError(code, reason === "taken" ? "has already been taken" : `${value} is a reserved name`, { field, reason }, options);
}
