import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { gate } from "../../http/gate";
import { catalogueReport } from "../../versioning/report";

/** GET /api/v4/deprecations: the schedule with each entry's state at the configured version (public). */
const deprecations = new Hono<AppEnv>();

deprecations.get("/deprecations", (c) => c.json(catalogueReport(gate(c).version)));

export default deprecations;
