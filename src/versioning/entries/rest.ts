import type { CatalogueEntry } from "../catalogue";

/** REST API rows of the schedule (plugin-rpc-and-announced-changes.md, part b). */
export const REST_CHANGES: CatalogueEntry[] = [];
