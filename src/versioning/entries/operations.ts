import type { CatalogueEntry } from "../catalogue";

/** Configuration, operations, authentication and event rows of the schedule. */
export const OPERATIONS_CHANGES: CatalogueEntry[] = [];
