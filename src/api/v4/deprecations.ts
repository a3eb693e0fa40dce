import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { CATALOGUE } from "../../versioning/catalogue";
import { gate, stateAt } from "../../versioning/gate";

/** GET /api/v4/deprecations: the schedule with each entry's state at the configured version (public). */
const deprecations = new Hono<AppEnv>();

deprecations.get("/deprecations", (c) => {
  const { version } = gate(c);
  return c.json({
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
  });
});

export default deprecations;
