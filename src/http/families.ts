/**
 * The one table from path to API family (DESIGN.md, "One front door"). It decides which family's
 * renderer answers an error thrown before a sub-app ran (src/app-errors.ts), where src/app.ts mounts
 * each family (MOUNTS), and how the hostile-input sweep sorts routes (test/hardening/sweep-model.ts).
 * Rows are tried in order; the first match wins; anything else is a page.
 */
export type Family = "rest" | "graphql" | "oauth" | "authorize" | "registry" | "plugin" | "git" | "pages";

export const FAMILY_TABLE: readonly { match: RegExp; family: Family; why: string }[] = [
  { match: /^\/api\/graphql(\/|$)/, family: "graphql", why: "GitLab's GraphQL endpoint" },
  { match: /^\/api(\/|$)/, family: "rest", why: "the REST API; its not-found is JSON too" },
  // RFC 8628 §3.3: the verification page is for people (HTML, sign-in, CSRF), although under /oauth.
  { match: /^\/oauth\/device(\/|$)/, family: "pages", why: "the device flow's verification page" },
  // RP-Initiated Logout: the end-session endpoint and its confirmation are pages (HTML, session, CSRF on the confirmation).
  { match: /^\/oauth\/logout(\/|$)/, family: "pages", why: "the end-session endpoint (OpenID Connect RP-Initiated Logout)" },
  { match: /^\/oauth\/applications$/, family: "pages", why: "GitLab's path of the applications page (a redirect)" },
  // The authorization endpoint answers people with HTML error pages (never JSON, never a redirect before validation).
  { match: /^\/oauth\/authorize(\/|$)/, family: "authorize", why: "the authorization endpoint (HTML)" },
  { match: /^\/(oauth|\.well-known)(\/|$)/, family: "oauth", why: "token endpoints, OpenID Connect, metadata" },
  { match: /^\/(v2|jwt)(\/|$)/, family: "registry", why: "the container registry and its token service" },
  { match: /^\/proto\.Plugin\//, family: "plugin", why: "Plugin RPC over Connect and gRPC-Web" },
  // The pages' own top-level paths come before git's repository paths.
  { match: /^\/(users|profile|help|admin|dashboard|-)(\/|$)/, family: "pages", why: "pages" },
  // Git answers only its three endpoints below any repository path (route templates included).
  { match: /\/(info\/refs|git-upload-pack|git-receive-pack)$/, family: "git", why: "git's smart HTTP endpoints" },
];

export function familyOf(path: string): Family {
  for (const row of FAMILY_TABLE) if (row.match.test(path)) return row.family;
  return "pages";
}

/** Where src/app.ts mounts each family's sub-app (git, Plugin RPC and the pages sit at the root). */
export const MOUNTS = {
  oauth: "/oauth",
  wellKnown: "/.well-known",
  rest: "/api/v4",
  graphql: "/api/graphql",
  registry: "/v2",
  registryTokens: "/jwt",
  root: "/",
} as const;
