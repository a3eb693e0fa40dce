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

import { CI_CHANGES } from "./entries/ci";
import { GRAPHQL_CHANGES } from "./entries/graphql";
import { OAUTH_CHANGES } from "./entries/oauth";
import { OPERATIONS_CHANGES } from "./entries/operations";
import { REST_CHANGES } from "./entries/rest";

/** Every row of the schedule, one file per interface family in entries/. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  ...OAUTH_CHANGES,
  ...REST_CHANGES,
  ...GRAPHQL_CHANGES,
  ...CI_CHANGES,
  ...OPERATIONS_CHANGES,
];

const byId = new Map(CATALOGUE.map((e) => [e.id, e]));

export function catalogueEntry(id: string): CatalogueEntry {
  const entry = byId.get(id);
  if (!entry) throw new Error(`unknown catalogue entry ${id}`);
  return entry;
}
