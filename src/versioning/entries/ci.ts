import type { CatalogueEntry } from "../catalogue";

/** CI keywords, variables, analyzers and security reports of the schedule. */
export const CI_CHANGES: CatalogueEntry[] = [];
