/**
 * The one catalogue of announced changes (spec: plugin-rpc-and-announced-changes.md, part b, and
 * oauth-service.md, Versioning). Behaviour code asks src/versioning/gate.ts about an entry by id;
 * nothing else compares version strings. docs/deprecations.md explains how to add a row.
 */
import type { CatalogueEntry } from "./catalogue-entry";
import { CI_CHANGES } from "./entries/ci";
import { GRAPHQL_CHANGES } from "./entries/graphql";
import { OAUTH_CHANGES } from "./entries/oauth";
import { OPERATIONS_CHANGES } from "./entries/operations";
import { REST_CHANGES } from "./entries/rest";

export type { CatalogueEntry, ChangeInterface } from "./catalogue-entry";

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
