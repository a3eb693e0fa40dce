/**
 * The one catalogue of announced changes (spec: plugin-rpc-and-announced-changes.md, part b, and
 * oauth-service.md, Versioning). Behaviour code asks src/versioning/gate.ts about an entry by id;
 * nothing else compares version strings. docs/deprecations.md explains how to add a row.
 */
export type ChangeInterface =
  | "oauth"
  | "rest"
  | "graphql"
  | "ci"
  | "report"
  | "configuration"
  | "operations"
  | "authentication"
  | "events";

export interface CatalogueEntry {
  id: string;
  interface: ChangeInterface;
  /** What is deprecated or removed, in the spec's words. */
  title: string;
  /** What happens at removal. */
  change: string;
  /** Milestone from which the thing is deprecated; null: deprecated at every version served. */
  deprecatedIn: string | null;
  /** Milestone of removal or change; null: announced for a later, unnamed release. */
  removedIn: string | null;
  /** Planned date of the removal milestone (YYYY-MM-DD), when the schedule gives one. */
  date: string | null;
  /** What to use instead. */
  replacement: string | null;
  /** True when the change alters an API answer (and so has tests on each side of its milestone). */
  affectsApi: boolean;
}

const M15 = "2022-05-22";

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    id: "oauth-implicit-grant",
    interface: "oauth",
    title: "OAuth implicit grant (response_type=token)",
    change: "GET /oauth/authorize with response_type=token is refused with unsupported_response_type.",
    deprecatedIn: "14.0",
    removedIn: "15.0",
    date: M15,
    replacement: "Authorization code with PKCE",
    affectsApi: true,
  },
  {
    id: "oauth-tokens-without-expiry",
    interface: "oauth",
    title: "OAuth access tokens without expiry",
    change:
      "Every access token has an expiry: applications without 'Expire access tokens' issue expiring tokens, and stored tokens without one get one.",
    deprecatedIn: "14.3",
    removedIn: "15.0",
    date: M15,
    replacement: "Enable 'Expire access tokens' on the application and use refresh tokens",
    affectsApi: true,
  },
  {
    id: "oauth-token-info-aliases",
    interface: "oauth",
    title: "Fields scopes and expires_in_seconds of GET /oauth/token/info",
    change: "The deprecated aliases are removed in a later release.",
    deprecatedIn: null,
    removedIn: null,
    date: null,
    replacement: "scope and expires_in",
    affectsApi: true,
  },
];

const byId = new Map(CATALOGUE.map((e) => [e.id, e]));

export function catalogueEntry(id: string): CatalogueEntry {
  const entry = byId.get(id);
  if (!entry) throw new Error(`unknown catalogue entry ${id}`);
  return entry;
}
