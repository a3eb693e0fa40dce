import { Hono } from "hono";
import type { AppEnv } from "../../env";
import deprecations from "./deprecations";
import { renderApiError } from "./errors";

/** /api/v4: one file per resource, joined here. */
const api = new Hono<AppEnv>();
api.onError(renderApiError);
api.notFound((c) => c.json({ error: "404 Not Found" }, 404));

api.route("/", deprecations);

export default api;
