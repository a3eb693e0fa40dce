import { Hono } from "hono";
import type { AppEnv } from "../env";
import authorizeRoutes from "./authorize-routes";
import deviceAuthorization from "./device/authorize-endpoint";
import oidcRoutes from "./oidc/routes";
import registration from "./registration/routes";
import tokenRoutes from "./token-routes";
import pushedRequests from "./par";

/** /oauth: the authorization endpoint (HTML) and the token endpoints (JSON), each with its own error shape. */
const routes = new Hono<AppEnv>();
routes.route("/", authorizeRoutes);
routes.route("/", tokenRoutes);
routes.route("/", oidcRoutes);
routes.route("/", deviceAuthorization);
routes.route("/", registration);
routes.route("/", pushedRequests);

export default routes;
