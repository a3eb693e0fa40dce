import { CATALOGUE } from "./catalogue";
import { stateAt } from "./gate";

/**
 * The catalogue as its public wire form (snake_case), with each entry's state at a version.
 * One shape for GET /api/v4/deprecations and the Plugin RPC core function deprecations.list.
 */
export function catalogueReport(version: string) {
  return {
    service_version: version,
    entries: CATALOGUE.map((e) => ({
      id: e.id,
      interface: e.interface,
      title: e.title,
      change: e.change,
      deprecated_in: e.deprecatedIn,
      removed_in: e.removedIn,
      planned_date: e.date,
      replacement: e.replacement,
      affects_api: e.affectsApi,
      state: stateAt(e, version),
    })),
  };
}
