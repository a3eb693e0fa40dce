import type { CatalogueEntry } from "../catalogue";

/** GraphQL rows of the schedule. */
export const GRAPHQL_CHANGES: CatalogueEntry[] = [];
