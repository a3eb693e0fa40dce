import type { CatalogueEntry } from "./catalogue";
import { atLeast } from "./version";

/** Where a catalogued change stands at a service version (docs/deprecations.md): a pure rule. */
export type ChangeState = "announced" | "deprecated" | "removed";

export function stateAt(entry: CatalogueEntry, version: string): ChangeState {
  if (entry.removedIn && atLeast(version, entry.removedIn)) return "removed";
  if (entry.deprecatedIn === null || atLeast(version, entry.deprecatedIn)) return "deprecated";
  return "announced";
}
